// Package mcp serves wield's tools over the Model Context Protocol, on the
// official go-sdk.
//
// [NewServer] registers every visible tool of a registry with the SDK's
// low-level AddTool, so arguments are validated by wield's own schema and
// runner: a call with invalid arguments gets a tool result with isError
// set that lists every violation, exactly as the agent loop's model would
// read it, and an unknown tool gets the protocol's error. Tool annotations
// become readOnlyHint, destructiveHint and openWorldHint; Result.Data
// becomes structuredContent when it is a JSON object; progress a tool
// emits becomes notifications/progress for clients that asked for it; a
// client's notifications/cancelled cancels the call's context.
//
// With a session store and id in [ServerOptions], each call and its result
// are recorded in that session through [session.Store.Record]: committed at
// once when nobody is writing the session, or merged by the run that owns
// it when it commits.
//
// [Server.ServeStdio] serves one client over standard input and output;
// [Server.HTTPHandler] serves streamable HTTP, with optional JSON answers,
// a stateless mode and a bearer token, and with the SDK's protection
// against DNS rebinding on loopback.
package mcp
