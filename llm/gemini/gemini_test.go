package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
)

// textReply is a one-chunk reply with text and finish reason STOP.
func textReply(text string) string {
	return sse(`{"candidates":[{"content":{"role":"model","parts":[{"text":` + quote(text) + `}]},"finishReason":"STOP"}],"responseId":"r1","modelVersion":"m"}`)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// sentRequest decodes a recorded request body into generic JSON.
func sentRequest(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	return v
}

func TestRequestShape(t *testing.T) {
	srv := llmtest.ServeBody(t, isGenerate, "text/event-stream", []byte(textReply("ok")), nil)
	budget := 512
	p := newTestProvider(t, Config{BaseURL: srv.URL, APIKey: "k-123", Model: "models/gemini-x", ThinkingBudget: &budget, IncludeThoughts: true})
	temp := 0.5
	req := &llm.Request{
		MaxTokens:   100,
		Temperature: &temp,
		Tools: []llm.ToolDef{
			{Name: "fs.read", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":["string","null"]}},"required":["path"]}`)},
			{Name: "now", Description: "The time.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		},
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "Read a and b."},
			{Role: llm.RoleAssistant, Content: "Reading.", Reasoning: "thinking", Thinking: []llm.Thinking{
				{Provider: "gemini", Text: "I should read.", Signature: "c2lnLXRob3VnaHQ="},
				{Provider: "anthropic", Text: "other", Signature: "x"},
				{Provider: "gemini", Signature: "c2lnLXRleHQ="},
				{Provider: "gemini", Signature: "c2lnLWVtcHR5"},
			}, ToolCalls: []llm.ToolCall{
				{ID: "gemini_r1_1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"a"}`), Signature: "c2lnLWNhbGw="},
				{ID: "id-2", Name: "fs.read", Arguments: json.RawMessage(`{"path":`)},
			}},
			// The results come back in another order than the calls.
			{Role: llm.RoleTool, ToolCallID: "id-2", Content: "B"},
			{Role: llm.RoleTool, ToolCallID: "gemini_r1_1", ToolName: "fs.read", Content: "A"},
			{Role: llm.RoleUser, Content: "Thanks."},
		},
	}
	r := llmtest.Stream(t, p, req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	hreq := srv.Requests()[0]
	if got, want := hreq.URL.String(), "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"; got != want {
		t.Errorf("URL %s, want %s", got, want)
	}
	if hreq.Header.Get("X-Goog-Api-Key") != "k-123" || hreq.URL.Query().Get("key") != "" {
		t.Errorf("the key was not sent in x-goog-api-key alone: header %q, query %q", hreq.Header.Get("X-Goog-Api-Key"), hreq.URL.RawQuery)
	}
	got := sentRequest(t, hreq.Body)
	want := sentRequest(t, []byte(`{
		"systemInstruction": {"parts": [{"text": "Be brief."}]},
		"contents": [
			{"role": "user", "parts": [{"text": "Read a and b."}]},
			{"role": "model", "parts": [
				{"text": "I should read.", "thought": true, "thoughtSignature": "c2lnLXRob3VnaHQ="},
				{"text": "Reading.", "thoughtSignature": "c2lnLXRleHQ="},
				{"text": "", "thoughtSignature": "c2lnLWVtcHR5"},
				{"functionCall": {"name": "fs_read", "args": {"path": "a"}}, "thoughtSignature": "c2lnLWNhbGw="},
				{"functionCall": {"id": "id-2", "name": "fs_read", "args": {}}}
			]},
			{"role": "user", "parts": [
				{"functionResponse": {"name": "fs_read", "response": {"output": "A"}}},
				{"functionResponse": {"id": "id-2", "name": "fs_read", "response": {"output": "B"}}}
			]},
			{"role": "user", "parts": [{"text": "Thanks."}]}
		],
		"tools": [{"functionDeclarations": [
			{"name": "fs_read", "description": "Read a file.", "parameters": {"properties": {"path": {"type": "string", "nullable": true}}, "required": ["path"]}},
			{"name": "now", "description": "The time."}
		]}],
		"generationConfig": {"maxOutputTokens": 100, "temperature": 0.5, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 512}}
	}`))
	// The schema's exact form is schema.Gemini's business: compare its
	// properties only.
	decls := got["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	params := decls[0].(map[string]any)["parameters"].(map[string]any)
	wantParams := want["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)["parameters"].(map[string]any)
	if diff := cmp.Diff(wantParams["properties"], params["properties"]); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}
	delete(params, "type")
	delete(params, "nullable")
	delete(wantParams, "type")
	delete(wantParams, "nullable")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestVertexRequest(t *testing.T) {
	srv := llmtest.ServeBody(t, isGenerate, "text/event-stream", []byte(textReply("ok")), nil)
	var calls atomic.Int32
	p := newTestProvider(t, Config{BaseURL: srv.URL, Model: "gemini-2.5-pro", Vertex: &Vertex{Project: "my-proj", Location: "europe-west4"},
		TokenSource: func(ctx context.Context) (string, error) { calls.Add(1); return "tok-1", nil }})
	if r := llmtest.Stream(t, p, goldenRequest); r.Err != nil {
		t.Fatal(r.Err)
	}
	hreq := srv.Requests()[0]
	if got, want := hreq.URL.Path, "/v1/projects/my-proj/locations/europe-west4/publishers/google/models/gemini-2.5-pro:streamGenerateContent"; got != want {
		t.Errorf("path %s, want %s", got, want)
	}
	if hreq.Header.Get("Authorization") != "Bearer tok-1" || hreq.Header.Get("X-Goog-Api-Key") != "" || calls.Load() != 1 {
		t.Errorf("headers %v after %d token calls; want the bearer token and no API key", hreq.Header, calls.Load())
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		env        map[string]string
		wantErr    string
		wantNoKey  bool
		wantURL    string
		wantKeyVar string
	}{
		{name: "no key", env: map[string]string{KeyVar: "", FallbackKeyVar: ""}, wantErr: "set GEMINI_API_KEY (or GOOGLE_API_KEY)", wantNoKey: true},
		{name: "GEMINI_API_KEY", env: map[string]string{KeyVar: "a", FallbackKeyVar: "b"}, cfg: Config{Model: "m"},
			wantURL: "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse", wantKeyVar: KeyVar},
		{name: "GOOGLE_API_KEY", env: map[string]string{KeyVar: "", FallbackKeyVar: "b"}, wantKeyVar: FallbackKeyVar,
			wantURL: "https://generativelanguage.googleapis.com/v1beta/models/{model}:streamGenerateContent?alt=sse"},
		{name: "base URL with version", cfg: Config{APIKey: "k", BaseURL: "http://proxy.example/gemini/v1beta/", Model: "m"},
			wantURL: "http://proxy.example/gemini/v1beta/models/m:streamGenerateContent?alt=sse"},
		{name: "vertex", cfg: Config{Model: "m", Vertex: &Vertex{Project: "p", Location: "us-central1"}, TokenSource: func(context.Context) (string, error) { return "", nil }},
			wantURL: "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/m:streamGenerateContent?alt=sse"},
		{name: "vertex global", cfg: Config{Model: "m", Vertex: &Vertex{Project: "p", Location: "global"}, TokenSource: func(context.Context) (string, error) { return "", nil }},
			wantURL: "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/m:streamGenerateContent?alt=sse"},
		{name: "vertex without token source", cfg: Config{Vertex: &Vertex{Project: "p", Location: "l"}}, wantErr: "Config.TokenSource"},
		{name: "vertex without project", cfg: Config{Vertex: &Vertex{Location: "l"}, TokenSource: func(context.Context) (string, error) { return "", nil }}, wantErr: "project"},
		{name: "bad base URL", cfg: Config{APIKey: "k", BaseURL: "localhost:8080"}, wantErr: "not an http or https URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			p, err := New(tc.cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, ErrNoKey) != tc.wantNoKey {
					t.Fatalf("New = %v, want an error saying %q (ErrNoKey %v)", err, tc.wantErr, tc.wantNoKey)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Endpoint(); got != tc.wantURL {
				t.Errorf("Endpoint() = %s, want %s", got, tc.wantURL)
			}
			if tc.wantKeyVar != "" && p.wire.KeyVar != tc.wantKeyVar {
				t.Errorf("key variable %s, want %s", p.wire.KeyVar, tc.wantKeyVar)
			}
		})
	}
}

// TestReplies checks how replies that are not in the recordings are read:
// blocks, malformed calls, in-stream errors, cut-off streams.
func TestReplies(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		wantErr   error  // errors.Is target, or nil
		wantText  string // in the error, or the content
		wantStop  llm.StopReason
		wantCalls int
	}{
		{name: "safety", body: sse(`{"candidates":[{"content":{"parts":[{"text":"Sure, "}]}}]}`,
			`{"candidates":[{"finishReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true},{"category":"HARM_CATEGORY_HARASSMENT","probability":"NEGLIGIBLE"}]}]}`),
			wantErr: llm.ErrBlocked, wantText: "finish reason SAFETY: the reply was flagged by the safety filters; safety categories: HARM_CATEGORY_DANGEROUS_CONTENT"},
		{name: "recitation", body: sse(`{"candidates":[{"finishReason":"RECITATION","safetyRatings":[{"category":"HARM_CATEGORY_HATE_SPEECH","probability":"MEDIUM"}]}]}`),
			wantErr: llm.ErrBlocked, wantText: "RECITATION: the reply recited its training data too closely; safety ratings: HARM_CATEGORY_HATE_SPEECH MEDIUM"},
		{name: "blocked prompt", body: sse(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","safetyRatings":[{"category":"HARM_CATEGORY_SEXUALLY_EXPLICIT","probability":"HIGH","blocked":true}]},"usageMetadata":{"promptTokenCount":5}}`),
			wantErr: llm.ErrBlocked, wantText: "the prompt was blocked (PROHIBITED_CONTENT); safety categories: HARM_CATEGORY_SEXUALLY_EXPLICIT"},
		{name: "malformed function call", body: sse(`{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(default_api.read(path=))"}]}`),
			wantErr: llm.ErrProtocol, wantText: "the model wrote a function call that is not valid (Malformed function call: print(default_api.read(path=)))"},
		{name: "error in the stream", body: sse(`{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`, `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`),
			wantText: "model endpoint answered 503: error in the reply stream: The model is overloaded (UNAVAILABLE)"},
		{name: "no finish reason", body: sse(`{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`),
			wantErr: llm.ErrProtocol, wantText: "no finish reason"},
		{name: "not JSON", body: sse(`{"candidates":[`), wantErr: llm.ErrProtocol, wantText: "stream event 1: model reply broke the protocol: not a GenerateContentResponse"},
		{name: "arguments without a call", body: sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}]},"finishReason":"STOP"}]}`),
			wantErr: llm.ErrProtocol, wantText: "arguments without a call"},
		{name: "no events", body: ": nothing\n\n", wantErr: llm.ErrProtocol, wantText: "no stream events"},
		{name: "other with text", body: sse(`{"candidates":[{"content":{"parts":[{"text":"partial"}]},"finishReason":"OTHER"}]}`),
			wantText: "partial", wantStop: llm.StopOther},
		{name: "other without text", body: sse(`{"candidates":[{"finishReason":"OTHER"}]}`), wantErr: llm.ErrProtocol, wantText: "finish reason OTHER"},
		{name: "max tokens drops the open call", body: sse(
			`{"candidates":[{"content":{"parts":[{"text":"Reading."},{"functionCall":{"name":"read","args":{"path":"a"}},"thoughtSignature":"czE="}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"read","willContinue":true}}]}}]}`,
			`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.path","stringValue":"b/c","willContinue":true}],"willContinue":true}}]},"finishReason":"MAX_TOKENS"}]}`),
			wantText: "Reading.", wantStop: llm.StopMaxTokens, wantCalls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.ServeBody(t, isGenerate, "text/event-stream", []byte(tc.body), nil)
			p := newTestProvider(t, Config{BaseURL: srv.URL, MaxRetries: -1})
			r := llmtest.Stream(t, p, goldenRequest)
			if tc.wantStop == "" {
				if r.Err == nil {
					t.Fatalf("Stream succeeded with %+v, want an error", r.Resp.Message)
				}
				if tc.wantErr != nil && !errors.Is(r.Err, tc.wantErr) {
					t.Errorf("error %v does not wrap %v", r.Err, tc.wantErr)
				}
				if !strings.Contains(r.Err.Error(), tc.wantText) {
					t.Errorf("error %q does not say %q", r.Err, tc.wantText)
				}
				if r.Resp != nil || len(r.Calls) > 0 {
					t.Errorf("a failed reply gave a response or tool calls")
				}
				return
			}
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Resp.Message.Content != tc.wantText || r.Resp.Stop != tc.wantStop || len(r.Resp.Message.ToolCalls) != tc.wantCalls {
				t.Errorf("content %q, stop %q, %d calls; want %q, %q, %d", r.Resp.Message.Content, r.Resp.Stop, len(r.Resp.Message.ToolCalls), tc.wantText, tc.wantStop, tc.wantCalls)
			}
		})
	}
}

func TestUsage(t *testing.T) {
	srv := llmtest.ServeBody(t, isGenerate, "text/event-stream", []byte(sse(`{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":100,"cachedContentTokenCount":60,"candidatesTokenCount":5,"thoughtsTokenCount":7}}`,
		`{"usageMetadata":{"trafficType":"ON_DEMAND"}}`)), nil)
	r := llmtest.Stream(t, newTestProvider(t, Config{BaseURL: srv.URL}), goldenRequest)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := llm.Usage{InputTokens: 100, CachedTokens: 60, OutputTokens: 12, ReasoningTokens: 7}
	if r.Resp.Usage != want {
		t.Errorf("usage %+v, want %+v", r.Resp.Usage, want)
	}
}

func TestRetryDelayFromTheErrorBody(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.01s"}]}}`)
			return
		}
		io.WriteString(w, textReply("done"))
	}))
	defer srv.Close()
	// The backoff alone would wait an hour: only the retryDelay can make
	// this test finish.
	p := newTestProvider(t, Config{BaseURL: srv.URL, RetryBase: time.Hour, MaxRetryWait: time.Hour})
	r := llmtest.Stream(t, p, goldenRequest)
	if r.Err != nil || r.Resp.Message.Content != "done" || n.Load() != 2 {
		t.Fatalf("Stream = %v after %d requests, want success on the second", r.Err, n.Load())
	}

	// A delay longer than MaxRetryWait fails at once and says why.
	n.Store(0)
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3600s"}]}}`)
	}))
	defer srv2.Close()
	p = newTestProvider(t, Config{BaseURL: srv2.URL})
	r = llmtest.Stream(t, p, goldenRequest)
	apiErr, ok := errors.AsType[*llm.APIError](r.Err)
	if !ok || apiErr.RetryAfter != time.Hour || n.Load() != 1 || !strings.Contains(r.Err.Error(), "RESOURCE_EXHAUSTED: Quota exceeded") {
		t.Fatalf("err = %v after %d requests; want one request, RetryAfter 1h and the status named", r.Err, n.Load())
	}
}

func TestInvalidKeyIsExplained(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`)
	}))
	defer srv.Close()
	t.Setenv(KeyVar, "bad-key-value")
	p, err := New(Config{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	r := llmtest.Stream(t, p, goldenRequest)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "check GEMINI_API_KEY") || strings.Contains(r.Err.Error(), "bad-key-value") {
		t.Fatalf("err = %v; want advice naming GEMINI_API_KEY and no key", r.Err)
	}
}
