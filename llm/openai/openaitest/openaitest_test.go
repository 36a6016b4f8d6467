package openaitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

func TestServer(t *testing.T) {
	srv := openaitest.NewServer(t, []replay.Entry{{Round: 1, Text: "hi there", Reasoning: "r",
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "fs.read", Arguments: json.RawMessage(`{}`)}}}})
	tests := []struct {
		name, path, body string
		status           int
		want             []string
	}{
		{name: "unknown path", path: "/embeddings", body: `{}`, status: 404, want: []string{"Invalid URL"}},
		{name: "not JSON", path: "/responses", body: `{`, status: 400, want: []string{"not a Responses API request"}},
		{name: "unknown previous response", path: "/responses", body: `{"model":"m","previous_response_id":"resp_9","input":[]}`,
			status: 400, want: []string{"Previous response with id 'resp_9' not found."}},
		{name: "whole chat reply", path: "/chat/completions", status: 200,
			body: `{"model":"m","messages":[{"role":"user","content":"hello"}],"tools":[{"type":"function","function":{"name":"fs_read"}}]}`,
			want: []string{`"object":"chat.completion"`, `"content":"hi there"`, `"reasoning_content":"r"`, `"name":"fs_read"`, `"finish_reason":"tool_calls"`}},
		{name: "whole response with string input", path: "/responses", status: 200, body: `{"model":"m","input":"hello","stream":false}`,
			want: []string{`"id":"resp_5"`, `"type":"reasoning"`, `"encrypted_content":"enc_5_1"`, `"call_id":"c1"`, `"status":"completed"`}},
		{name: "streamed response", path: "/responses", status: 200, body: `{"model":"m","input":"hello","stream":true}`,
			want: []string{"event: response.created\n", `"type":"response.reasoning_summary_text.delta"`, `"delta":" there"`, "event: response.completed\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, srv.URL+tt.path, tt.body)
			if status != tt.status {
				t.Errorf("status %d, want %d: %s", status, tt.status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("body does not contain %q:\n%s", w, body)
				}
			}
		})
	}
	reqs := srv.Requests()
	if len(reqs) != len(tests) || reqs[3].API != openaitest.ChatCompletions || reqs[4].Messages[0].Content != "hello" || !reqs[4].Store {
		t.Errorf("requests %+v", reqs)
	}
}
