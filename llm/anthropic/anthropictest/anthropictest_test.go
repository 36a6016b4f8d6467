package anthropictest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
)

// post sends body to the server with the usual headers, minus those named
// in drop, and returns the status and the response body.
func post(t *testing.T, s *Server, body string, drop ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", "k")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	for _, h := range drop {
		req.Header.Del(h)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

func TestServerChecks(t *testing.T) {
	s := NewServer(t, []replay.Entry{{Turn: 1, Round: 1, Text: "hi"}}, nil)
	const cc = `,"cache_control":{"type":"ephemeral"}`
	tests := []struct {
		name, body string
		drop       string
		status     int
		want       string
	}{
		{"no key", `{}`, "X-Api-Key", 401, "invalid x-api-key"},
		{"no version", `{}`, "Anthropic-Version", 400, "anthropic-version"},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, "", 400, "max_tokens: Field required"},
		{"five breakpoints", `{"model":"m","max_tokens":5,"system":[{"type":"text","text":"a"` + cc + `},{"type":"text","text":"b"` + cc + `}],
			"messages":[{"role":"user","content":[{"type":"text","text":"a"` + cc + `},{"type":"text","text":"b"` + cc + `},{"type":"text","text":"c"` + cc + `}]}]}`,
			"", 400, "Found 5"},
		{"unanswered call", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}}]},{"role":"user","content":"y"}]}`,
			"", 400, "t1"},
		{"unsigned thinking", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]},{"role":"user","content":"y"}]}`,
			"", 400, "signature: Field required"},
		{"budget not below max_tokens", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":"x"}]}`,
			"", 400, "must be greater than `thinking.budget_tokens`"},
		{"not streamed", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`, "", 400, "only streamed requests"},
		{"no scripted reply", `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"a"},{"role":"user","content":"y"}]}`,
			"", 400, "no scripted response for turn 2, round 1"},
	}
	for _, tt := range tests {
		status, body := post(t, s, tt.body, tt.drop)
		if status != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s, want %d saying %q", tt.name, status, body, tt.status, tt.want)
		}
	}
}

func TestServerStream(t *testing.T) {
	s := NewServer(t, []replay.Entry{{Turn: 1, Round: 2, Reasoning: "Think.", Text: "It is x.",
		ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"é.go"}`)}}}}, nil)
	status, body := post(t, s, `{"model":"m","max_tokens":5,"stream":true,"system":"sys","tools":[{"name":"fs_read","input_schema":{"type":"object"}}],"messages":[
		{"role":"user","content":"q"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"fs_read","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var types []string
	var args, reasoning string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
				Thinking    string `json:"thinking"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		types = append(types, ev.Type)
		args += ev.Delta.PartialJSON
		reasoning += ev.Delta.Thinking
	}
	if types[0] != "message_start" || types[len(types)-1] != "message_stop" || args != `{"path":"é.go"}` || reasoning != "Think." {
		t.Errorf("events %v, arguments %q, reasoning %q", types, args, reasoning)
	}
	got := s.Requests()[0]
	want := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "q"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "fs_read", Arguments: json.RawMessage(`{}`)}}},
		{Role: llm.RoleTool, ToolCallID: "t1", Content: "r"},
	}
	if diff := cmp.Diff(want, got.Conversation); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if got.Turn != 1 || got.Round != 2 {
		t.Errorf("turn %d round %d, want 1 and 2", got.Turn, got.Round)
	}
}
