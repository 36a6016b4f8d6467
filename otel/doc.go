// Package otel traces wield's agent runs with OpenTelemetry, following
// the GenAI and MCP semantic conventions ([SemconvVersion]), and records
// their metrics.
//
// It depends on the OpenTelemetry API only. The SDK and the OTLP
// exporters are set up by package [github.com/wieldhq/wield/otel/otlp]
// (from the standard OTEL_* environment variables), or by a host that
// has its own:
//
//	tel, err := otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp, ProviderName: "openai"})
//	a, err := agent.New(agent.Config{Provider: model, Tools: reg, Telemetry: tel})
//
// A nil *Telemetry, which is what [New] returns when neither provider is
// given, records nothing and costs nothing: the agent's calls into it
// return at once and allocate nothing.
//
// # Spans
//
// One run of an agent is a tree:
//
//	invoke_agent {agent}            INTERNAL, gen_ai.conversation.id = the session id
//	  chat {model}                  CLIENT, one per model call: tokens, time to first chunk
//	  execute_tool {tool}           INTERNAL, one per call: queue wait, run time, policy, approval wait
//	    invoke_agent {type}         a subagent's run, under the call that started it
//	    tools/call {tool}           CLIENT, an MCP call; the server continues the trace
//	      tools/call {tool}         SERVER, in the MCP server, from traceparent in _meta
//
// Every attribute and metric name is in one file, semconv.go, beside the
// version of the conventions it follows; wield's own attributes are under
// wield.*.
//
// # Content
//
// Messages, tool arguments and tool results are not put on spans unless
// [Config.CaptureContent] is set; then each value is cut to
// [Config.MaxContentBytes] and passed through [Config.Redact] (wield
// passes its session store's redaction).
//
// # Metrics
//
// gen_ai.client.token.usage (by gen_ai.token.type),
// gen_ai.client.operation.duration (model calls as chat, tool calls as
// execute_tool; failures carry error.type),
// gen_ai.client.operation.time_to_first_chunk, and
// mcp.client.operation.duration and mcp.server.operation.duration.
//
// # Journal
//
// A session records the trace and span ids of its model responses and
// tool results (session.Turn.TraceID and SpanID), so that a journal
// record leads to its span and back.
package otel
