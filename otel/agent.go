package otel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/wieldhq/wield/llm"
)

// AgentInfo describes a run for its invoke_agent span.
type AgentInfo struct {
	// Name is the agent's name (gen_ai.agent.name); the span is named
	// "invoke_agent {Name}", or "invoke_agent" when it is empty.
	Name string
	// ConversationID is the session's id (gen_ai.conversation.id).
	ConversationID string
	// Model is the model requested (gen_ai.request.model).
	Model string
	// ParentCall is, for a subagent, the id of the parent's tool call
	// that started it.
	ParentCall string
}

// A Run is the telemetry of one agent run: its invoke_agent span, and the
// chat and execute_tool spans under it. A nil *Run does nothing. It is
// safe for concurrent use.
type Run struct {
	t    *Telemetry
	span trace.Span
	// conv is the session id, put on the metrics' spans.
	conv string

	mu    sync.Mutex
	calls map[string]*callSpan
}

// runKey is the context key of the *Run of the run a context belongs to;
// tools' traced handlers find their call's span through it.
type runKey struct{}

// StartAgent starts the invoke_agent span of a run, as a child of the span
// in ctx if any (a subagent's run is a child of its parent's
// execute_tool span). It returns a context that carries the span and the
// run, to pass on to everything the run does, and the run. On a nil
// Telemetry it returns ctx and nil.
func (t *Telemetry) StartAgent(ctx context.Context, info AgentInfo) (context.Context, *Run) {
	if t == nil {
		return ctx, nil
	}
	name := opInvokeAgent
	if info.Name != "" {
		name += " " + info.Name
	}
	attrs := []attribute.KeyValue{keyOperationName.String(opInvokeAgent), t.provider,
		keyConversationID.String(info.ConversationID)}
	if info.Name != "" {
		attrs = append(attrs, keyAgentName.String(info.Name))
	}
	if info.Model != "" {
		attrs = append(attrs, keyRequestModel.String(info.Model))
	}
	if info.ParentCall != "" {
		attrs = append(attrs, keyParentCall.String(info.ParentCall))
	}
	r := &Run{t: t, conv: info.ConversationID, calls: map[string]*callSpan{}}
	ctx, r.span = t.start(ctx, name, trace.SpanKindInternal, attrs...)
	return context.WithValue(ctx, runKey{}, r), r
}

// runFrom returns the run ctx belongs to, or nil.
func runFrom(ctx context.Context) *Run {
	r, _ := ctx.Value(runKey{}).(*Run)
	return r
}

// RunOutcome is how a run ended, for its span.
type RunOutcome struct {
	// StopReason is the agent's reason ("answer", "max_rounds", …).
	StopReason string
	// Rounds and ToolCalls count the model and tool calls.
	Rounds, ToolCalls int
	// Usage is the run's token usage.
	Usage llm.Usage
}

// End ends the run's span with its outcome; a non-nil err marks it failed.
func (r *Run) End(o RunOutcome, err error) {
	if r == nil {
		return
	}
	// Calls still open await approval: their results are not recorded
	// in this run (a resumed run traces them again).
	r.mu.Lock()
	for id, cs := range r.calls {
		if cs.span != nil {
			cs.span.SetAttributes(keyAwaitingApproval.Bool(true))
			cs.span.End()
		}
		delete(r.calls, id)
	}
	r.mu.Unlock()
	if r.span == nil {
		return
	}
	r.span.SetAttributes(keyStopReason.String(o.StopReason), keyRounds.Int(o.Rounds), keyToolCalls.Int(o.ToolCalls))
	r.span.SetAttributes(usageAttrs(o.Usage)...)
	if err != nil {
		r.span.SetAttributes(keyErrorType.String(errorType(err)))
		r.span.SetStatus(codes.Error, r.t.status(err.Error()))
	}
	r.span.End()
}

// TraceIDs returns the hex trace and span ids of the span in ctx, or two
// empty strings when ctx carries no valid span; session journals store
// them beside their records.
func TraceIDs(ctx context.Context) (traceID, spanID string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	return sc.TraceID().String(), sc.SpanID().String()
}

// A Chat is the telemetry of one model call: its "chat {model}" span and
// metrics. A nil *Chat does nothing. Its methods must not be called
// concurrently, except Chunk, which the provider's callback may call from
// its own goroutine while Start's caller waits.
type Chat struct {
	t     *Telemetry
	span  trace.Span
	model string
	start time.Time
	first time.Duration
	once  sync.Once
}

// StartChat starts the span of a model call for req, a child of the span
// in ctx (the invoke_agent span of the run ctx belongs to), and returns the
// context to pass to the provider and the Chat. On a nil Telemetry it
// returns ctx and nil.
func (t *Telemetry) StartChat(ctx context.Context, req *llm.Request) (context.Context, *Chat) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{keyOperationName.String(opChat), t.provider, keyRequestModel.String(req.Model),
		keyRequestStream.Bool(true)}
	if r := runFrom(ctx); r != nil {
		attrs = append(attrs, keyConversationID.String(r.conv))
	}
	if req.MaxTokens > 0 {
		attrs = append(attrs, keyRequestMaxTokens.Int(req.MaxTokens))
	}
	if req.Temperature != nil {
		attrs = append(attrs, keyRequestTemp.Float64(*req.Temperature))
	}
	name := opChat
	if req.Model != "" {
		name += " " + req.Model
	}
	c := &Chat{t: t, model: req.Model, start: time.Now()}
	ctx, c.span = t.start(ctx, name, trace.SpanKindClient, attrs...)
	if c.span != nil {
		if s, ok := t.content(messagesJSON(req.Messages)); ok {
			c.span.SetAttributes(keyInputMessages.String(s))
		}
	}
	return ctx, c
}

// Chunk notes that a chunk of the response arrived; the first one sets
// the time to first chunk.
func (c *Chat) Chunk() {
	if c == nil {
		return
	}
	c.once.Do(func() { c.first = time.Since(c.start) })
}

// End ends the model call with its response, or its error, and records
// its metrics.
func (c *Chat) End(ctx context.Context, resp *llm.Response, err error) {
	if c == nil {
		return
	}
	d := time.Since(c.start)
	t := c.t
	model := c.model
	if resp != nil && resp.Model != "" {
		model = resp.Model
	}
	base := []attribute.KeyValue{keyOperationName.String(opChat), t.provider, keyRequestModel.String(c.model)}
	if resp != nil {
		base = append(base, keyResponseModel.String(model))
	}
	if err != nil {
		base = append(base, keyErrorType.String(errorType(err)))
	}
	if t.m.duration != nil {
		set := metric.WithAttributes(base...)
		t.m.duration.Record(ctx, d.Seconds(), set)
		if c.first > 0 {
			t.m.ttfc.Record(ctx, c.first.Seconds(), set)
		}
		if resp != nil {
			t.m.tokens.Record(ctx, int64(resp.Usage.InputTokens), metric.WithAttributes(append(base, keyTokenType.String(tokenInput))...))
			t.m.tokens.Record(ctx, int64(resp.Usage.OutputTokens), metric.WithAttributes(append(base, keyTokenType.String(tokenOutput))...))
		}
	}
	if c.span == nil {
		return
	}
	if c.first > 0 {
		c.span.SetAttributes(keyTimeToFirstChunk.Float64(c.first.Seconds()))
	}
	if resp != nil {
		c.span.SetAttributes(keyResponseModel.String(model), keyFinishReasons.StringSlice([]string{resp.FinishReason}))
		if resp.ID != "" {
			c.span.SetAttributes(keyResponseID.String(resp.ID))
		}
		c.span.SetAttributes(usageAttrs(resp.Usage)...)
		if s, ok := t.content(messagesJSON([]llm.Message{resp.Message})); ok {
			c.span.SetAttributes(keyOutputMessages.String(s))
		}
	}
	if err != nil {
		c.span.SetAttributes(keyErrorType.String(errorType(err)))
		c.span.SetStatus(codes.Error, t.status(err.Error()))
	}
	c.span.End()
}

// usageAttrs returns the gen_ai.usage attributes of u.
func usageAttrs(u llm.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{keyInputTokens.Int(u.InputTokens), keyOutputTokens.Int(u.OutputTokens),
		keyCacheReadTokens.Int(u.CachedTokens), keyCacheWriteTokens.Int(u.CacheWriteTokens),
		keyReasoningTokens.Int(u.ReasoningTokens)}
}
