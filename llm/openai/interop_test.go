package openai

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
)

// mockLLM returns the base URL of a running @dwmkerr/mock-llm server with
// the rules in testdata/mock-llm.yaml, or skips the test.
func mockLLM(t *testing.T) string {
	t.Helper()
	url := os.Getenv("WIELD_MOCK_LLM_URL")
	if url == "" {
		t.Skip("skipping: WIELD_MOCK_LLM_URL is not set; run " +
			"scripts/mock-llm.sh go test -run TestInterop ./llm/openai " +
			"to start @dwmkerr/mock-llm and run this test against it")
	}
	return url
}

// TestInteropToolExchange runs a two-step tool exchange against
// @dwmkerr/mock-llm through the real HTTP client: the model calls a tool,
// the result goes back linked by the call id, and the model answers with
// it. mock-llm streams only text, so this exchange asks for whole replies.
func TestInteropToolExchange(t *testing.T) {
	p := newTestProvider(t, Config{BaseURL: mockLLM(t), Model: "mock-model", APIKey: "mock-key", NoStream: true})
	req := &llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You read files."},
			{Role: llm.RoleUser, Content: "What is in notes.txt?"},
		},
		Tools: []llm.ToolDef{{Name: "fs.read", Description: "Read a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}

	r := llmtest.Stream(t, p, req)
	if r.Err != nil {
		t.Fatalf("step 1: %v", r.Err)
	}
	calls := r.Resp.Message.ToolCalls
	if len(calls) != 1 || calls[0].ID != "call_mock_1" || calls[0].Name != "fs.read" {
		t.Fatalf("step 1: tool calls %+v, want one call_mock_1 to fs.read", calls)
	}
	var args struct{ Path string }
	if err := json.Unmarshal(calls[0].Arguments, &args); err != nil || args.Path != "notes.txt" {
		t.Fatalf("step 1: arguments %s, want path notes.txt (%v)", calls[0].Arguments, err)
	}
	if r.Resp.FinishReason != "tool_calls" || r.Resp.Model != "mock-model" || r.Resp.Usage.InputTokens != 40 {
		t.Errorf("step 1: finish %q, model %q, usage %+v", r.Resp.FinishReason, r.Resp.Model, r.Resp.Usage)
	}
	if len(r.Calls) != 1 {
		t.Errorf("step 1: %d tool call events, want 1", len(r.Calls))
	}

	req.Messages = append(req.Messages, r.Resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: calls[0].ID, ToolName: calls[0].Name, Content: "hello from notes"})
	r = llmtest.Stream(t, p, req)
	if r.Err != nil {
		t.Fatalf("step 2: %v (mock-llm answers 404 when the call and its result are not linked)", r.Err)
	}
	if want := "The file says: hello from notes"; r.Resp.Message.Content != want || r.Text != want {
		t.Errorf("step 2: text %q (events %q), want %q", r.Resp.Message.Content, r.Text, want)
	}
	if len(r.Resp.Message.ToolCalls) != 0 || r.Resp.FinishReason != "stop" {
		t.Errorf("step 2: tool calls %+v, finish %q; want none and stop", r.Resp.Message.ToolCalls, r.Resp.FinishReason)
	}
}

// TestInteropStream reads a text reply that mock-llm streams in small
// pieces.
func TestInteropStream(t *testing.T) {
	p := newTestProvider(t, Config{BaseURL: mockLLM(t), Model: "mock-model"})
	const say = "streamed in many small pieces"
	var pieces int
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: say}}}, func(e llm.Event) {
		if e.Kind == llm.EventText {
			pieces++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != say || resp.FinishReason != "stop" {
		t.Errorf("text %q, finish %q; want %q and stop", resp.Message.Content, resp.FinishReason, say)
	}
	if pieces < 2 {
		t.Errorf("%d text events, want the reply in several pieces", pieces)
	}
}

// TestInteropErrors checks the messages for a rejected key and a wrong
// base URL against a real server.
func TestInteropErrors(t *testing.T) {
	base := mockLLM(t)
	tests := []struct {
		name    string
		base    string
		status  int
		wantMsg []string
	}{
		{name: "401", base: base, status: 401, wantMsg: []string{"Incorrect API key provided", "check OPENAI_API_KEY"}},
		{name: "404 base URL without /v1", base: strings.TrimSuffix(base, "/v1"), status: 404,
			wantMsg: []string{"Cannot POST /chat/completions", strings.TrimSuffix(base, "/v1") + "/chat/completions", "base URL usually ends in /v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestProvider(t, Config{BaseURL: tt.base, Model: "mock-model", APIKey: "mock-key", NoStream: true})
			_, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "error-401"}}}, nil)
			apiErr, ok := errors.AsType[*llm.APIError](err)
			if !ok || apiErr.Status != tt.status {
				t.Fatalf("Stream error = %v, want an *llm.APIError with status %d", err, tt.status)
			}
			for _, w := range tt.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
