// Package tool is wield's tool contract: what a tool is, how it is called,
// what it returns, and how calls are validated and executed.
//
// # Tools
//
// A [Tool] is a [Spec] (name, description, input schema, annotations,
// limits) and a [Handler]. Tools are stateless: everything a call needs
// arrives in its arguments and its [Call], and everything it produces leaves
// in its [Result]. There are two ways to build one, as in the MCP go-sdk:
//
//   - [New] infers the input schema from a Go type once, then validates and
//     decodes the arguments before calling a typed function.
//   - [NewRaw] takes a schema as JSON and a handler of raw JSON arguments; it
//     suits tools whose schema comes from elsewhere (MCP servers, declared
//     tools in JSON files, see [LoadDeclared]).
//
// # Registry and runner
//
// A [Registry] holds tools by name and exports them in every provider
// dialect. A [Runner] executes a batch of calls against a registry: it
// validates arguments, applies timeouts and retries, recovers panics, bounds
// output, runs parallel-safe tools together and returns exactly one [Result]
// per call, in call order.
//
// # Two kinds of failure
//
// Anything the model should hear about becomes a Result with Success false
// and a message saying what to change: bad arguments, an unknown tool, a tool
// error, a timeout or a cancellation. A Go error from [Runner.Run] means the
// run must stop: a [Recorder] could not write the session journal, or a tool
// reported a fault with [Fatal].
package tool
