package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// responsesExpectation is one entry of testdata/responses/expected.json.
type responsesExpectation struct {
	ID        string         `json:"id"`
	Model     string         `json:"model"`
	Text      string         `json:"text"`
	Reasoning string         `json:"reasoning"`
	Thinking  []llm.Thinking `json:"thinking"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	FinishReason string         `json:"finishReason"`
	Stop         llm.StopReason `json:"stop"`
	Usage        llm.Usage      `json:"usage"`
	Error        *struct {
		Status   int    `json:"status"`
		Contains string `json:"contains"`
	} `json:"error"`
	Notes string `json:"notes"`
}

// responsesRequest offers the tools the recorded replies call.
var responsesRequest = &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "What module is this, and what time is it?"}},
	Tools: []llm.ToolDef{{Name: "fs.read", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "clock"}}}

// serveResponses starts a server that answers POST /v1/responses with
// body, cut at random places when rng is not nil.
func serveResponses(t *testing.T, contentType string, body []byte, rng *rand.Rand) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		if rng == nil {
			w.Write(body)
			return
		}
		for rest := body; len(rest) > 0; {
			n := min(1+rng.IntN(64), len(rest))
			w.Write(rest[:n])
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestResponsesGolden replays the Responses API streams of
// testdata/responses whole, at random cuts and with CRLF line endings,
// and compares what is assembled with expected.json.
func TestResponsesGolden(t *testing.T) {
	dir := filepath.Join("testdata", "responses")
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]responsesExpectation
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("expected.json: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range append(files, jsons...) {
		if name := filepath.Base(f); name != "expected.json" {
			if _, ok := want[name]; !ok {
				t.Errorf("%s has no entry in expected.json", name)
			}
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	seed := testSeed(t)
	for _, name := range names {
		exp := want[name]
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.HasSuffix(name, ".json") {
			t.Run(name, func(t *testing.T) {
				srv := serveResponses(t, "application/json", raw, nil)
				p := newTestProvider(t, Config{API: Responses, BaseURL: srv.URL + "/v1", NoStream: true, MaxRetries: -1})
				checkResponses(t, llmtest.Stream(t, p, responsesRequest), exp)
			})
			continue
		}
		forms := []struct {
			name  string
			body  []byte
			split bool
		}{
			{"whole", raw, false},
			{"split", raw, true},
			{"crlf-split", bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")), true},
			{"data-only", dataOnly(raw), true},
		}
		for i, form := range forms {
			t.Run(name+"/"+form.name, func(t *testing.T) {
				var rng *rand.Rand
				if form.split {
					rng = rand.New(rand.NewPCG(seed, uint64(i)))
				}
				srv := serveResponses(t, "text/event-stream", form.body, rng)
				p := newTestProvider(t, Config{API: Responses, BaseURL: srv.URL + "/v1", MaxRetries: -1})
				checkResponses(t, llmtest.Stream(t, p, responsesRequest), exp)
			})
		}
	}
}

// dataOnly drops the "event:" lines of a stream: the type inside each
// event's data is enough.
func dataOnly(body []byte) []byte {
	var b bytes.Buffer
	for line := range strings.Lines(string(body)) {
		if !strings.HasPrefix(line, "event:") {
			b.WriteString(line)
		}
	}
	return b.Bytes()
}

func checkResponses(t *testing.T, r llmtest.Result, exp responsesExpectation) {
	t.Helper()
	if exp.Error != nil {
		e, ok := errors.AsType[*llm.APIError](r.Err)
		if !ok || e.Status != exp.Error.Status || !strings.Contains(r.Err.Error(), exp.Error.Contains) {
			t.Fatalf("Stream error = %v, want an *llm.APIError with status %d saying %q", r.Err, exp.Error.Status, exp.Error.Contains)
		}
		if r.Resp != nil || len(r.Calls) > 0 {
			t.Errorf("a failed reply gave a response %v or tool call events %v", r.Resp, r.Calls)
		}
		return
	}
	if r.Err != nil {
		t.Fatalf("Stream: %v\nnotes: %s", r.Err, exp.Notes)
	}
	m := r.Resp.Message
	if m.Content != exp.Text || r.Text != exp.Text {
		t.Errorf("text %q (events %q), want %q", m.Content, r.Text, exp.Text)
	}
	if m.Reasoning != exp.Reasoning || r.Reasoning != exp.Reasoning {
		t.Errorf("reasoning %q (events %q), want %q", m.Reasoning, r.Reasoning, exp.Reasoning)
	}
	if diff := cmp.Diff(exp.Thinking, m.Thinking); diff != "" {
		t.Errorf("thinking (-want +got):\n%s", diff)
	}
	if len(m.ToolCalls) != len(exp.ToolCalls) || len(r.Calls) != len(exp.ToolCalls) {
		t.Fatalf("tool calls %+v (events %+v), want %d", m.ToolCalls, r.Calls, len(exp.ToolCalls))
	}
	for i, w := range exp.ToolCalls {
		got := m.ToolCalls[i]
		if got.ID != w.ID || got.Name != w.Name {
			t.Errorf("call %d: %s %s, want %s %s", i, got.ID, got.Name, w.ID, w.Name)
		}
		var g, wa any
		if err := json.Unmarshal(got.Arguments, &g); err != nil {
			t.Errorf("call %d: arguments %s: %v", i, got.Arguments, err)
		}
		json.Unmarshal(w.Arguments, &wa)
		if diff := cmp.Diff(wa, g); diff != "" {
			t.Errorf("call %d: arguments (-want +got):\n%s", i, diff)
		}
	}
	if r.Resp.FinishReason != exp.FinishReason || r.Resp.Stop != exp.Stop {
		t.Errorf("finish %q, stop %q; want %q, %q", r.Resp.FinishReason, r.Resp.Stop, exp.FinishReason, exp.Stop)
	}
	if r.Resp.ID != exp.ID || r.Resp.Model != exp.Model {
		t.Errorf("id, model = %q, %q; want %q, %q", r.Resp.ID, r.Resp.Model, exp.ID, exp.Model)
	}
	if r.Resp.Usage != exp.Usage {
		t.Errorf("usage %+v, want %+v", r.Resp.Usage, exp.Usage)
	}
}

func TestResponsesRequest(t *testing.T) {
	temp := 0.5
	req := &llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleSystem, Content: "Use tools."},
			{Role: llm.RoleUser, Content: "Read go.mod."},
			{Role: llm.RoleAssistant, Content: "Reading it.", Reasoning: "summary",
				Thinking: []llm.Thinking{
					{Provider: "anthropic", Text: "not ours", Signature: "sig"},
					{Provider: "openai", ID: "rs_1", Text: "I should read it.", Redacted: "enc1"},
					{Provider: "openai", ID: "rs_2", Redacted: "enc2"},
				},
				ToolCalls: []llm.ToolCall{
					{ID: "c1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
					{ID: "c2", Name: "clock"},
				}},
			{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: "module x"},
			{Role: llm.RoleTool, ToolCallID: "c2", ToolName: "clock", Content: "noon"},
			{Role: llm.RoleSystem, Content: "Late note."},
		},
		Tools: []llm.ToolDef{
			{Name: "fs.read", Description: "Read a file.", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "clock"},
		},
		MaxTokens:   300,
		Temperature: &temp,
	}
	want := `{
		"model": "gpt-test",
		"instructions": "Be brief.\n\nUse tools.",
		"input": [
			{"role": "user", "content": "Read go.mod."},
			{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I should read it."}], "encrypted_content": "enc1"},
			{"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "enc2"},
			{"role": "assistant", "content": "Reading it."},
			{"type": "function_call", "call_id": "c1", "name": "fs_read", "arguments": "{\"path\":\"go.mod\"}"},
			{"type": "function_call", "call_id": "c2", "name": "clock", "arguments": "{}"},
			{"type": "function_call_output", "call_id": "c1", "output": "module x"},
			{"type": "function_call_output", "call_id": "c2", "output": "noon"},
			{"role": "system", "content": "Late note."}
		],
		"tools": [
			{"type": "function", "name": "fs_read", "description": "Read a file.", "strict": false,
				"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
			{"type": "function", "name": "clock", "strict": false, "parameters": {"type": "object", "properties": {}}}
		],
		"max_output_tokens": 300,
		"temperature": 0.5,
		"include": ["reasoning.encrypted_content"],
		%s
	}`
	tests := []struct {
		name   string
		cfg    Config
		fields string
	}{
		{name: "defaults", fields: `"store": false, "stream": true`},
		{name: "reasoning", cfg: Config{ReasoningEffort: "high", ReasoningSummary: "auto"},
			fields: `"store": false, "stream": true, "reasoning": {"effort": "high", "summary": "auto"}`},
		{name: "no stream", cfg: Config{NoStream: true}, fields: `"store": false, "stream": false`},
		{name: "previous response id without one to name", cfg: Config{PreviousResponseID: true}, fields: `"store": true, "stream": true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.API, tt.cfg.Model = Responses, "gpt-test"
			p, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, err := p.buildResponsesRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			var got, w any
			if err := json.Unmarshal(c.body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(strings.Replace(want, "%s", tt.fields, 1)), &w); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResponsesPreviousResponseID(t *testing.T) {
	marker := llm.Thinking{Provider: "openai", ID: "resp_1", Signature: ResponseMarker}
	reasoning := llm.Thinking{Provider: "openai", ID: "rs_1", Redacted: "enc"}
	conv := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "Read go.mod."},
		{Role: llm.RoleAssistant, Thinking: []llm.Thinking{reasoning, marker},
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: json.RawMessage(`{}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: "module x"},
	}
	older := append([]llm.Message{}, conv...)
	older = append(older, llm.Message{Role: llm.RoleAssistant, Content: "done"}, llm.Message{Role: llm.RoleUser, Content: "again"})
	tests := []struct {
		name     string
		on       bool
		msgs     []llm.Message
		previous string
		items    int
	}{
		{name: "chained", on: true, msgs: conv, previous: "resp_1", items: 1},
		{name: "off: the whole conversation", on: false, msgs: conv, items: 4},
		{name: "the last assistant message came from elsewhere", on: true, msgs: older, items: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(Config{API: Responses, Model: "m", PreviousResponseID: tt.on})
			if err != nil {
				t.Fatal(err)
			}
			c, err := p.buildResponsesRequest(&llm.Request{Messages: tt.msgs})
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Instructions string            `json:"instructions"`
				Previous     string            `json:"previous_response_id"`
				Store        bool              `json:"store"`
				Input        []json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal(c.body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Previous != tt.previous || len(body.Input) != tt.items || body.Store != tt.on || body.Instructions != "sys" {
				t.Errorf("previous_response_id %q, %d items, store %v, instructions %q; want %q, %d, %v, sys\n%s",
					body.Previous, len(body.Input), body.Store, body.Instructions, tt.previous, tt.items, tt.on, c.body.Bytes())
			}
			if bytes.Contains(c.body.Bytes(), []byte(ResponseMarker)) {
				t.Errorf("the marker block was sent: %s", c.body.Bytes())
			}
		})
	}
}

func TestResponsesConfig(t *testing.T) {
	p, err := New(Config{API: Responses, BaseURL: "http://localhost:8000/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Endpoint(); got != "http://localhost:8000/v1/responses" {
		t.Errorf("Endpoint() = %q", got)
	}
	if _, err := New(Config{API: API(7)}); err == nil || !strings.Contains(err.Error(), "openai.Responses") {
		t.Errorf("New with an unknown API: %v", err)
	}
	if s := Responses.String() + ", " + ChatCompletions.String() + ", " + API(9).String(); s != "responses, chat completions, API(9)" {
		t.Errorf("String: %s", s)
	}
	for _, bad := range []*llm.Request{
		{Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Content: "x"}}},
		{Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "x"}}}}},
		{Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, Thinking: []llm.Thinking{{Provider: "openai"}}}}},
		{Model: "m", Messages: []llm.Message{{Role: "narrator"}}},
		{Messages: helloRequest.Messages},
	} {
		if _, err := p.buildResponsesRequest(bad); err == nil {
			t.Errorf("request %+v built, want an error", bad.Messages)
		}
	}
}

// rsse renders Responses API events as an event stream.
func rsse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

const (
	rCreated   = `{"type":"response.created","sequence_number":0,"response":{"id":"resp_t","object":"response","status":"in_progress","model":"gpt-t","output":[]}}`
	rCompleted = `{"type":"response.completed","sequence_number":9,"response":{"id":"resp_t","object":"response","status":"completed","model":"gpt-t","output":[],"usage":{"input_tokens":3,"output_tokens":4,"input_tokens_details":{"cached_tokens":1,"cache_write_tokens":2},"output_tokens_details":{"reasoning_tokens":2}}}}`
)

func TestResponsesStreams(t *testing.T) {
	text := func(d string) string {
		return `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":` + quote(d) + `}`
	}
	callAdded := func(i, id, name string) string {
		return `{"type":"response.output_item.added","output_index":` + i + `,"item":{"type":"function_call","id":"fc_` + i + `","call_id":"` + id + `","name":"` + name + `","arguments":""}}`
	}
	args := func(i, d string) string {
		return `{"type":"response.function_call_arguments.delta","item_id":"fc_` + i + `","output_index":` + i + `,"delta":` + quote(d) + `}`
	}
	tests := []struct {
		name        string
		contentType string
		body        string
		wantErr     string
		protocol    bool
		status      int
		wantText    string
		wantCalls   []llm.ToolCall
		wantStop    llm.StopReason
	}{
		{name: "not JSON", body: rsse(rCreated) + "data: {\"type\":\n\n", wantErr: "stream event 2: not a Responses API event", protocol: true},
		{name: "cut off", body: rsse(rCreated, text("Hel")), wantErr: "ended before the reply was complete", protocol: true},
		{name: "empty body", body: "", wantErr: "does it speak OpenAI's Responses API", protocol: true},
		{name: "call without a name", body: rsse(rCreated, callAdded("0", "c1", ""), rCompleted), wantErr: "function call 1 has no name", protocol: true},
		{name: "item event without an item", body: rsse(rCreated, `{"type":"response.output_item.added","output_index":0}`, rCompleted), wantErr: "without an item", protocol: true},
		{name: "nested error event", body: rsse(`{"type":"error","error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window."}}`),
			wantErr: "Your input exceeds the context window (context_length_exceeded)", status: 400},
		{name: "error event without a message", body: rsse(`{"type":"error","code":"server_error"}`), wantErr: "server_error", status: 500},
		{name: "failed without an error object", body: rsse(rCreated, `{"type":"response.failed","response":{"id":"resp_t","status":"failed"}}`), wantErr: "the response failed", status: 500},
		{name: "unknown events are skipped", body: rsse(rCreated, `{"type":"response.future_thing","x":1}`, text("Hi"), `{"type":"response.output_text.done","text":"Hi"}`, rCompleted),
			wantText: "Hi", wantStop: llm.StopEnd},
		{name: "[DONE] ends a stream without a terminal event", body: rsse(rCreated, text("Hi")) + "data: [DONE]\n\n", wantErr: "ended before", protocol: true},
		{name: "arguments done replaces the deltas", body: rsse(rCreated, callAdded("0", "c1", "fs_read"), args("0", `{"pa`), args("0", `th"`),
			`{"type":"response.function_call_arguments.done","item_id":"fc_0","output_index":0,"arguments":"{\"path\":\"a\"}"}`, rCompleted),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "fs_read", Arguments: json.RawMessage(`{"path":"a"}`)}}, wantStop: llm.StopToolUse},
		{name: "deltas without item events", body: rsse(rCreated, callAdded("1", "c1", "now"), args("1", ""), rCompleted),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "now", Arguments: json.RawMessage(`{}`)}}, wantStop: llm.StopToolUse},
		{name: "bad arguments are passed on when complete", body: rsse(rCreated, callAdded("0", "c1", "x"), args("0", `{"a":`), rCompleted),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "x", Arguments: json.RawMessage(`{"a":`)}}, wantStop: llm.StopToolUse},
		{name: "a call id is made up when missing", body: rsse(rCreated, `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","name":"now"}}`, rCompleted),
			wantCalls: []llm.ToolCall{{ID: "call_resp_t_1", Name: "now", Arguments: json.RawMessage(`{}`)}}, wantStop: llm.StopToolUse},
		{name: "text only in the done item", body: rsse(rCreated,
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"whole"}]}}`, rCompleted),
			wantText: "whole", wantStop: llm.StopEnd},
		{name: "output only in the final response", body: rsse(rCreated,
			`{"type":"response.completed","response":{"id":"resp_t","status":"completed","output":[{"type":"message","id":"m","content":[{"type":"output_text","text":"late"}]},{"type":"function_call","id":"fc","call_id":"c9","name":"now","arguments":"{}","status":"completed"}]}}`),
			wantText: "late", wantCalls: []llm.ToolCall{{ID: "c9", Name: "now", Arguments: json.RawMessage(`{}`)}}, wantStop: llm.StopToolUse},
		{name: "a reasoning item cut off is not kept", body: rsse(rCreated, `{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_x","type":"reasoning","summary":[]}}`,
			`{"type":"response.incomplete","response":{"id":"resp_t","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`),
			wantStop: llm.StopMaxTokens},
		{name: "incomplete for another reason", body: rsse(rCreated, text("a"), `{"type":"response.incomplete","response":{"id":"resp_t","status":"incomplete","incomplete_details":{"reason":"something_new"}}}`),
			wantText: "a", wantStop: llm.StopOther},
		{name: "whole reply", contentType: "application/json", body: `{"id":"resp_w","object":"response","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"whole"}]}]}`,
			wantText: "whole", wantStop: llm.StopEnd},
		{name: "whole reply in progress", contentType: "application/json", body: `{"id":"resp_w","status":"in_progress","output":[]}`,
			wantErr: `status "in_progress"`, protocol: true},
		{name: "whole error reply with status 200", contentType: "application/json", body: `{"error":{"message":"model overloaded","code":503}}`,
			wantErr: "model overloaded", status: 503},
		{name: "whole reply not JSON", contentType: "application/json", body: `{"id":`, wantErr: "not a response object", protocol: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.Header{}
				if tt.contentType != "" {
					h.Set("Content-Type", tt.contentType)
				}
				p, _ := fakeProvider(t, Config{API: Responses, MaxRetries: -1}, reply(200, h, tt.body))
				r := llmtest.Stream(t, p, helloRequest)
				if tt.wantErr != "" {
					if r.Err == nil || !strings.Contains(r.Err.Error(), tt.wantErr) {
						t.Fatalf("Stream error = %v, want one containing %q", r.Err, tt.wantErr)
					}
					if tt.protocol && !errors.Is(r.Err, llm.ErrProtocol) {
						t.Errorf("error %v does not wrap llm.ErrProtocol", r.Err)
					}
					if e, ok := errors.AsType[*llm.APIError](r.Err); tt.status != 0 && (!ok || e.Status != tt.status) {
						t.Errorf("error %#v, want an *llm.APIError with status %d", r.Err, tt.status)
					}
					if len(r.Calls) != 0 {
						t.Errorf("tool call events %v for a failed reply", r.Calls)
					}
					return
				}
				if r.Err != nil {
					t.Fatalf("Stream: %v", r.Err)
				}
				if r.Resp.Message.Content != tt.wantText || r.Text != tt.wantText {
					t.Errorf("text %q (events %q), want %q", r.Resp.Message.Content, r.Text, tt.wantText)
				}
				if diff := cmp.Diff(tt.wantCalls, r.Resp.Message.ToolCalls); diff != "" {
					t.Errorf("tool calls (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantCalls, r.Calls); diff != "" {
					t.Errorf("tool call events (-want +got):\n%s", diff)
				}
				if tt.wantStop == llm.StopMaxTokens && len(r.Resp.Message.Thinking) != 0 {
					t.Errorf("thinking %+v kept from a cut-off reply", r.Resp.Message.Thinking)
				}
				if r.Resp.Stop != tt.wantStop {
					t.Errorf("stop %q, want %q", r.Resp.Stop, tt.wantStop)
				}
			})
		})
	}
}

func TestResponsesUsage(t *testing.T) {
	resp, err := readResponsesStream(strings.NewReader(rsse(rCreated, rCompleted)), &wire.Names{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 3, OutputTokens: 4, ReasoningTokens: 2, CachedTokens: 1, CacheWriteTokens: 2}
	if resp.Usage != want || resp.ID != "resp_t" || resp.Model != "gpt-t" {
		t.Errorf("usage %+v, id %q, model %q; want %+v, resp_t, gpt-t", resp.Usage, resp.ID, resp.Model, want)
	}
}

func TestResponses404Hint(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	p := newTestProvider(t, Config{API: Responses, BaseURL: srv.URL + "/v1"})
	_, err := p.Stream(t.Context(), helloRequest, nil)
	if err == nil || !strings.Contains(err.Error(), "does not speak the Responses API") || !strings.Contains(err.Error(), "/v1/responses") {
		t.Errorf("Stream error = %v, want a hint about the Responses API", err)
	}
}
