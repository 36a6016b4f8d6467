package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
)

// recorded is a test's telemetry: spans kept in memory, metrics read on
// demand.
type recorded struct {
	tel     *otel.Telemetry
	spans   *tracetest.SpanRecorder
	metrics *sdkmetric.ManualReader
}

func newRecorded(t *testing.T, cfg otel.Config) *recorded {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	cfg.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := otel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &recorded{tel: tel, spans: rec, metrics: reader}
}

// tree renders the ended spans as an indented tree of names, children in
// start order.
func tree(spans []sdktrace.ReadOnlySpan) string {
	kids := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent().SpanID(); s.Parent().IsValid() && ids[p] {
			kids[p] = append(kids[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", depth), s.Name())
		k := kids[s.SpanContext().SpanID()]
		slices.SortStableFunc(k, func(x, y sdktrace.ReadOnlySpan) int { return x.StartTime().Compare(y.StartTime()) })
		for _, c := range k {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

func find(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no span %q in\n%s", name, tree(spans))
	return nil
}

type upperInput struct {
	Text string `json:"text"`
}

func upperTool() *tool.Tool {
	return tool.New(tool.Spec{Name: "upper", Description: "Upper-case a text."},
		func(ctx context.Context, _ *tool.Call, in upperInput) (tool.Result, error) {
			return tool.Result{Success: true, Output: strings.ToUpper(in.Text)}, nil
		})
}

func script(t *testing.T, lines string) *replay.Provider {
	t.Helper()
	entries, err := replay.Parse([]byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// askGate asks about every call; allowAll approves.
type askGate struct{}

func (askGate) Decide(context.Context, *tool.Call, *tool.Tool, json.RawMessage) tool.Decision {
	return tool.Decision{Verdict: tool.Ask, Reason: "test asks"}
}

type allowAll struct{}

func (allowAll) Approve(context.Context, *tool.Call, *tool.Tool, json.RawMessage, tool.Decision) tool.Decision {
	return tool.Decision{Verdict: tool.Allow}
}

func TestAgentRun_spans(t *testing.T) {
	r := newRecorded(t, otel.Config{ProviderName: "openai"})
	reg, _ := tool.NewRegistry(upperTool())
	model := script(t, `{"round": 1, "tool_calls": [{"id": "c1", "name": "upper", "arguments": {"text": "hi"}}], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 60, "cache_write_tokens": 5, "reasoning_tokens": 3}}
{"round": 2, "text": "HI", "usage": {"input_tokens": 120, "output_tokens": 2}}`)
	a, err := agent.New(agent.Config{Provider: model, Model: "gpt-test", Tools: reg, Name: "main", Telemetry: r.tel,
		RunnerOptions: tool.RunnerOptions{Gate: askGate{}, Approver: allowAll{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(t.Context(), agent.NewMemorySession("s1"), "shout hi"); err != nil {
		t.Fatal(err)
	}
	spans := r.spans.Ended()
	want := "invoke_agent main\n  chat gpt-test\n  execute_tool upper\n  chat gpt-test\n"
	if got := tree(spans); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	root := attrs(find(t, spans, "invoke_agent main"))
	for k, v := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "s1",
		"gen_ai.agent.name": "main", "gen_ai.provider.name": "openai", "wield.stop_reason": "answer"} {
		if got := root[k].AsString(); got != v {
			t.Errorf("invoke_agent %s = %q, want %q", k, got, v)
		}
	}
	chat := attrs(find(t, spans, "chat gpt-test"))
	for k, v := range map[string]int64{"gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10,
		"gen_ai.usage.cache_read.input_tokens": 60, "gen_ai.usage.cache_creation.input_tokens": 5,
		"gen_ai.usage.reasoning.output_tokens": 3} {
		if got := chat[k].AsInt64(); got != v {
			t.Errorf("chat %s = %d, want %d", k, got, v)
		}
	}
	if _, ok := chat["gen_ai.response.time_to_first_chunk"]; !ok {
		t.Errorf("chat span has no gen_ai.response.time_to_first_chunk: %v", chat)
	}
	if _, ok := chat["gen_ai.input.messages"]; ok {
		t.Errorf("chat span captured messages with content capture off")
	}
	ex := attrs(find(t, spans, "execute_tool upper"))
	if got := ex["gen_ai.tool.call.id"].AsString(); got != "c1" {
		t.Errorf("execute_tool gen_ai.tool.call.id = %q, want c1", got)
	}
	if got := ex["wield.policy.decision"].AsString(); got != "allow" {
		t.Errorf("execute_tool wield.policy.decision = %q, want allow (the approver's answer)", got)
	}
	for _, k := range []string{"wield.tool.queue_wait_ms", "wield.tool.run_ms", "wield.approval.wait_ms"} {
		if _, ok := ex[k]; !ok {
			t.Errorf("execute_tool has no %s", k)
		}
	}
	if _, ok := ex["gen_ai.tool.call.arguments"]; ok {
		t.Errorf("execute_tool captured arguments with content capture off")
	}

	var rm metricdata.ResourceMetrics
	if err := r.metrics.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	wantNames := []string{"gen_ai.client.operation.duration", "gen_ai.client.operation.time_to_first_chunk", "gen_ai.client.token.usage"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestAgentRun_subagentSpans(t *testing.T) {
	r := newRecorded(t, otel.Config{})
	model := script(t, `{"turn": 1, "round": 1, "tool_calls": [{"id": "call_1", "name": "agent", "arguments": {"type": "general", "prompt": "Count the Go files."}}]}
{"turn": 1, "round": 2, "text": "There are 3 Go files."}
{"when": "Count the Go files.", "round": 1, "tool_calls": [{"id": "k1", "name": "complete_task", "arguments": {"status": "done", "result": "3 Go files"}}]}`)
	tools, _ := tool.NewRegistry()
	set, _ := subagent.Load()
	sr, err := subagent.New(subagent.Config{Definitions: set, Provider: model, Tools: tools, Telemetry: r.tel})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Register(sr.Tool()); err != nil {
		t.Fatal(err)
	}
	a, _ := agent.New(agent.Config{Provider: model, Tools: tools, Telemetry: r.tel})
	if _, err := a.Run(t.Context(), agent.NewMemorySession("parent"), "How many Go files are there?"); err != nil {
		t.Fatal(err)
	}
	spans := r.spans.Ended()
	want := `invoke_agent
  chat
  execute_tool agent
    invoke_agent general
      chat
      execute_tool complete_task
  chat
`
	if got := tree(spans); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	child := attrs(find(t, spans, "invoke_agent general"))
	if got := child["gen_ai.conversation.id"].AsString(); got != "parent.1" {
		t.Errorf("child gen_ai.conversation.id = %q, want parent.1", got)
	}
	if got := child["wield.parent_call.id"].AsString(); got != "call_1" {
		t.Errorf("child wield.parent_call.id = %q, want call_1", got)
	}
}

func TestContentCapture(t *testing.T) {
	const secret = "sk-supersecretvalue"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	r := newRecorded(t, otel.Config{CaptureContent: true, MaxContentBytes: 64, Redact: redact})
	reg, _ := tool.NewRegistry(upperTool())
	model := script(t, `{"round": 1, "tool_calls": [{"id": "c1", "name": "upper", "arguments": {"text": "key sk-supersecretvalue"}}]}
{"round": 2, "text": "done"}`)
	a, _ := agent.New(agent.Config{Provider: model, Tools: reg, Telemetry: r.tel})
	if _, err := a.Run(t.Context(), agent.NewMemorySession("s"), "use "+secret+" and "+strings.Repeat("x", 200)); err != nil {
		t.Fatal(err)
	}
	spans := r.spans.Ended()
	ex := attrs(find(t, spans, "execute_tool upper"))
	if got, want := ex["gen_ai.tool.call.arguments"].AsString(), `{"text": "key [REDACTED]"}`; got != want {
		t.Errorf("arguments = %q, want %q", got, want)
	}
	if got := ex["gen_ai.tool.call.result"].AsString(); !strings.Contains(got, "SK-SUPERSECRETVALUE") {
		// The redaction is the caller's: this one knows the lower-case form only.
		t.Errorf("result = %q, want the tool's output", got)
	}
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if v := kv.Value.String(); strings.Contains(v, secret) {
				t.Errorf("span %s attribute %s holds the secret: %q", s.Name(), kv.Key, v)
			}
			if kv.Key == "gen_ai.input.messages" && len(kv.Value.AsString()) > 64+len("…[truncated]") {
				t.Errorf("gen_ai.input.messages is %d bytes, more than the bound", len(kv.Value.AsString()))
			}
		}
	}
}

func TestNew(t *testing.T) {
	tel, err := otel.New(otel.Config{})
	if tel != nil || err != nil {
		t.Errorf("New(zero) = %v, %v; want nil, nil (tracing off)", tel, err)
	}
	_, err = otel.New(otel.Config{TracerProvider: sdktrace.NewTracerProvider(), CaptureContent: true})
	if err == nil || !strings.Contains(err.Error(), "Redact") {
		t.Errorf("New(capture without Redact) error = %v, want one that asks for Redact", err)
	}
}

func TestMCP_serverContinuesClientTrace(t *testing.T) {
	r := newRecorded(t, otel.Config{})
	ctx, root := sdktrace.NewTracerProvider().Tracer("t").Start(t.Context(), "root")
	defer root.End()
	cctx, call, tc := r.tel.StartMCPClient(ctx, otel.MCPInfo{Tool: "echo", Server: "local", Transport: "pipe"})
	meta := map[string]any{"progressToken": 1}
	tc.SetMeta(meta)
	got := otel.FromMeta(meta)
	if got != tc || !strings.HasPrefix(tc.Traceparent, "00-") {
		t.Fatalf("FromMeta(SetMeta(%+v)) = %+v", tc, got)
	}
	_, srv := r.tel.StartMCPServer(t.Context(), got, otel.MCPInfo{Tool: "echo", Transport: "pipe"})
	srv.End(t.Context(), false, nil)
	call.End(cctx, false, nil)

	spans := r.spans.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	server, client := spans[0], spans[1]
	if server.SpanKind() != trace.SpanKindServer || client.SpanKind() != trace.SpanKindClient {
		t.Fatalf("kinds %v, %v; want server, client", server.SpanKind(), client.SpanKind())
	}
	if server.Parent().SpanID() != client.SpanContext().SpanID() || server.SpanContext().TraceID() != root.SpanContext().TraceID() {
		t.Errorf("server span's parent %v (trace %v), want the client span %v (trace %v)",
			server.Parent().SpanID(), server.SpanContext().TraceID(), client.SpanContext().SpanID(), root.SpanContext().TraceID())
	}
	if got := attrs(client)["mcp.method.name"].AsString(); got != "tools/call" || client.Name() != "tools/call echo" {
		t.Errorf("client span %q mcp.method.name = %q", client.Name(), got)
	}
}

func TestMCP_serverWithoutTraceContextStartsATrace(t *testing.T) {
	r := newRecorded(t, otel.Config{})
	for _, tc := range []otel.TraceContext{{}, {Traceparent: "garbage"}} {
		_, srv := r.tel.StartMCPServer(t.Context(), tc, otel.MCPInfo{Tool: "echo"})
		srv.End(t.Context(), true, nil)
	}
	for _, s := range r.spans.Ended() {
		if s.Parent().IsValid() {
			t.Errorf("span %s has parent %v, want a root", s.Name(), s.Parent())
		}
		if s.Status().Code.String() != "Error" {
			t.Errorf("span %s status %v, want Error for a failed call", s.Name(), s.Status())
		}
	}
}

// TestAgentRun_pausedCallIsNoError: a call left awaiting approval ends
// with the run, marked as such, and is not a failure.
func TestAgentRun_pausedCallIsNoError(t *testing.T) {
	r := newRecorded(t, otel.Config{})
	reg, _ := tool.NewRegistry(upperTool())
	model := script(t, `{"round": 1, "tool_calls": [{"id": "c1", "name": "upper", "arguments": {"text": "hi"}}]}`)
	a, _ := agent.New(agent.Config{Provider: model, Tools: reg, Telemetry: r.tel,
		RunnerOptions: tool.RunnerOptions{Gate: askGate{}, PauseForApproval: true}})
	out, err := a.Run(t.Context(), agent.NewMemorySession("s"), "shout hi")
	if err != nil || out.Reason != agent.StopApproval {
		t.Fatalf("Run = %v, %v; want a pause for approval", out.Reason, err)
	}
	ex := find(t, r.spans.Ended(), "execute_tool upper")
	if got := attrs(ex)["wield.tool.awaiting_approval"].AsBool(); !got {
		t.Errorf("wield.tool.awaiting_approval = %v, want true", got)
	}
	if ex.Status().Code.String() == "Error" {
		t.Errorf("the paused call's span has status %v, want no error", ex.Status())
	}
	if got := attrs(ex)["wield.policy.decision"].AsString(); got != "ask" {
		t.Errorf("wield.policy.decision = %q, want ask", got)
	}
}

// TestStatusIsRedacted checks that a failed call's error message, which
// is exported with content capture off too, goes through Redact.
func TestStatusIsRedacted(t *testing.T) {
	const secret = "ghp_notarealtokenatall"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	r := newRecorded(t, otel.Config{Redact: redact})
	leak := tool.New(tool.Spec{Name: "leak", Description: "Fail with a token in the error."},
		func(context.Context, *tool.Call, upperInput) (tool.Result, error) {
			return tool.Result{Error: "token " + secret + " was refused"}, nil
		})
	reg, _ := tool.NewRegistry(leak)
	model := script(t, `{"round": 1, "tool_calls": [{"id": "c1", "name": "leak", "arguments": {"text": "a"}}]}
{"round": 2, "text": "done"}`)
	a, _ := agent.New(agent.Config{Provider: model, Tools: reg, Telemetry: r.tel})
	if _, err := a.Run(t.Context(), agent.NewMemorySession("s"), "go"); err != nil {
		t.Fatal(err)
	}
	ex := find(t, r.spans.Ended(), "execute_tool leak")
	if got, want := ex.Status().Description, "token [REDACTED] was refused"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
}
