package otel

import "go.opentelemetry.io/otel/attribute"

// SemconvVersion is the version of the OpenTelemetry semantic conventions
// whose GenAI and MCP names this package emits (the names selected by
// OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental; the GenAI
// conventions are in Development status and may still change). Every
// attribute, span and metric name the package writes is in this file.
const SemconvVersion = "1.39.0"

// SchemaURL is the schema of [SemconvVersion], set on the tracer and the
// meter.
const SchemaURL = "https://opentelemetry.io/schemas/" + SemconvVersion

// instrumentationName names the tracer and the meter.
const instrumentationName = "github.com/wieldhq/wield/otel"

// Operation names (gen_ai.operation.name) and span names.
const (
	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"
	// mcpToolsCall is the MCP method of a tool call; its spans are named
	// "tools/call {tool}".
	mcpToolsCall = "tools/call"
)

// GenAI attributes.
const (
	keyOperationName     = attribute.Key("gen_ai.operation.name")
	keyProviderName      = attribute.Key("gen_ai.provider.name")
	keyConversationID    = attribute.Key("gen_ai.conversation.id")
	keyAgentName         = attribute.Key("gen_ai.agent.name")
	keyAgentID           = attribute.Key("gen_ai.agent.id")
	keyRequestModel      = attribute.Key("gen_ai.request.model")
	keyRequestMaxTokens  = attribute.Key("gen_ai.request.max_tokens")
	keyRequestTemp       = attribute.Key("gen_ai.request.temperature")
	keyRequestStream     = attribute.Key("gen_ai.request.stream")
	keyResponseModel     = attribute.Key("gen_ai.response.model")
	keyResponseID        = attribute.Key("gen_ai.response.id")
	keyFinishReasons     = attribute.Key("gen_ai.response.finish_reasons")
	keyTimeToFirstChunk  = attribute.Key("gen_ai.response.time_to_first_chunk")
	keyInputTokens       = attribute.Key("gen_ai.usage.input_tokens")
	keyOutputTokens      = attribute.Key("gen_ai.usage.output_tokens")
	keyCacheReadTokens   = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	keyCacheWriteTokens  = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	keyReasoningTokens   = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	keyToolName          = attribute.Key("gen_ai.tool.name")
	keyToolCallID        = attribute.Key("gen_ai.tool.call.id")
	keyToolType          = attribute.Key("gen_ai.tool.type")
	keyToolDescription   = attribute.Key("gen_ai.tool.description")
	keyToolCallArguments = attribute.Key("gen_ai.tool.call.arguments")
	keyToolCallResult    = attribute.Key("gen_ai.tool.call.result")
	keyInputMessages     = attribute.Key("gen_ai.input.messages")
	keyOutputMessages    = attribute.Key("gen_ai.output.messages")
	keyTokenType         = attribute.Key("gen_ai.token.type")
	keyErrorType         = attribute.Key("error.type")
)

// MCP attributes.
const (
	keyMCPMethodName      = attribute.Key("mcp.method.name")
	keyMCPSessionID       = attribute.Key("mcp.session.id")
	keyMCPProtocolVersion = attribute.Key("mcp.protocol.version")
	keyJSONRPCRequestID   = attribute.Key("jsonrpc.request.id")
	keyNetworkTransport   = attribute.Key("network.transport")
)

// wield's own attributes, under wield.* as the conventions ask of
// attributes they do not define.
const (
	keyStopReason       = attribute.Key("wield.stop_reason")
	keyRounds           = attribute.Key("wield.rounds")
	keyToolCalls        = attribute.Key("wield.tool_calls")
	keyParentCall       = attribute.Key("wield.parent_call.id")
	keyPolicyDecision   = attribute.Key("wield.policy.decision")
	keyPolicyReason     = attribute.Key("wield.policy.reason")
	keyApprovalWait     = attribute.Key("wield.approval.wait_ms")
	keyQueueWait        = attribute.Key("wield.tool.queue_wait_ms")
	keyRunTime          = attribute.Key("wield.tool.run_ms")
	keyToolSuccess      = attribute.Key("wield.tool.success")
	keyAwaitingApproval = attribute.Key("wield.tool.awaiting_approval")
	keyMCPServer        = attribute.Key("wield.mcp.server")
)

// Values of gen_ai.token.type and gen_ai.tool.type.
const (
	tokenInput      = "input"
	tokenOutput     = "output"
	toolTypeFunc    = "function"
	errToolFailed   = "tool_error"
	errOther        = "_OTHER"
	providerDefault = "wield"
)

// Metric names and units.
const (
	metricTokenUsage        = "gen_ai.client.token.usage"
	metricOperationDuration = "gen_ai.client.operation.duration"
	metricTimeToFirstChunk  = "gen_ai.client.operation.time_to_first_chunk"
	metricMCPClientDuration = "mcp.client.operation.duration"
	metricMCPServerDuration = "mcp.server.operation.duration"
	unitToken               = "{token}"
	unitSeconds             = "s"
)

// The _meta keys an MCP request carries its trace context in (W3C Trace
// Context, as the MCP conventions prescribe).
const (
	metaTraceparent = "traceparent"
	metaTracestate  = "tracestate"
)
