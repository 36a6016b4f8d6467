package otel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TraceContext is the W3C trace context an MCP request carries in its
// params' _meta ("traceparent" and "tracestate"), as the MCP semantic
// conventions prescribe. The zero value carries none.
type TraceContext struct {
	Traceparent string `json:"traceparent,omitempty"`
	Tracestate  string `json:"tracestate,omitempty"`
}

// Get, Set and Keys make a *TraceContext a [propagation.TextMapCarrier].
func (tc *TraceContext) Get(key string) string {
	switch key {
	case metaTraceparent:
		return tc.Traceparent
	case metaTracestate:
		return tc.Tracestate
	}
	return ""
}

// Set sets key, if it is one of the two keys; see [TraceContext.Get].
func (tc *TraceContext) Set(key, value string) {
	switch key {
	case metaTraceparent:
		tc.Traceparent = value
	case metaTracestate:
		tc.Tracestate = value
	}
}

// Keys lists the keys set; see [TraceContext.Get].
func (tc *TraceContext) Keys() []string {
	var k []string
	if tc.Traceparent != "" {
		k = append(k, metaTraceparent)
	}
	if tc.Tracestate != "" {
		k = append(k, metaTracestate)
	}
	return k
}

// SetMeta puts the trace context into an MCP _meta map; meta must not be
// nil.
func (tc TraceContext) SetMeta(meta map[string]any) {
	if tc.Traceparent != "" {
		meta[metaTraceparent] = tc.Traceparent
	}
	if tc.Tracestate != "" {
		meta[metaTracestate] = tc.Tracestate
	}
}

// FromMeta returns the trace context of an MCP _meta map; nil gives the
// zero TraceContext.
func FromMeta(meta map[string]any) TraceContext {
	var tc TraceContext
	tc.Traceparent, _ = meta[metaTraceparent].(string)
	tc.Tracestate, _ = meta[metaTracestate].(string)
	return tc
}

// MCPInfo describes an MCP tools/call for its span.
type MCPInfo struct {
	// Tool is the tool's name as the server knows it.
	Tool string
	// Server is the configured name of the server (client side only).
	Server string
	// SessionID and ProtocolVersion are the MCP session's, if known.
	SessionID, ProtocolVersion string
	// Transport is network.transport: "pipe" for stdio, "tcp" for HTTP.
	Transport string
	// RequestID is the JSON-RPC request id, if known.
	RequestID string
}

// An MCPCall is the telemetry of one tools/call, on either side. A nil
// *MCPCall does nothing. Its methods must not be called concurrently.
type MCPCall struct {
	t      *Telemetry
	span   trace.Span
	start  time.Time
	server bool
	attrs  []attribute.KeyValue
}

// StartMCPClient starts the CLIENT span of a tools/call, a child of the
// span in ctx (the call's execute_tool span), and returns the trace
// context to send in the request's _meta so that the server continues the
// trace.
func (t *Telemetry) StartMCPClient(ctx context.Context, info MCPInfo) (context.Context, *MCPCall, TraceContext) {
	if t == nil {
		return ctx, nil, TraceContext{}
	}
	c := &MCPCall{t: t, start: time.Now(), attrs: mcpAttrs(info)}
	ctx, c.span = t.start(ctx, mcpToolsCall+" "+info.Tool, trace.SpanKindClient, c.attrs...)
	var tc TraceContext
	propagation.TraceContext{}.Inject(ctx, &tc)
	return ctx, c, tc
}

// StartMCPServer starts the SERVER span of a tools/call that arrived with
// trace context tc (from its _meta), continuing the caller's trace when
// tc is valid.
func (t *Telemetry) StartMCPServer(ctx context.Context, tc TraceContext, info MCPInfo) (context.Context, *MCPCall) {
	if t == nil {
		return ctx, nil
	}
	if tc.Traceparent != "" {
		carrier := tc // escapes: a copy, so that a nil Telemetry allocates nothing
		ctx = propagation.TraceContext{}.Extract(ctx, &carrier)
	}
	c := &MCPCall{t: t, start: time.Now(), server: true, attrs: mcpAttrs(info)}
	ctx, c.span = t.start(ctx, mcpToolsCall+" "+info.Tool, trace.SpanKindServer, c.attrs...)
	return ctx, c
}

// mcpAttrs returns the attributes of a tools/call span.
func mcpAttrs(info MCPInfo) []attribute.KeyValue {
	attrs := []attribute.KeyValue{keyMCPMethodName.String(mcpToolsCall), keyOperationName.String(opExecuteTool),
		keyToolName.String(info.Tool)}
	if info.Server != "" {
		attrs = append(attrs, keyMCPServer.String(info.Server))
	}
	if info.SessionID != "" {
		attrs = append(attrs, keyMCPSessionID.String(info.SessionID))
	}
	if info.ProtocolVersion != "" {
		attrs = append(attrs, keyMCPProtocolVersion.String(info.ProtocolVersion))
	}
	if info.Transport != "" {
		attrs = append(attrs, keyNetworkTransport.String(info.Transport))
	}
	if info.RequestID != "" {
		attrs = append(attrs, keyJSONRPCRequestID.String(info.RequestID))
	}
	return attrs
}

// End ends the call. failed says the tool reported an error (isError);
// err is a protocol or transport error.
func (c *MCPCall) End(ctx context.Context, failed bool, err error) {
	if c == nil {
		return
	}
	var et string
	switch {
	case err != nil:
		et = errorType(err)
	case failed:
		et = errToolFailed
	}
	if m := c.t.m.mcpClient; m != nil {
		if c.server {
			m = c.t.m.mcpServer
		}
		attrs := c.attrs[:2:2] // method and operation: low cardinality
		if et != "" {
			attrs = append(attrs, keyErrorType.String(et))
		}
		m.Record(ctx, time.Since(c.start).Seconds(), metric.WithAttributes(attrs...))
	}
	if c.span == nil {
		return
	}
	if et != "" {
		c.span.SetAttributes(keyErrorType.String(et))
		msg := "the tool reported an error"
		if err != nil {
			msg = err.Error()
		}
		c.span.SetStatus(codes.Error, c.t.status(msg))
	}
	c.span.End()
}
