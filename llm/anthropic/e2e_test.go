package anthropic

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
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

// TestConformance runs llmtest's end-to-end scenarios against
// anthropictest.
func TestConformance(t *testing.T) {
	llmtest.Conformance(t, llmtest.Target{
		Serve: func(t *testing.T, entries []replay.Entry, faults []llmtest.Fault) llmtest.Scripted {
			var fs []anthropictest.Fault
			for _, f := range faults {
				fs = append(fs, anthropictest.Fault{Request: f.Request, Status: f.Status, Type: f.Type, Message: f.Message,
					RetryAfter: f.RetryAfter, ErrorEvent: f.ErrorEvent, Malformed: f.Malformed, Stall: f.Stall})
			}
			srv := anthropictest.NewServer(t, entries, &anthropictest.Options{Key: testKey, Faults: fs})
			return llmtest.Scripted{URL: srv.URL, Answered: srv.Answered, Requests: func() []llmtest.Received {
				var out []llmtest.Received
				for _, r := range srv.Requests() {
					var tools []string
					for _, tool := range r.Tools {
						tools = append(tools, tool.Name)
					}
					out = append(out, llmtest.Received{Messages: r.Conversation, Tools: tools, MaxTokens: r.MaxTokens, Turn: r.Turn, Round: r.Round})
				}
				return out
			}}
		},
		New: func(t *testing.T, url string, log *slog.Logger) llm.Provider {
			return newTestProvider(t, Config{BaseURL: url, Logger: log})
		},
		Key: testKey, KeyVar: "ANTHROPIC_API_KEY", MaxTokensFinish: "max_tokens", Malformed: "stream event 4",
	})
}

// newConversation starts a conversation of a task, with a system prompt
// and two tools.
func newConversation(p *Provider, task string) *llmtest.Conversation {
	return &llmtest.Conversation{Provider: p, Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: task}},
		Tools:    []llm.ToolDef{readTool, {Name: "clock", Description: "The time."}},
	}}
}

// answer returns a result for every call, saying which file was read.
func answer(calls []llm.ToolCall) []llm.Message {
	var out []llm.Message
	for _, call := range calls {
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name, Content: "contents of " + string(call.Arguments)})
	}
	return out
}

// TestTwoRoundToolCall checks the Messages API requests of a tool call
// and its result: headers, system blocks, tool definitions, cache
// breakpoints and the blocks of the second round.
func TestTwoRoundToolCall(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{
		{Round: 1, Text: "Let me look.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Round: 2, Text: "It is module x."},
	}, &anthropictest.Options{Key: testKey})
	p := newTestProvider(t, Config{BaseURL: srv.URL, Model: "claude-test-1"})
	c := newConversation(p, "What module is this?")
	calls := c.Round(t, answer).Resp.Message.ToolCalls
	if len(calls) != 1 {
		t.Fatalf("round 1 calls %+v, want one", calls)
	}
	call := calls[0]
	if !strings.HasPrefix(call.ID, "toolu_") {
		t.Errorf("call id %q, want the API's toolu_ id", call.ID)
	}
	c.Round(t, nil)

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
}

// TestParallelToolCalls checks that the results of parallel calls,
// answered out of order, go back in one user message in call order.
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
	c := newConversation(p, "Read both.")
	c.Round(t, func(calls []llm.ToolCall) []llm.Message {
		out := answer(calls)
		out[0], out[2] = out[2], out[0] // results come back in another order
		return out
	})
	c.Round(t, nil)
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
	c := newConversation(p, "What module is this?")
	c.Request.Temperature = &temp
	r := c.Round(t, answer)
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
	last := &c.Request.Messages[2]
	last.Thinking = append([]llm.Thinking{{Provider: "gemini", Signature: "x"}}, last.Thinking...)
	last.Thinking = append(last.Thinking, llm.Thinking{Provider: "anthropic", Text: "unsigned"})
	c.Round(t, nil)

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

// TestRetries covers what the conformance suite's retries do not: the
// API's own 529, and an overloaded_error event before any content.
func TestRetries(t *testing.T) {
	tests := []struct {
		name  string
		fault anthropictest.Fault
		wait  time.Duration // the wait logged, when the fault asks for one
	}{
		{name: "529 overloaded", fault: anthropictest.Fault{Status: 529, Message: "Overloaded", RetryAfter: 5 * time.Millisecond}, wait: 5 * time.Millisecond},
		{name: "overloaded_error event", fault: anthropictest.Fault{ErrorEvent: true, Message: "Overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fault.Request = 1
			srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, Text: "Hello."}}, &anthropictest.Options{Faults: []anthropictest.Fault{tt.fault}})
			var log llmtest.RetryLog
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
			waits := log.Waits()
			if len(waits) != 1 || tt.wait != 0 && waits[0] != tt.wait {
				t.Errorf("retry waits %v, want one of %v", waits, tt.wait)
			}
		})
	}
}

var helloRequest = &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}

// TestErrors covers the Messages API's own errors: an error event, the
// server's check of the key, and its 529 until the retries are spent.
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
		{name: "error event", fault: anthropictest.Fault{Request: 1, ErrorEvent: true, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"},
			status: 400, want: []string{"prompt is too long", "invalid_request_error"}},
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

func TestRefusal(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{{Round: 1, FinishReason: "refusal"}}, nil)
	p := newTestProvider(t, Config{BaseURL: srv.URL})
	r := llmtest.Stream(t, p, helloRequest)
	if r.Err != nil || r.Resp.Stop != llm.StopRefusal {
		t.Fatalf("Stream = %+v, %v; want a refusal", r.Resp, r.Err)
	}
}
