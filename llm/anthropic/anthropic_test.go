package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

func TestRequest(t *testing.T) {
	temp := 0.2
	req := &llm.Request{
		Model: "claude-test",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "Read go.mod."},
			{Role: llm.RoleAssistant, Content: "Reading.", Reasoning: "I should read it.", Thinking: []llm.Thinking{
				{Provider: "anthropic", Text: "I should read it.", Signature: "sig"},
				{Provider: "openai", ID: "rs_1", Redacted: "enc"},
			}, ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
				{ID: "c2", Name: "clock", Arguments: nil},
				{ID: "c3", Name: "fs.read", Arguments: json.RawMessage(`{"path": "go.`)},
			}},
			{Role: llm.RoleTool, ToolCallID: "c2", ToolName: "clock", Content: "noon"},
			{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: "module x"},
			{Role: llm.RoleTool, ToolCallID: "c3", ToolName: "fs.read", Content: ""},
			{Role: llm.RoleAssistant}, // nothing in it: left out
			{Role: llm.RoleUser, Content: "Thanks."},
			{Role: llm.RoleSystem, Content: "Answer in English."},
		},
		Tools: []llm.ToolDef{
			{Name: "fs.read", Description: "Read a file.", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
			{Name: "clock"},
		},
		Temperature: &temp,
	}
	const cc = `"cache_control": {"type": "ephemeral"}`
	want := `{
		"model": "claude-test",
		"max_tokens": 8192,
		"stream": true,
		"temperature": 0.2,
		"system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Answer in English.", CC}],
		"tools": [
			{"name": "fs_read", "description": "Read a file.",
				"input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}},
			{"name": "clock", "input_schema": {"type": "object", "properties": {}}, CC}
		],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "Read go.mod."}]},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "I should read it.", "signature": "sig"},
				{"type": "text", "text": "Reading."},
				{"type": "tool_use", "id": "c1", "name": "fs_read", "input": {"path": "go.mod"}},
				{"type": "tool_use", "id": "c2", "name": "clock", "input": {}},
				{"type": "tool_use", "id": "c3", "name": "fs_read", "input": {}, CC}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "c1", "content": [{"type": "text", "text": "module x"}]},
				{"type": "tool_result", "tool_use_id": "c2", "content": [{"type": "text", "text": "noon"}]},
				{"type": "tool_result", "tool_use_id": "c3"}
			]},
			{"role": "user", "content": [{"type": "text", "text": "Thanks."}]}
		]
	}`
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "cached", want: strings.ReplaceAll(want, "CC", cc)},
		{name: "no cache", cfg: Config{NoCache: true}, want: strings.ReplaceAll(want, ", CC", "")},
		{name: "thinking", cfg: Config{ThinkingBudget: 1024}, want: strings.NewReplacer(
			`"max_tokens": 8192`, `"max_tokens": 9216, "thinking": {"type": "enabled", "budget_tokens": 1024}`,
			`"temperature": 0.2,`, ``, "CC", cc).Replace(want)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.APIKey = testKey
			p, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, err := p.buildRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			var got, w any
			if err := json.Unmarshal(c.body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatalf("want: %v", err)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
			if n := c.names.Original("fs_read"); n != "fs.read" {
				t.Errorf("original(fs_read) = %q, want fs.read", n)
			}
			if n := c.names.Original("made_up"); n != "made_up" {
				t.Errorf("original(made_up) = %q, want it unchanged", n)
			}
		})
	}
}

func TestMaxTokens(t *testing.T) {
	tests := []struct {
		model     string
		req, cfg  int
		budget    int
		want      int
		wantError string
	}{
		{model: "claude-sonnet-4-5", want: DefaultMaxTokens},
		{model: "claude-3-haiku-20240307", want: Claude3MaxTokens},
		{model: "claude-3-5-haiku-latest", want: DefaultMaxTokens},
		{model: "claude-opus-4-1", budget: 4096, want: DefaultMaxTokens + 4096},
		{model: "claude-opus-4-1", cfg: 20000, budget: 4096, want: 20000},
		{model: "claude-opus-4-1", req: 500, cfg: 20000, want: 500},
		{model: "claude-opus-4-1", req: 4096, cfg: 20000, budget: 4096, wantError: "max tokens 4096 must be larger than the thinking budget 4096"},
	}
	for _, tt := range tests {
		p, err := New(Config{APIKey: testKey, MaxTokens: tt.cfg, ThinkingBudget: tt.budget})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.maxTokens(&llm.Request{MaxTokens: tt.req}, tt.model)
		if tt.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("maxTokens(%+v) = %d, %v; want an error saying %q", tt, got, err, tt.wantError)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("maxTokens(%+v) = %d, %v; want %d", tt, got, err, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	t.Run("no key", func(t *testing.T) {
		t.Setenv(KeyVar, "")
		_, err := New(Config{})
		if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
			t.Errorf("New without a key: %v, want ErrNoKey naming ANTHROPIC_API_KEY", err)
		}
		if _, err := New(Config{Header: http.Header{"Authorization": {"Bearer gateway"}}}); err != nil {
			t.Errorf("New with an Authorization header: %v", err)
		}
	})
	t.Run("key from the environment", func(t *testing.T) {
		t.Setenv(KeyVar, " "+testKey+"\n")
		p, err := New(Config{})
		if err != nil || p.cfg.APIKey != testKey {
			t.Errorf("New: %v, key %q; want the trimmed key from %s", err, p.cfg.APIKey, KeyVar)
		}
		if p.cfg.Model != DefaultModel || p.Endpoint() != DefaultBaseURL+"/v1/messages" {
			t.Errorf("model %q, endpoint %q", p.cfg.Model, p.Endpoint())
		}
	})
	for base, want := range map[string]string{
		"http://localhost:4000":           "http://localhost:4000/v1/messages",
		"http://localhost:4000/":          "http://localhost:4000/v1/messages",
		"https://gw.example/anthropic/v1": "https://gw.example/anthropic/v1/messages",
		"https://user:pw@gw.example/x":    "https://user:xxxxx@gw.example/x/v1/messages",
	} {
		p, err := New(Config{APIKey: testKey, BaseURL: base})
		if err != nil || p.Endpoint() != want {
			t.Errorf("New(BaseURL %q): endpoint %q, %v; want %q", base, p.Endpoint(), err, want)
		}
	}
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{BaseURL: "localhost:4000"}, "not an http or https URL"},
		{Config{BaseURL: "ftp://host"}, "not an http or https URL"},
		{Config{ThinkingBudget: 500}, "below the API's minimum of 1024"},
		{Config{ThinkingBudget: -1}, "negative"},
		{Config{MaxTokens: -1}, "negative"},
		{Config{ThinkingBudget: 2048, MaxTokens: 2048}, "must be larger than the thinking budget"},
	} {
		tt.cfg.APIKey = testKey
		if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error saying %q", tt.cfg, err, tt.want)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	p := newTestProvider(t, Config{})
	for _, tt := range []struct {
		name string
		req  *llm.Request
		want string
	}{
		{"unknown role", &llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "x"}}}, `message 1: unknown role "narrator"`},
		{"empty user message", &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser}}}, "message 1: a user message has no text"},
		{"no messages", &llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "x"}}}, "no user message"},
		{"result without id", &llm.Request{Messages: []llm.Message{helloRequest.Messages[0], {Role: llm.RoleTool, Content: "x"}}}, "message 2: a tool result has no tool call id"},
		{"clashing tool names", &llm.Request{Messages: helloRequest.Messages, Tools: []llm.ToolDef{{Name: "a.b"}, {Name: "a_b"}}}, "rename one"},
		{"schema not an object", &llm.Request{Messages: helloRequest.Messages, Tools: []llm.ToolDef{{Name: "a", InputSchema: json.RawMessage(`{"type":"string"}`)}}}, `tool 1 (a): input schema`},
	} {
		if _, err := p.Stream(t.Context(), tt.req, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Stream error %v, want one saying %q", tt.name, err, tt.want)
		}
	}
}
