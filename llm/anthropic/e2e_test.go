package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic/anthropictest"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

var readTool = llm.ToolDef{Name: "fs.read", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

// conversation is a small agent loop's state: it sends the messages,
// appends each reply, and answers tool calls with results made by answer.
type conversation struct {
	t    *testing.T
	p    *Provider
	req  llm.Request
	resp []llmtest.Result
}

func newConversation(t *testing.T, p *Provider, task string) *conversation {
	return &conversation{t: t, p: p, req: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: task}},
		Tools:    []llm.ToolDef{readTool, {Name: "clock", Description: "The time."}},
	}}
}

// round sends the conversation and appends the reply; results answers the
// reply's tool calls, in the order given.
func (c *conversation) round(results func([]llm.ToolCall) []llm.Message) llmtest.Result {
	c.t.Helper()
	r := llmtest.Stream(c.t, c.p, &c.req)
	if r.Err != nil {
		c.t.Fatalf("round %d: %v", len(c.resp)+1, r.Err)
	}
	c.resp = append(c.resp, r)
	c.req.Messages = append(c.req.Messages, r.Resp.Message)
	if results != nil {
		c.req.Messages = append(c.req.Messages, results(r.Resp.Message.ToolCalls)...)
	}
	return r
}

// answer returns a result for every call, saying which file was read.
func answer(calls []llm.ToolCall) []llm.Message {
	var out []llm.Message
	for _, call := range calls {
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name, Content: "contents of " + string(call.Arguments)})
	}
	return out
}

func TestTwoRoundToolCall(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{
		{Round: 1, Text: "Let me look.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Round: 2, Text: "It is module x."},
	}, &anthropictest.Options{Key: testKey})
	p := newTestProvider(t, Config{BaseURL: srv.URL, Model: "claude-test-1"})
	c := newConversation(t, p, "What module is this?")

	r1 := c.round(answer)
	m := r1.Resp.Message
	if r1.Resp.Stop != llm.StopToolUse || m.Content != "Let me look." || len(m.ToolCalls) != 1 {
		t.Fatalf("round 1: stop %q, text %q, calls %+v", r1.Resp.Stop, m.Content, m.ToolCalls)
	}
	call := m.ToolCalls[0]
	if call.Name != "fs.read" || string(call.Arguments) != `{"path":"go.mod"}` || !strings.HasPrefix(call.ID, "toolu_") {
		t.Errorf("call %+v, want fs.read {\"path\":\"go.mod\"} with an id", call)
	}
	r2 := c.round(nil)
	if r2.Resp.Stop != llm.StopEnd || r2.Resp.Message.Content != "It is module x." {
		t.Errorf("round 2: stop %q, text %q", r2.Resp.Stop, r2.Resp.Message.Content)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, second := reqs[0], reqs[1]
	if first.Header.Get("X-Api-Key") != testKey || first.Header.Get("Anthropic-Version") != APIVersion {
		t.Errorf("headers %v, want the key and anthropic-version %s", first.Header, APIVersion)
	}
	if first.Model != "claude-test-1" || first.MaxTokens != DefaultMaxTokens || !first.Stream {
		t.Errorf("model %q, max_tokens %d, stream %v", first.Model, first.MaxTokens, first.Stream)
	}
	if len(first.System) != 1 || first.System[0].Text != "You are terse." {
		t.Errorf("system %+v, want the system message", first.System)
	}
	if len(first.Tools) != 2 || first.Tools[0].Name != "fs_read" || first.Tools[1].Name != "clock" {
		t.Errorf("tools %+v, want fs_read and clock", first.Tools)
	}
	if string(first.Tools[0].InputSchema) != `{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}` {
		t.Errorf("input schema %s, want it without $schema", first.Tools[0].InputSchema)
	}
	// Round 1 marks the system prompt and the tools; round 2 also the
	// assistant turn before the tool results.
	if first.Breakpoints != 2 || second.Breakpoints != 3 {
		t.Errorf("breakpoints %d and %d, want 2 and 3", first.Breakpoints, second.Breakpoints)
	}
	want := []anthropictest.Message{
		{Role: "user", Content: []anthropictest.Block{{Type: "text", Text: "What module is this?"}}},
		{Role: "assistant", Content: []anthropictest.Block{{Type: "text", Text: "Let me look."},
			{Type: "tool_use", ID: call.ID, Name: "fs_read", Input: json.RawMessage(`{"path":"go.mod"}`), CacheControl: &anthropictest.CacheControl{Type: "ephemeral"}}}},
		{Role: "user", Content: []anthropictest.Block{{Type: "tool_result", ToolUseID: call.ID, Content: json.RawMessage(`[{"text":"contents of {\"path\":\"go.mod\"}","type":"text"}]`)}}},
	}
	if diff := cmp.Diff(want, second.Messages); diff != "" {
		t.Errorf("round 2 messages (-want +got):\n%s", diff)
	}
	if second.Turn != 1 || second.Round != 2 {
		t.Errorf("round 2 matched turn %d round %d", second.Turn, second.Round)
	}
}

func TestParallelToolCalls(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "toolu_a", Name: "fs.read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "toolu_b", Name: "fs.read", Arguments: json.RawMessage(`{"path":"b.go"}`)},
			{ID: "toolu_c", Name: "clock"},
		}},
		{Round: 2, Text: "Done."},
	}, nil)
	p := newTestProvider(t, Config{BaseURL: srv.URL})
	c := newConversation(t, p, "Read both.")
	r := c.round(func(calls []llm.ToolCall) []llm.Message {
		out := answer(calls)
		out[0], out[2] = out[2], out[0] // results come back in another order
		return out
	})
	var ids []string
	for _, call := range r.Resp.Message.ToolCalls {
		ids = append(ids, call.ID+" "+call.Name+" "+string(call.Arguments))
	}
	want := []string{`toolu_a fs.read {"path":"a.go"}`, `toolu_b fs.read {"path":"b.go"}`, `toolu_c clock {}`}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(r.Calls) != 3 {
		t.Errorf("%d tool call events, want 3", len(r.Calls))
	}
	c.round(nil)
	msgs := srv.Requests()[1].Messages
	results := msgs[len(msgs)-1]
	var got []string
	for _, b := range results.Content {
		got = append(got, b.ToolUseID)
	}
	if results.Role != "user" || !cmp.Equal(got, []string{"toolu_a", "toolu_b", "toolu_c"}) {
		t.Errorf("last message %s with results for %v, want one user message with the results in call order", results.Role, got)
	}
}

func TestThinkingCarriedToTheNextRound(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{
		{Round: 1, Thinking: []llm.Thinking{
			{Provider: "anthropic", Text: "The user wants the module. I should read go.mod.", Signature: "EqQBCkYIAxgCIkD"},
			{Provider: "anthropic", Redacted: "EmwKAhgBEgy3va3pzix"},
		}, ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Round: 2, Text: "It is module x."},
	}, nil)
	temp := 0.5
	p := newTestProvider(t, Config{BaseURL: srv.URL, ThinkingBudget: 2048})
	c := newConversation(t, p, "What module is this?")
	c.req.Temperature = &temp
	r := c.round(answer)
	m := r.Resp.Message
	wantThinking := []llm.Thinking{
		{Provider: "anthropic", Text: "The user wants the module. I should read go.mod.", Signature: "EqQBCkYIAxgCIkD"},
		{Provider: "anthropic", Redacted: "EmwKAhgBEgy3va3pzix"},
	}
	if diff := cmp.Diff(wantThinking, m.Thinking); diff != "" {
		t.Errorf("thinking blocks (-want +got):\n%s", diff)
	}
	if m.Reasoning != wantThinking[0].Text || r.Reasoning != m.Reasoning {
		t.Errorf("reasoning %q, events %q; want the thinking text", m.Reasoning, r.Reasoning)
	}
	// Blocks of another provider, and one without a signature, are not sent.
	last := &c.req.Messages[2]
	last.Thinking = append([]llm.Thinking{{Provider: "gemini", Signature: "x"}}, last.Thinking...)
	last.Thinking = append(last.Thinking, llm.Thinking{Provider: "anthropic", Text: "unsigned"})
	c.round(nil)

	reqs := srv.Requests()
	if reqs[0].ThinkingBudget != 2048 || reqs[0].MaxTokens != DefaultMaxTokens+2048 || reqs[0].Temperature != nil {
		t.Errorf("thinking budget %d, max_tokens %d, temperature %v; want 2048, %d, none",
			reqs[0].ThinkingBudget, reqs[0].MaxTokens, reqs[0].Temperature, DefaultMaxTokens+2048)
	}
	want := []anthropictest.Block{
		{Type: "thinking", Thinking: wantThinking[0].Text, Signature: wantThinking[0].Signature},
		{Type: "redacted_thinking", Data: wantThinking[1].Redacted},
		{Type: "tool_use", ID: "toolu_1", Name: "fs_read", Input: json.RawMessage(`{"path":"go.mod"}`), CacheControl: &anthropictest.CacheControl{Type: "ephemeral"}},
	}
	if diff := cmp.Diff(want, reqs[1].Messages[1].Content); diff != "" {
		t.Errorf("the assistant message sent back (-want +got):\n%s", diff)
	}
}

// logRecords collects the records of a logger.
type logRecords struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }

// waits returns the waits of the retries logged.
func (l *logRecords) waits() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Duration
	for _, r := range l.records {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "wait" {
				out = append(out, a.Value.Duration())
			}
			return true
		})
	}
	return out
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name  string
		fault anthropictest.Fault
		wait  time.Duration // the wait logged, when the fault asks for one
	}{
		{name: "429 with retry-after", fault: anthropictest.Fault{Status: 429, Message: "Number of request tokens has exceeded your per-minute rate limit", RetryAfter: 20 * time.Millisecond}, wait: 20 * time.Millisecond},
		{name: "529 overloaded", fault: anthropictest.Fault{Status: 529, Message: "Overloaded", RetryAfter: 5 * time.Millisecond}, wait: 5 * time.Millisecond},
		{name: "overloaded_error event", fault: anthropictest.Fault{ErrorEvent: true, Message: "Overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fault.Request = 1
			srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, Text: "Hello."}}, &anthropictest.Options{Faults: []anthropictest.Fault{tt.fault}})
			var log logRecords
			p := newTestProvider(t, Config{BaseURL: srv.URL, Logger: slog.New(&log)})
			r := llmtest.Stream(t, p, helloRequest)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Resp.Message.Content != "Hello." || r.Text != "Hello." {
				t.Errorf("text %q, events %q; want Hello. once", r.Resp.Message.Content, r.Text)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			waits := log.waits()
			if len(waits) != 1 || tt.wait != 0 && waits[0] != tt.wait {
				t.Errorf("retry waits %v, want one of %v", waits, tt.wait)
			}
		})
	}
}

var helloRequest = &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}

func TestMaxTokensStop(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, Stop: llm.StopMaxTokens, Text: "I will read both files",
		ToolCalls: []llm.ToolCall{
			{ID: "toolu_1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "toolu_2", Name: "fs.read", Arguments: json.RawMessage(`"{\"path\": \"b.`)}, // cut off
		}}}, nil)
	p := newTestProvider(t, Config{BaseURL: srv.URL})
	r := llmtest.Stream(t, p, &llm.Request{Messages: helloRequest.Messages, Tools: []llm.ToolDef{readTool}, MaxTokens: 300})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Resp.Stop != llm.StopMaxTokens || r.Resp.FinishReason != "max_tokens" {
		t.Errorf("stop %q (%q), want max_tokens", r.Resp.Stop, r.Resp.FinishReason)
	}
	if r.Resp.Message.Content != "I will read both files" {
		t.Errorf("text %q, want it kept", r.Resp.Message.Content)
	}
	calls := r.Resp.Message.ToolCalls
	if len(calls) != 1 || calls[0].ID != "toolu_1" || len(r.Calls) != 1 {
		t.Errorf("calls %+v (events %+v), want only the complete one", calls, r.Calls)
	}
	if got := srv.Requests()[0].MaxTokens; got != 300 {
		t.Errorf("max_tokens %d, want the request's 300", got)
	}
}

func TestMalformedEvent(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, Text: "Hello."}},
		&anthropictest.Options{Faults: []anthropictest.Fault{{Request: 1, Malformed: true}}})
	p := newTestProvider(t, Config{BaseURL: srv.URL})
	r := llmtest.Stream(t, p, helloRequest)
	if !errors.Is(r.Err, llm.ErrProtocol) || r.Resp != nil {
		t.Fatalf("Stream = %v, %v; want no response and an error wrapping ErrProtocol", r.Resp, r.Err)
	}
	if !strings.Contains(r.Err.Error(), "stream event 4") {
		t.Errorf("error %q does not name the event", r.Err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: a broken reply is not retried", n)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		entry   replay.Entry
		fault   anthropictest.Fault
		key     string // the server's key; the provider sends testKey
		status  int
		want    []string
		retries int
	}{
		{name: "invalid request", entry: replay.Entry{Round: 1, Error: &replay.Error{Status: 400, Message: "messages.0.content: Input should be a valid list"}},
			status: 400, want: []string{"messages.0.content: Input should be a valid list"}},
		{name: "error event", fault: anthropictest.Fault{Request: 1, ErrorEvent: true, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"},
			status: 400, want: []string{"prompt is too long", "invalid_request_error"}},
		{name: "the key in a message", entry: replay.Entry{Round: 1, Error: &replay.Error{Status: 400, Message: "x-api-key " + testKey + " is not allowed here"}},
			status: 400, want: []string{"x-api-key [redacted] is not allowed here"}},
		{name: "wrong key", key: "sk-ant-the-right-one", status: 401, want: []string{"invalid x-api-key", "ANTHROPIC_API_KEY"}},
		{name: "overloaded for good", entry: replay.Entry{Round: 1, Error: &replay.Error{Status: 529, Message: "Overloaded"}},
			status: 529, want: []string{"Overloaded", "gave up after 3 attempts"}, retries: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.entry.Round == 0 {
				tt.entry = replay.Entry{Round: 1, Text: "Hello."}
			}
			var faults []anthropictest.Fault
			if tt.fault.Request != 0 {
				faults = append(faults, tt.fault)
			}
			srv := anthropictest.NewServer(t, []replay.Entry{tt.entry}, &anthropictest.Options{Key: tt.key, Faults: faults})
			p := newTestProvider(t, Config{BaseURL: srv.URL})
			r := llmtest.Stream(t, p, helloRequest)
			apiErr, ok := errors.AsType[*llm.APIError](r.Err)
			if !ok || apiErr.Status != tt.status || r.Resp != nil {
				t.Fatalf("Stream = %v, %v; want an APIError with status %d", r.Resp, r.Err, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Err.Error(), w) {
					t.Errorf("error %q does not say %q", r.Err, w)
				}
			}
			if strings.Contains(r.Err.Error(), testKey) {
				t.Errorf("error %q shows the key", r.Err)
			}
			if n := len(srv.Requests()); n != 1+tt.retries {
				t.Errorf("%d requests, want %d", n, 1+tt.retries)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, Text: "Hello."}},
		&anthropictest.Options{Faults: []anthropictest.Fault{{Request: 1, Stall: true}}})
	p := newTestProvider(t, Config{BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got string
	_, err := p.Stream(ctx, helloRequest, func(e llm.Event) {
		got += e.Text
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Stream error = %v, want context.Canceled", err)
	}
	if got != "Hel" {
		t.Errorf("events %q before the cancellation, want %q", got, "Hel")
	}
}

func TestRefusal(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, FinishReason: "refusal"}}, nil)
	p := newTestProvider(t, Config{BaseURL: srv.URL})
	r := llmtest.Stream(t, p, helloRequest)
	if r.Err != nil || r.Resp.Stop != llm.StopRefusal {
		t.Fatalf("Stream = %+v, %v; want a refusal", r.Resp, r.Err)
	}
}
