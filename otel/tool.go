package otel

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wieldhq/wield/tool"
)

// A callSpan is the state of one tool call's execute_tool span. Its fields
// after span are guarded by the run's mutex.
type callSpan struct {
	span  trace.Span
	start time.Time
	// approval is how long the approver took; ran is the handler's time
	// (all attempts), firstRun when the handler was first called.
	approval time.Duration
	ran      time.Duration
	firstRun time.Time
}

// Instrument makes the tool calls of the run ctx belongs to (see
// [Telemetry.StartAgent]) traced: it wraps opts's
// Recorder, Gate, Approver and OnEvent, and returns the registry the
// runner must use instead of reg, whose tools' handlers run under their
// call's execute_tool span (so that an MCP call or a subagent continues
// the trace). Each call's span starts when the runner records the call
// (so it includes the wait for earlier calls) and ends with its finished
// event. On a nil Telemetry, or a ctx of no run, it changes nothing and
// returns reg.
//
// The runner needs a Recorder for spans to start; the agent always sets
// one.
func (t *Telemetry) Instrument(ctx context.Context, opts *tool.RunnerOptions, reg *tool.Registry) *tool.Registry {
	if t == nil {
		return reg
	}
	r := runFrom(ctx)
	if r == nil {
		return reg
	}
	if opts.Recorder != nil {
		opts.Recorder = tracedRecorder{opts.Recorder, r}
	}
	if g := opts.Gate; g != nil {
		if rv, ok := g.(tool.Reviewer); ok {
			opts.Gate = tracedReviewer{tracedGate{g, r}, rv}
		} else {
			opts.Gate = tracedGate{g, r}
		}
	}
	if opts.Approver != nil {
		opts.Approver = tracedApprover{opts.Approver, r}
	}
	user := opts.OnEvent
	opts.OnEvent = func(e tool.Event) {
		if e.Kind == tool.EventFinished {
			r.finished(e)
		}
		if user != nil {
			user(e)
		}
	}
	tools := reg.Tools()
	for i, t := range tools {
		tools[i] = r.t.traced(t)
	}
	traced, err := tool.NewRegistry(tools...)
	if err != nil { // cannot happen: the names were unique in reg
		return reg
	}
	return traced
}

// traced returns the twin of t whose handler runs under its call's span.
func (t *Telemetry) traced(tl *tool.Tool) *tool.Tool {
	if w, ok := t.wrapped.Load(tl); ok {
		return w.(*tool.Tool)
	}
	w, err := tool.NewRaw(tl.Spec(), tracedHandler{tl.Handler()})
	if err != nil { // cannot happen: the spec is a registered tool's
		return tl
	}
	actual, _ := t.wrapped.LoadOrStore(tl, w)
	return actual.(*tool.Tool)
}

// begin starts the span of call c, a child of the span in ctx.
func (r *Run) begin(ctx context.Context, c *tool.Call, args json.RawMessage) {
	cs := &callSpan{start: time.Now()}
	if r.t.tracer != nil {
		_, cs.span = r.t.tracer.Start(ctx, opExecuteTool+" "+c.Tool, trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithTimestamp(cs.start),
			// Few attributes: each costs on every call (the conversation
			// id is the invoke_agent span's).
			trace.WithAttributes(keyOperationName.String(opExecuteTool), keyToolName.String(c.Tool), keyToolCallID.String(c.ID)))
		if r.t.capture {
			s, _ := r.t.content(string(args))
			cs.span.SetAttributes(keyToolCallArguments.String(s))
		}
	}
	r.mu.Lock()
	r.calls[c.ID] = cs
	r.mu.Unlock()
}

// call returns the state of call id, or nil.
func (r *Run) call(id string) *callSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[id]
}

// finished notes the timings of the call e reports the end of. The call's
// state stays until its result is recorded, so that the journal's record
// of it can name the span.
func (r *Run) finished(e tool.Event) {
	r.mu.Lock()
	cs := r.calls[e.CallID]
	var approval, ran, queued time.Duration
	if cs != nil {
		approval, ran = cs.approval, cs.ran
		if !cs.firstRun.IsZero() {
			queued = cs.firstRun.Sub(cs.start) - approval
		}
	}
	r.mu.Unlock()
	if cs == nil || cs.span == nil {
		return
	}
	// The approval wait is there only when someone was asked, and failure
	// only when the call failed: each attribute costs on every call.
	cs.span.SetAttributes(keyQueueWait.Float64(ms(queued)), keyRunTime.Float64(ms(ran)))
	if approval > 0 {
		cs.span.SetAttributes(keyApprovalWait.Float64(ms(approval)))
	}
	// The span ends when the result is recorded (see
	// tracedRecorder.RecordResult), or, for a call left awaiting approval,
	// which is not recorded, with the run.
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// tracedRecorder starts each call's span as the runner records it.
type tracedRecorder struct {
	tool.Recorder
	r *Run
}

// RecordCall starts the call's span. The call's record is made under the
// run's span: a journal ties only results to their spans.
func (t tracedRecorder) RecordCall(ctx context.Context, c *tool.Call, args json.RawMessage) error {
	t.r.begin(ctx, c, args)
	return t.Recorder.RecordCall(ctx, c, args)
}

// RecordResult records the call's result under its span, and its
// duration metric (a call awaiting approval is not recorded: it has not
// run).
func (t tracedRecorder) RecordResult(ctx context.Context, c *tool.Call, res tool.Result) error {
	t.r.mu.Lock()
	cs := t.r.calls[c.ID]
	delete(t.r.calls, c.ID)
	t.r.mu.Unlock()
	if cs != nil && cs.span != nil {
		ctx = trace.ContextWithSpan(ctx, cs.span)
		defer endCall(t.r.t, cs.span, res)
	}
	if m := t.r.t.m.duration; m != nil {
		m.Record(ctx, res.Duration.Seconds(), t.r.t.toolMetricAttrs(c.Tool, res.Success))
	}
	return t.Recorder.RecordResult(ctx, c, res)
}

// endCall ends a call's span with its result.
func endCall(t *Telemetry, span trace.Span, res tool.Result) {
	if !res.Success {
		span.SetAttributes(keyToolSuccess.Bool(false), keyErrorType.String(errToolFailed))
		span.SetStatus(codes.Error, t.status(res.Error))
	}
	if t.capture {
		s, _ := t.content(res.ForModel())
		span.SetAttributes(keyToolCallResult.String(s))
	}
	span.End()
}

// tracedGate notes the gate's decision on the call's span.
type tracedGate struct {
	tool.Gate
	r *Run
}

func (g tracedGate) Decide(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage) tool.Decision {
	d := g.Gate.Decide(ctx, c, t, args)
	if cs := g.r.call(c.ID); cs != nil && cs.span != nil {
		cs.span.SetAttributes(keyPolicyDecision.String(string(d.Verdict)))
		if d.Reason != "" {
			cs.span.SetAttributes(keyPolicyReason.String(d.Reason))
		}
	}
	return d
}

// tracedReviewer is a tracedGate whose gate also reviews results.
type tracedReviewer struct {
	tracedGate
	rv tool.Reviewer
}

func (g tracedReviewer) Review(ctx context.Context, c *tool.Call, args json.RawMessage, res tool.Result) tool.Result {
	return g.rv.Review(ctx, c, args, res)
}

// tracedApprover measures the wait for a person's answer.
type tracedApprover struct {
	tool.Approver
	r *Run
}

func (a tracedApprover) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	asked := time.Now()
	d := a.Approver.Approve(ctx, c, t, args, why)
	waited := time.Since(asked)
	a.r.mu.Lock()
	cs := a.r.calls[c.ID]
	if cs != nil {
		cs.approval += waited
	}
	a.r.mu.Unlock()
	if cs != nil && cs.span != nil {
		cs.span.AddEvent("approval", trace.WithAttributes(keyPolicyDecision.String(string(d.Verdict))))
		cs.span.SetAttributes(keyPolicyDecision.String(string(d.Verdict)))
	}
	return d
}

// tracedHandler runs a tool's handler under its call's span.
type tracedHandler struct{ h tool.Handler }

func (t tracedHandler) Handle(ctx context.Context, c *tool.Call, args json.RawMessage) (tool.Result, error) {
	r := runFrom(ctx)
	if r == nil {
		return t.h.Handle(ctx, c, args)
	}
	began := time.Now()
	r.mu.Lock()
	cs := r.calls[c.ID]
	if cs != nil && cs.firstRun.IsZero() {
		cs.firstRun = began
	}
	r.mu.Unlock()
	if cs != nil && cs.span != nil {
		ctx = trace.ContextWithSpan(ctx, cs.span)
	}
	res, err := t.h.Handle(ctx, c, args)
	if cs != nil {
		r.mu.Lock()
		cs.ran += time.Since(began)
		r.mu.Unlock()
	}
	return res, err
}

// toolAttrsKey keys the cached metric attributes of a tool's calls.
type toolAttrsKey struct {
	tool   string
	failed bool
}

// toolMetricAttrs returns the attributes of a call's duration metric,
// made once per tool and outcome: building an attribute set sorts and
// allocates, which every call would otherwise pay.
func (t *Telemetry) toolMetricAttrs(name string, success bool) metric.RecordOption {
	k := toolAttrsKey{name, !success}
	if o, ok := t.toolAttrs.Load(k); ok {
		return o.(metric.RecordOption)
	}
	attrs := []attribute.KeyValue{keyOperationName.String(opExecuteTool), keyToolName.String(name)}
	if !success {
		attrs = append(attrs, keyErrorType.String(errToolFailed))
	}
	o, _ := t.toolAttrs.LoadOrStore(k, metric.RecordOption(metric.WithAttributeSet(attribute.NewSet(attrs...))))
	return o.(metric.RecordOption)
}
