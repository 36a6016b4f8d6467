// Package mcp speaks the Model Context Protocol on the official go-sdk, on
// both sides: its server serves wield's tools to MCP clients, and its
// client mounts the tools of other MCP servers into a registry.
//
// [NewServer] registers every visible tool of a registry with the SDK's
// low-level AddTool, so arguments are validated by wield's own schema and
// runner: a call with invalid arguments gets a tool result with isError
// set that lists every violation, exactly as the agent loop's model would
// read it, and an unknown tool gets the protocol's error. Tool annotations
// become readOnlyHint, destructiveHint and openWorldHint. A tool's
// [tool.Spec.OutputSchema] becomes its outputSchema, and the Data of its
// successful results structuredContent, repeated as JSON text; tools
// without one send no structured content on success. Progress a tool
// emits becomes notifications/progress for clients that asked for it. A
// client's notifications/cancelled cancels the call's context (for
// run_shell_command, its processes are killed), and no response follows.
//
// With a session store and id in [ServerOptions], each call and its result
// are recorded in that session through [session.Store.Record]: committed at
// once when nobody is writing the session, or merged by the run that owns
// it when it commits.
//
// [BuildServer] builds the registry on a goroutine of its own while the
// server answers the client's handshake: tools/ requests wait for it, and
// a failed build ends the server with its error. The tool list, once
// built, does not change, and the server promises no list_changed.
//
// [Server.ServeStdio] serves one client over standard input and output
// ([PollStdin] makes a piped standard input wait in the runtime's poller,
// where closing it ends a waiting read);
// [Server.HTTPHandler] serves streamable HTTP, with optional JSON answers,
// a stateless mode and a bearer token, and with the SDK's protection
// against DNS rebinding on loopback.
//
// # Client
//
// A [Manager] mounts other MCP servers' tools as wield tools. [LoadConfig]
// reads the mcpServers format of Claude Code and Claude Desktop from
// [ConfigFiles]: the user's mcp.json, then the project's .mcp.json, then
// .wield/mcp.json; a later definition of a server replaces an earlier one
// whole. Servers run over stdio or streamable HTTP (with an SSE fallback),
// start on first use, log standard error to a file, and are restarted with
// backoff after a crash; their calls fail with a clear result meanwhile.
// Their tools are named mcp__<server>__<tool>, sanitised for providers;
// their schemas are untrusted (references inlined, depth and size capped,
// invalid tools skipped with a warning); their text results are marked as
// untrusted data for the model. [Manager.Close] stops every child.
//
// # Trust
//
// What a server says of its tools (readOnlyHint, destructiveHint and the
// other annotations) is, in the MCP specification's words, untrusted
// unless the server is trusted. Only the user's own mcp.json can trust a
// server ("trust": true), never a project's file, which comes with the
// repository. The tools of any other server are annotated as destructive,
// open-world and not parallel-safe, so a permission policy asks before
// running them and plan mode leaves them out, whatever the server claims;
// the claims are kept as labels in [Origin.Hints].
package mcp
