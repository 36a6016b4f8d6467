// Package schema compiles, validates and translates the JSON Schemas that
// describe tool inputs.
//
// wield keeps every tool's input schema in JSON Schema draft 2020-12, the
// dialect MCP uses. This package does four things with those schemas:
//
//   - [Compile] turns a schema document into a [Schema] that validates
//     model-produced arguments. [Schema.Validate] reports every violation at
//     once, each by JSON pointer and in plain words, so a model can fix all of
//     them in its next call (see [ValidationError]).
//   - The dialect functions ([OpenAI], [Anthropic], [Gemini], [MCP]) rewrite a
//     schema into the form each provider accepts.
//   - [InlineRefs] replaces a schema's local references with what they point
//     to, for consumers that cannot follow them.
//   - [Names] maps tool names to names a provider accepts and back again.
//
// # Untrusted schemas
//
// Schemas that come from outside the program (declared-tool files, MCP servers)
// are checked against [Limits] before they are compiled: a maximum nesting
// depth and a maximum size. Compile never fetches a remote reference; a
// schema may only refer to itself and to the resources given in
// [CompileOptions.Resources].
package schema
