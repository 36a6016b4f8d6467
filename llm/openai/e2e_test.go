package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/openai"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

const e2eKey = "sk-e2e-0123456789abcdef"

var readTool = llm.ToolDef{Name: "fs.read", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

func newProvider(t *testing.T, srv *openaitest.Server, cfg openai.Config) *openai.Provider {
	t.Helper()
	cfg.BaseURL, cfg.Model, cfg.RetryBase = srv.URL, "gpt-test", time.Millisecond
	if cfg.APIKey == "" {
		cfg.APIKey = e2eKey
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run plays the agent's part: it asks the model, runs every tool call by
// answering "result of <id>", and asks again until the model stops
// calling tools. It returns the conversation and the last response.
func run(t *testing.T, p *openai.Provider, tools []llm.ToolDef) ([]llm.Message, *llm.Response) {
	t.Helper()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: "What module is this?"}}
	for range 5 {
		resp, err := p.Stream(t.Context(), &llm.Request{Messages: msgs, Tools: tools}, nil)
		if err != nil {
			t.Fatalf("round %d: %v", len(msgs)/2, err)
		}
		msgs = append(msgs, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			return msgs, resp
		}
		for _, c := range resp.Message.ToolCalls {
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "result of " + c.ID})
		}
	}
	t.Fatal("the model never stopped calling tools")
	return nil, nil
}

// TestResponsesToolRounds runs a two-round tool call through the
// Responses API: the reasoning item of round 1 (id, summary, encrypted
// content) goes back unchanged before the call, and the call id links
// the call and its output.
func TestResponsesToolRounds(t *testing.T) {
	thinking := llm.Thinking{Provider: "openai", ID: "rs_abc", Text: "I should read go.mod.", Redacted: "gAAAAAB-opaque=="}
	srv := openaitest.NewServer(t, []replay.Entry{
		{Round: 1, Thinking: []llm.Thinking{thinking},
			ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}},
			Usage:     llm.Usage{InputTokens: 100, CachedTokens: 60, OutputTokens: 30, ReasoningTokens: 20}},
		{Round: 2, Text: "It is github.com/wieldhq/wield.", Usage: llm.Usage{InputTokens: 150, CachedTokens: 100, OutputTokens: 9}},
	})
	p := newProvider(t, srv, openai.Config{API: openai.Responses, ReasoningEffort: "low", ReasoningSummary: "auto"})
	msgs, last := run(t, p, []llm.ToolDef{readTool})
	if last.Message.Content != "It is github.com/wieldhq/wield." || last.Stop != llm.StopEnd {
		t.Errorf("last reply %q (stop %q)", last.Message.Content, last.Stop)
	}
	first := msgs[2]
	if diff := cmp.Diff([]llm.Thinking{thinking}, first.Thinking); diff != "" {
		t.Errorf("round 1 thinking (-want +got):\n%s", diff)
	}
	if first.Reasoning != thinking.Text {
		t.Errorf("round 1 reasoning %q, want the summary", first.Reasoning)
	}
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "fs.read" || first.ToolCalls[0].ID != "call_1" {
		t.Errorf("round 1 calls %+v", first.ToolCalls)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.API != openaitest.Responses || r.Path != "/v1/responses" || !r.Stream || r.Store || r.Header.Get("Authorization") != "Bearer "+e2eKey {
			t.Errorf("request %s %s stream %v store %v auth %q", r.API, r.Path, r.Stream, r.Store, r.Header.Get("Authorization"))
		}
		if !cmp.Equal(r.Tools, []string{"fs_read"}) {
			t.Errorf("tools %v, want [fs_read]", r.Tools)
		}
	}
	second := reqs[1]
	if second.Turn != 1 || second.Round != 2 {
		t.Errorf("second request at turn %d round %d", second.Turn, second.Round)
	}
	// The server decodes the reasoning input item back into a thinking block.
	if diff := cmp.Diff(thinking, second.Messages[2].Thinking[0]); diff != "" {
		t.Errorf("reasoning sent back (-want +got):\n%s", diff)
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(second.Body, &body); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, it := range body.Input {
		typ := str(it["type"])
		if typ == "" {
			typ = "message" // an easy input message: a role and content
		}
		order = append(order, typ+":"+str(it["id"])+str(it["call_id"]))
	}
	want := []string{"message:", "reasoning:rs_abc", "function_call:call_1", "function_call_output:call_1"}
	if !cmp.Equal(order, want) {
		t.Errorf("input items %v, want %v", order, want)
	}
	if got := body.Input[1]["encrypted_content"]; got != thinking.Redacted {
		t.Errorf("encrypted_content %v, want it unchanged", got)
	}
	if u := msgs[2]; u.Role != llm.RoleAssistant {
		t.Errorf("message 3 is %s", u.Role)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func TestResponsesUsageThroughServer(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Text: "hi", Usage: llm.Usage{InputTokens: 100, CachedTokens: 60, OutputTokens: 30, ReasoningTokens: 20}}})
	p := newProvider(t, srv, openai.Config{API: openai.Responses})
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Usage{InputTokens: 100, CachedTokens: 60, OutputTokens: 30, ReasoningTokens: 20}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	if resp.ID != "resp_1" || resp.FinishReason != "completed" {
		t.Errorf("id %q finish %q", resp.ID, resp.FinishReason)
	}
}

func TestResponsesParallelCalls(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{
			{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
			{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.sum"}`)},
			{Name: "clock"},
		}},
		{Round: 2, Text: "Done."},
	})
	p := newProvider(t, srv, openai.Config{API: openai.Responses})
	msgs, _ := run(t, p, []llm.ToolDef{readTool, {Name: "clock"}})
	calls := msgs[2].ToolCalls
	if len(calls) != 3 || calls[0].Name != "fs.read" || calls[2].Name != "clock" || string(calls[2].Arguments) != "{}" ||
		string(calls[1].Arguments) != `{"path":"go.sum"}` || calls[0].ID == calls[1].ID {
		t.Fatalf("calls %+v", calls)
	}
	second := srv.Requests()[1]
	var outputs []string
	for _, m := range second.Messages {
		if m.Role == llm.RoleTool {
			outputs = append(outputs, m.ToolCallID)
		}
	}
	if !cmp.Equal(outputs, []string{calls[0].ID, calls[1].ID, calls[2].ID}) {
		t.Errorf("outputs for %v, want one per call in order", outputs)
	}
}

// TestResponsesPreviousResponseIDChain checks that with
// PreviousResponseID the second round sends only the tool output and the
// id of the stored first response, and that the server finds the round.
func TestResponsesPreviousResponseIDChain(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{
		{Round: 1, Reasoning: "Read it.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Round: 2, Text: "Done."},
	})
	p := newProvider(t, srv, openai.Config{API: openai.Responses, PreviousResponseID: true})
	msgs, last := run(t, p, []llm.ToolDef{readTool})
	if last.Message.Content != "Done." {
		t.Fatalf("last reply %q", last.Message.Content)
	}
	th := msgs[2].Thinking
	if len(th) != 2 || th[0].ID != "rs_1_1" || th[1].ID != "resp_1" || th[1].Signature != openai.ResponseMarker {
		t.Errorf("round 1 thinking %+v, want the reasoning item and the response marker", th)
	}
	reqs := srv.Requests()
	if !reqs[0].Store || reqs[0].PreviousResponseID != "" {
		t.Errorf("first request: store %v previous %q", reqs[0].Store, reqs[0].PreviousResponseID)
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	json.Unmarshal(reqs[1].Body, &body)
	if reqs[1].PreviousResponseID != "resp_1" || len(body.Input) != 1 || body.Input[0]["type"] != "function_call_output" || reqs[1].Round != 2 {
		t.Errorf("second request: previous %q, round %d, input %v", reqs[1].PreviousResponseID, reqs[1].Round, body.Input)
	}
}

func TestResponsesRetry429(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Text: "hi"}},
		openaitest.Fault{Request: 1, Status: 429, RetryAfter: 20 * time.Millisecond, Message: "Rate limit reached for gpt-test."})
	p := newProvider(t, srv, openai.Config{API: openai.Responses})
	start := time.Now()
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "hi" || len(srv.Requests()) != 2 {
		t.Errorf("reply %q after %d requests, want hi after 2", resp.Message.Content, len(srv.Requests()))
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Errorf("retried after %v, before the 20ms the server asked for", waited)
	}
}

func TestResponsesMaxTokens(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Text: "I'll read both.", FinishReason: "max_output_tokens",
		ToolCalls: []llm.ToolCall{
			{Name: "fs.read", Arguments: json.RawMessage(`{"path":"a"}`)},
			{Name: "fs.read", Arguments: json.RawMessage(`"{\"pa"`)},
		}}})
	p := newProvider(t, srv, openai.Config{API: openai.Responses})
	var events []llm.ToolCall
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "read"}}, Tools: []llm.ToolDef{readTool}, MaxTokens: 50},
		func(e llm.Event) {
			if e.ToolCall != nil {
				events = append(events, *e.ToolCall)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Stop != llm.StopMaxTokens || resp.FinishReason != "max_output_tokens" || resp.Message.Content != "I'll read both." {
		t.Errorf("stop %q finish %q text %q", resp.Stop, resp.FinishReason, resp.Message.Content)
	}
	if len(resp.Message.ToolCalls) != 1 || string(resp.Message.ToolCalls[0].Arguments) != `{"path":"a"}` || len(events) != 1 {
		t.Errorf("calls %+v (events %+v), want the complete one only", resp.Message.ToolCalls, events)
	}
	if got := srv.Requests()[0].MaxTokens; got != 50 {
		t.Errorf("max_output_tokens %d, want 50", got)
	}
}

func TestResponsesFailures(t *testing.T) {
	hello := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}
	tests := []struct {
		name     string
		entries  []replay.Entry
		fault    openaitest.Fault
		protocol bool
		status   int
		want     string
	}{
		{name: "malformed event", entries: []replay.Entry{{Round: 1, Text: "hi"}}, fault: openaitest.Fault{Request: 1, Malformed: true},
			protocol: true, want: "not a Responses API event"},
		{name: "provider message", entries: []replay.Entry{{Round: 1, Error: &replay.Error{Status: 400, Message: "Invalid 'input[2].call_id': empty string."}}},
			status: 400, want: "Invalid 'input[2].call_id': empty string"},
		{name: "key not in errors", fault: openaitest.Fault{Request: 1, Status: 401, Message: "Incorrect API key provided: " + e2eKey + "."},
			status: 401, want: "check OPENAI_API_KEY"},
		{name: "unmatched round", entries: []replay.Entry{{Round: 2, Text: "late"}}, status: 400, want: "no scripted response for turn 1, round 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, tt.entries, tt.fault)
			p := newProvider(t, srv, openai.Config{API: openai.Responses, MaxRetries: -1})
			resp, err := p.Stream(t.Context(), hello, nil)
			if resp != nil || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Stream = %v, %v; want no response and an error saying %q", resp, err, tt.want)
			}
			if tt.protocol != errors.Is(err, llm.ErrProtocol) {
				t.Errorf("error %v: wraps llm.ErrProtocol %v, want %v", err, errors.Is(err, llm.ErrProtocol), tt.protocol)
			}
			if e, ok := errors.AsType[*llm.APIError](err); tt.status != 0 && (!ok || e.Status != tt.status) {
				t.Errorf("error %#v, want an *llm.APIError with status %d", err, tt.status)
			}
			if strings.Contains(err.Error(), e2eKey) {
				t.Errorf("the key is in the error: %v", err)
			}
		})
	}
}

func TestResponsesCancel(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Text: "never"}}, openaitest.Fault{Request: 1, Stall: true})
	p := newProvider(t, srv, openai.Config{API: openai.Responses})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		// The stream stalls after its first text: cancel there.
		_, err := p.Stream(ctx, &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}, func(e llm.Event) { cancel() })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Stream error = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stream did not return within 5s of the cancellation")
	}
}

func TestResponsesWholeReply(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Reasoning: "short", Text: "whole", ToolCalls: []llm.ToolCall{{Name: "clock"}}}})
	p := newProvider(t, srv, openai.Config{API: openai.Responses, NoStream: true})
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}, Tools: []llm.ToolDef{{Name: "clock"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "whole" || len(resp.Message.ToolCalls) != 1 || len(resp.Message.Thinking) != 1 || resp.Message.Thinking[0].Text != "short" {
		t.Errorf("message %+v", resp.Message)
	}
	if srv.Requests()[0].Stream {
		t.Error("the request asked for a stream")
	}
}

// TestChatToolRoundsThroughServer runs a two-round tool call in chat
// completions mode through the same scripted server.
func TestChatToolRoundsThroughServer(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{
		{Round: 1, Reasoning: "Need the file.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}},
			Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 4}},
		{Round: 2, Text: "It is module x."},
	})
	p := newProvider(t, srv, openai.Config{})
	msgs, last := run(t, p, []llm.ToolDef{readTool})
	if last.Message.Content != "It is module x." || last.Stop != llm.StopEnd {
		t.Errorf("last reply %q stop %q", last.Message.Content, last.Stop)
	}
	first := msgs[2]
	if first.Reasoning != "Need the file." || len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "fs.read" || len(first.Thinking) != 0 {
		t.Errorf("round 1 message %+v", first)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].API != openaitest.ChatCompletions || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests %+v", reqs)
	}
	second := reqs[1]
	if second.Round != 2 || second.Messages[2].ToolCalls[0].ID != first.ToolCalls[0].ID || second.Messages[3].ToolCallID != first.ToolCalls[0].ID {
		t.Errorf("second request messages %+v", second.Messages)
	}
	if !cmp.Equal(second.Tools, []string{"fs_read"}) || !second.Stream {
		t.Errorf("tools %v stream %v", second.Tools, second.Stream)
	}
}
