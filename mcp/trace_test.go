package mcp

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/echo"
)

// TestTracing_serverContinuesClientTrace calls wield's own server through
// the manager, both tracing into one recorder: the client's tools/call
// span is a child of the caller's span, and the server's continues the
// client's trace from the traceparent in _meta (JSON responses take the
// fast path, streamed ones the SDK).
func TestTracing_serverContinuesClientTrace(t *testing.T) {
	for _, o := range []HTTPOptions{{JSONResponse: true, Stateless: true}, {}} {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		tel, err := otel.New(otel.Config{TracerProvider: tp})
		if err != nil {
			t.Fatal(err)
		}
		reg, _ := tool.NewRegistry(echo.New())
		srv, err := NewServer(reg, &ServerOptions{Logger: quiet(), Telemetry: tel})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv.HTTPHandler(&o))
		m := newTestManager(t, map[string]ServerConfig{"http": {URL: hs.URL, Trust: true}}, &ManagerOptions{Telemetry: tel})
		r := runner(mountAll(t, m), nil)
		ctx, root := tp.Tracer("test").Start(t.Context(), "caller")
		res, err := r.Call(ctx, tool.Call{}, tool.Request{Name: "mcp__http__echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
		root.End()
		m.Close()
		hs.Close()
		if err != nil || !res.Success {
			t.Fatalf("%+v: call: %v %s", o, err, res.ForModel())
		}
		var client, server sdktrace.ReadOnlySpan
		for _, s := range rec.Ended() {
			switch {
			case s.Name() == "tools/call echo" && s.SpanKind() == trace.SpanKindClient:
				client = s
			case s.Name() == "tools/call echo" && s.SpanKind() == trace.SpanKindServer:
				server = s
			}
		}
		if client == nil || server == nil {
			t.Fatalf("%+v: client span %v, server span %v; want both", o, client != nil, server != nil)
		}
		if client.Parent().SpanID() != root.SpanContext().SpanID() {
			t.Errorf("%+v: client span's parent = %v, want the caller's span %v", o, client.Parent().SpanID(), root.SpanContext().SpanID())
		}
		if server.Parent().SpanID() != client.SpanContext().SpanID() || server.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%+v: server span's parent = %v in trace %v, want the client span %v in trace %v", o,
				server.Parent().SpanID(), server.SpanContext().TraceID(), client.SpanContext().SpanID(), root.SpanContext().TraceID())
		}
	}
}
