// Package askmodel provides ask_model, the tool that asks a second model,
// usually a smaller one, a single question through wield's providers: no
// tools, no history, one answer, optionally JSON checked against a schema.
//
//	t := askmodel.New(askmodel.Config{Models: resolve, Model: "anthropic:claude-haiku-4-5"})
//
// The tool builds the provider of each call with [Config.Models], so that
// a call may name another model than the default. The Data of its results
// is an [Answer], which reports the tokens and cost of the call's model
// requests (ModelUsage, the method agent.UsageReporter asks for): an
// agent's run counts them in its usage.
//
// # Structured answers
//
// With json_schema, the model is told to answer with JSON valid against
// the schema, and the answer is validated with package schema. An answer
// that is not valid JSON, or not valid against the schema, is sent back
// once with the violations; a second invalid answer fails the call, with
// the answer in the result's output.
package askmodel
