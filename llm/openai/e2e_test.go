package openai_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/openai"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

const e2eKey = "sk-e2e-0123456789abcdef"

var readTool = llm.ToolDef{Name: "fs.read", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

func newProvider(t *testing.T, baseURL string, cfg openai.Config) *openai.Provider {
	t.Helper()
	cfg.BaseURL, cfg.Model, cfg.RetryBase = baseURL, "gpt-test", time.Millisecond
	if cfg.APIKey == "" {
		cfg.APIKey = e2eKey
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConformance runs llmtest's end-to-end scenarios against
// openaitest, in both APIs.
func TestConformance(t *testing.T) {
	for _, tt := range []struct {
		api                  openai.API
		maxTokens, malformed string
	}{
		{openai.ChatCompletions, "length", "stream event 2"},
		{openai.Responses, "max_output_tokens", "not a Responses API event"},
	} {
		t.Run(fmt.Sprint("API=", tt.api), func(t *testing.T) {
			llmtest.Conformance(t, llmtest.Target{
				Serve: func(t *testing.T, entries []replay.Entry, faults []llmtest.Fault) llmtest.Scripted {
					var fs []openaitest.Fault
					for _, f := range faults {
						fs = append(fs, openaitest.Fault{Request: f.Request, Status: f.Status, Message: f.Message, RetryAfter: f.RetryAfter, Malformed: f.Malformed, Stall: f.Stall})
					}
					srv := openaitest.NewServer(t, entries, fs...)
					return llmtest.Scripted{URL: srv.URL, Answered: srv.Answered, Requests: func() []llmtest.Received {
						var out []llmtest.Received
						for _, r := range srv.Requests() {
							out = append(out, llmtest.Received{Messages: r.Messages, Tools: r.Tools, MaxTokens: r.MaxTokens, Turn: r.Turn, Round: r.Round})
						}
						return out
					}}
				},
				New: func(t *testing.T, url string, log *slog.Logger) llm.Provider {
					return newProvider(t, url, openai.Config{API: tt.api, Logger: log})
				},
				Key: e2eKey, KeyVar: "OPENAI_API_KEY", MaxTokensFinish: tt.maxTokens, Malformed: tt.malformed,
			})
		})
	}
}

// run plays the agent's part: it asks the model, runs every tool call by
// answering "result of <id>", and asks again until the model stops
// calling tools. It returns the conversation and the last response.
func run(t *testing.T, p *openai.Provider, tools []llm.ToolDef) ([]llm.Message, *llm.Response) {
	t.Helper()
	c := &llmtest.Conversation{Provider: p, Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: "What module is this?"}},
		Tools:    tools,
	}}
	last := c.Run(t, func(calls []llm.ToolCall) []llm.Message {
		var out []llm.Message
		for _, c := range calls {
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "result of " + c.ID})
		}
		return out
	})
	return c.Request.Messages, last.Resp
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
	p := newProvider(t, srv.URL, openai.Config{API: openai.Responses, ReasoningEffort: "low", ReasoningSummary: "auto"})
	msgs, _ := run(t, p, []llm.ToolDef{readTool})
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
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func TestResponsesUsageThroughServer(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Text: "hi", Usage: llm.Usage{InputTokens: 100, CachedTokens: 60, OutputTokens: 30, ReasoningTokens: 20}}})
	p := newProvider(t, srv.URL, openai.Config{API: openai.Responses})
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

// TestResponsesPreviousResponseIDChain checks that with
// PreviousResponseID the second round sends only the tool output and the
// id of the stored first response, and that the server finds the round.
func TestResponsesPreviousResponseIDChain(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{
		{Round: 1, Reasoning: "Read it.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Round: 2, Text: "Done."},
	})
	p := newProvider(t, srv.URL, openai.Config{API: openai.Responses, PreviousResponseID: true})
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

func TestResponsesWholeReply(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Reasoning: "short", Text: "whole", ToolCalls: []llm.ToolCall{{Name: "clock"}}}})
	p := newProvider(t, srv.URL, openai.Config{API: openai.Responses, NoStream: true})
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
// completions mode through the same scripted server: the reasoning comes
// as reasoning_content, with no thinking block to send back.
func TestChatToolRoundsThroughServer(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{
		{Round: 1, Reasoning: "Need the file.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}},
			Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 4}},
		{Round: 2, Text: "It is module x."},
	})
	p := newProvider(t, srv.URL, openai.Config{})
	msgs, _ := run(t, p, []llm.ToolDef{readTool})
	first := msgs[2]
	if first.Reasoning != "Need the file." || len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "fs.read" || len(first.Thinking) != 0 {
		t.Errorf("round 1 message %+v", first)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].API != openaitest.ChatCompletions || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests %+v", reqs)
	}
	second := reqs[1]
	if !cmp.Equal(second.Tools, []string{"fs_read"}) || !second.Stream {
		t.Errorf("tools %v stream %v", second.Tools, second.Stream)
	}
}
