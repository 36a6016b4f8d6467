package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
)

const testKey = "sk-test-0123456789abcdef"

// sse renders chunk payloads as an event stream ending in [DONE].
func sse(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// textStream is a short valid stream saying text.
func textStream(text string) string {
	return sse(`{"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":`+quote(text)+`}}]}`,
		`{"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`{"id":"c1","model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}`)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var helloRequest = &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}

// A fakeTransport answers requests in-process from a script, one reply per
// request, so that tests can run inside a synctest bubble.
type fakeTransport struct {
	mu      sync.Mutex
	replies []func(*http.Request) (*http.Response, error)
	reqs    []*http.Request
	bodies  []string
}

func (f *fakeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	i := len(f.reqs)
	f.reqs = append(f.reqs, r)
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	if i >= len(f.replies) {
		return nil, errors.New("fake transport: unexpected request")
	}
	return f.replies[i](r)
}

func (f *fakeTransport) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// reply returns a scripted answer.
func reply(status int, header http.Header, body string) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		if header == nil {
			header = http.Header{}
		}
		if header.Get("Content-Type") == "" {
			header.Set("Content-Type", "text/event-stream")
		}
		return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
}

// replyBody returns a 200 event stream with the given body.
func replyBody(body io.Reader) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body), Request: r}, nil
	}
}

func fail(err error) func(*http.Request) (*http.Response, error) {
	return func(*http.Request) (*http.Response, error) { return nil, err }
}

func fakeProvider(t *testing.T, cfg Config, replies ...func(*http.Request) (*http.Response, error)) (*Provider, *fakeTransport) {
	t.Helper()
	ft := &fakeTransport{replies: replies}
	cfg.HTTPClient = &http.Client{Transport: ft}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://model.test/v1"
	}
	return newTestProvider(t, cfg), ft
}

func TestStatusErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		key      string
		wantMsg  []string
		attempts int
	}{
		{name: "401 OpenAI", status: 401, key: testKey,
			body:    `{"error":{"message":"Incorrect API key provided: ` + testKey + `.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			wantMsg: []string{"Incorrect API key provided", "check OPENAI_API_KEY", "/v1/chat/completions"}, attempts: 1},
		{name: "401 without key", status: 401, body: `{"error":"unauthorized"}`,
			wantMsg: []string{"unauthorized", "no API key was sent", "set OPENAI_API_KEY"}, attempts: 1},
		{name: "404 Ollama model", status: 404, body: `{"error":"model \"llama9\" not found, try pulling it first"}`,
			wantMsg: []string{`model "llama9" not found`, `the model "test-model" or the base URL is wrong`, "/v1/chat/completions"}, attempts: 1},
		{name: "404 plain text", status: 404, body: "404 page not found\n",
			wantMsg: []string{"404 page not found", "the request went to http://127.0.0.1:"}, attempts: 1},
		{name: "404 mock-llm", status: 404, body: `{"error":"Not Found","message":"Cannot POST /chat/completions","status":404}`,
			wantMsg: []string{"Not Found: Cannot POST /chat/completions"}, attempts: 1},
		{name: "400 vLLM", status: 400, body: `{"object":"error","message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","code":400}`,
			wantMsg: []string{"maximum context length"}, attempts: 1},
		{name: "500 retried", status: 500, body: `{"error":{"message":"The server had an error while processing your request."}}`,
			wantMsg: []string{"server had an error", "failed", "gave up after 3 attempts"}, attempts: 3},
		{name: "429 retried", status: 429, body: `{"error":{"message":"Rate limit reached for gpt-4.1"}}`,
			wantMsg: []string{"Rate limit reached", "rate limited or out of quota", "gave up after 3 attempts"}, attempts: 3},
		{name: "503 FastAPI", status: 503, body: `{"detail":"Service Unavailable"}`,
			wantMsg: []string{"Service Unavailable"}, attempts: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", "")
			var mu sync.Mutex
			var n int
			var auth []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				n++
				auth = append(auth, r.Header.Get("Authorization"))
				mu.Unlock()
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			var logs bytes.Buffer
			p := newTestProvider(t, Config{BaseURL: srv.URL + "/v1", APIKey: tt.key,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			_, err := p.Stream(t.Context(), helloRequest, nil)
			apiErr, ok := errors.AsType[*llm.APIError](err)
			if !ok {
				t.Fatalf("Stream error = %v, want an *llm.APIError", err)
			}
			t.Logf("error: %v", err)
			if apiErr.Status != tt.status {
				t.Errorf("status %d, want %d", apiErr.Status, tt.status)
			}
			for _, w := range tt.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if n != tt.attempts {
				t.Errorf("%d attempts, want %d", n, tt.attempts)
			}
			wantAuth := ""
			if tt.key != "" {
				wantAuth = "Bearer " + tt.key
			}
			if auth[0] != wantAuth {
				t.Errorf("Authorization %q, want %q", auth[0], wantAuth)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(logs.String(), testKey) {
				t.Errorf("the API key leaked into the error or the log:\n%v\n%s", err, logs.String())
			}
			if tt.attempts > 1 && strings.Count(logs.String(), "retrying") != tt.attempts-1 {
				t.Errorf("log has %d retry lines, want %d:\n%s", strings.Count(logs.String(), "retrying"), tt.attempts-1, logs.String())
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	p := newTestProvider(t, Config{BaseURL: url + "/v1", MaxRetries: 1})
	_, err := p.Stream(t.Context(), helloRequest, nil)
	apiErr, ok := errors.AsType[*llm.APIError](err)
	if !ok || apiErr.Status != 0 || !apiErr.Temporary() {
		t.Fatalf("Stream error = %#v, want an *llm.APIError with status 0", err)
	}
	for _, w := range []string{"unreachable", url + "/v1/chat/completions", "gave up after 2 attempts"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// TestRetry runs in a synctest bubble, where time is virtual, so waits are
// checked exactly and cost nothing.
func TestRetry(t *testing.T) {
	ok := reply(200, nil, textStream("hi"))
	h := func(kv ...string) http.Header {
		hd := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			hd.Set(kv[i], kv[i+1])
		}
		return hd
	}
	errReset := errors.New("connection reset by peer")
	tests := []struct {
		name      string
		cfg       Config
		replies   []func(*http.Request) (*http.Response, error)
		wantErr   string // "" for success
		wantWait  time.Duration
		maxWait   time.Duration // when the wait is random: it must lie in [wantWait, maxWait]
		attempts  int
		wantRetry time.Duration // the APIError's RetryAfter
	}{
		{name: "429 Retry-After seconds", replies: []func(*http.Request) (*http.Response, error){reply(429, h("Retry-After", "2"), `{}`), ok},
			wantWait: 2 * time.Second, attempts: 2},
		{name: "429 retry-after-ms", replies: []func(*http.Request) (*http.Response, error){reply(429, h("Retry-After-Ms", "1500", "Retry-After", "9"), `{}`), ok},
			wantWait: 1500 * time.Millisecond, attempts: 2},
		{name: "503 Retry-After date", replies: []func(*http.Request) (*http.Response, error){
			reply(503, h("Retry-After", time.Date(2000, 1, 1, 0, 0, 3, 0, time.UTC).Format(http.TimeFormat)), `{}`), ok},
			wantWait: 3 * time.Second, attempts: 2},
		{name: "backoff doubles", cfg: Config{RetryBase: time.Second},
			replies:  []func(*http.Request) (*http.Response, error){reply(500, nil, `{}`), reply(502, nil, `{}`), ok},
			wantWait: 500*time.Millisecond + time.Second, maxWait: 3 * time.Second, attempts: 3},
		{name: "connection error", replies: []func(*http.Request) (*http.Response, error){fail(errReset), ok},
			wantWait: 0, maxWait: time.Second, cfg: Config{RetryBase: time.Second}, attempts: 2},
		{name: "reset before any event", replies: []func(*http.Request) (*http.Response, error){
			replyBody(io.MultiReader(strings.NewReader(": keep-alive\n\n"), iotest.ErrReader(errReset))), ok},
			maxWait: time.Millisecond, attempts: 2},
		{name: "error event before any text", replies: []func(*http.Request) (*http.Response, error){
			reply(200, nil, sse(`{"error":{"message":"upstream overloaded","code":503}}`)), ok},
			maxWait: time.Millisecond, attempts: 2},
		{name: "reset after text is not retried", replies: []func(*http.Request) (*http.Response, error){
			replyBody(io.MultiReader(strings.NewReader(`data: {"choices":[{"delta":{"content":"Hel"}}]}`+"\n\n"), iotest.ErrReader(errReset))), ok},
			wantErr: "connection reset by peer", attempts: 1},
		{name: "Retry-After beyond the cap", cfg: Config{MaxRetryWait: 30 * time.Second},
			replies: []func(*http.Request) (*http.Response, error){reply(429, h("Retry-After", "120"), `{"error":{"message":"quota"}}`), ok},
			wantErr: "asks to wait 2m0s, longer than the 30s allowed", attempts: 1, wantRetry: 2 * time.Minute},
		{name: "no retries", cfg: Config{MaxRetries: -1},
			replies: []func(*http.Request) (*http.Response, error){reply(500, nil, `{"error":{"message":"boom"}}`), ok},
			wantErr: "boom", attempts: 1},
		{name: "400 is not retried",
			replies: []func(*http.Request) (*http.Response, error){reply(400, nil, `{"error":{"message":"bad tools"}}`), ok},
			wantErr: "bad tools", attempts: 1},
		{name: "attempts are bounded", cfg: Config{MaxRetries: 3, RetryBase: time.Second, MaxRetryWait: 2 * time.Second},
			replies: []func(*http.Request) (*http.Response, error){reply(503, nil, ``), reply(503, nil, ``), reply(503, nil, ``), reply(503, nil, ``), ok},
			wantErr: "gave up after 4 attempts", attempts: 4, wantWait: 500*time.Millisecond + time.Second + time.Second, maxWait: 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p, ft := fakeProvider(t, tt.cfg, tt.replies...)
				start := time.Now()
				r := llmtest.Stream(t, p, helloRequest)
				waited := time.Since(start)
				if tt.wantErr == "" {
					if r.Err != nil {
						t.Fatalf("Stream: %v", r.Err)
					}
					if r.Resp.Message.Content != "hi" {
						t.Errorf("content %q, want %q", r.Resp.Message.Content, "hi")
					}
				} else {
					if r.Err == nil || !strings.Contains(r.Err.Error(), tt.wantErr) {
						t.Fatalf("Stream error = %v, want one containing %q", r.Err, tt.wantErr)
					}
					if e, ok := errors.AsType[*llm.APIError](r.Err); ok && e.RetryAfter != tt.wantRetry {
						t.Errorf("RetryAfter %v, want %v", e.RetryAfter, tt.wantRetry)
					}
				}
				if n := ft.count(); n != tt.attempts {
					t.Errorf("%d attempts, want %d", n, tt.attempts)
				}
				if tt.maxWait == 0 && waited != tt.wantWait || tt.maxWait != 0 && (waited < tt.wantWait || waited > tt.maxWait) {
					t.Errorf("waited %v, want %v (up to %v)", waited, tt.wantWait, tt.maxWait)
				}
			})
		})
	}
}

func TestRetryWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := fakeProvider(t, Config{}, reply(429, http.Header{"Retry-After": {"30"}}, `{}`))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := p.Stream(ctx, helloRequest, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Stream error = %v, want context.DeadlineExceeded", err)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("returned after %v, want 1s", waited)
		}
	})
}

// slowBody sends one piece every gap until pieces run out; a read ends
// early when ctx is done.
type slowBody struct {
	ctx    context.Context
	gap    time.Duration
	pieces []string
}

func (b *slowBody) Read(p []byte) (int, error) {
	if len(b.pieces) == 0 {
		return 0, io.EOF
	}
	select {
	case <-b.ctx.Done():
		return 0, b.ctx.Err()
	case <-time.After(b.gap):
	}
	n := copy(p, b.pieces[0])
	b.pieces[0] = b.pieces[0][n:]
	if b.pieces[0] == "" {
		b.pieces = b.pieces[1:]
	}
	return n, nil
}

func TestTimeout(t *testing.T) {
	slow := func(gap time.Duration, pieces ...string) func(*http.Request) (*http.Response, error) {
		return func(r *http.Request) (*http.Response, error) {
			return replyBody(&slowBody{ctx: r.Context(), gap: gap, pieces: pieces})(r)
		}
	}
	stalled := func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done() // no headers until the client gives up
		return nil, r.Context().Err()
	}
	chunk := func(s string) string { return `data: {"choices":[{"delta":{"content":"` + s + `"}}]}` + "\n\n" }
	tests := []struct {
		name    string
		reply   func(*http.Request) (*http.Response, error)
		wantErr string
		elapsed time.Duration
	}{
		{name: "no headers", reply: stalled, wantErr: "no answer for 5s", elapsed: 5 * time.Second},
		{name: "stream stalls", reply: slow(time.Hour, "x"), wantErr: "no answer for 5s", elapsed: 5 * time.Second},
		{name: "stream stalls after text", reply: func(r *http.Request) (*http.Response, error) {
			return replyBody(io.MultiReader(strings.NewReader(chunk("a")), &slowBody{ctx: r.Context(), gap: time.Hour, pieces: []string{"x"}}))(r)
		}, wantErr: "no answer for 5s", elapsed: 5 * time.Second},
		{name: "slow but steady stream is not cut off",
			reply:   slow(4*time.Second, chunk("a"), chunk("b"), chunk("c"), `data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`+"\n\n", "data: [DONE]\n\n"),
			elapsed: 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p, _ := fakeProvider(t, Config{Timeout: 5 * time.Second, MaxRetries: -1}, tt.reply)
				start := time.Now()
				_, err := p.Stream(t.Context(), helloRequest, nil)
				if tt.wantErr == "" && err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if tt.wantErr != "" {
					if _, ok := errors.AsType[*llm.APIError](err); !ok || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("Stream error = %v, want an *llm.APIError containing %q", err, tt.wantErr)
					}
				}
				if d := time.Since(start); d != tt.elapsed {
					t.Errorf("took %v, want %v", d, tt.elapsed)
				}
			})
		})
	}
}

func TestCancel(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		handlerDone := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer close(handlerDone)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"delta":{"content":"Hel"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done() // the rest never comes; the client must hang up
		}))
		defer srv.Close()
		p := newTestProvider(t, Config{BaseURL: srv.URL + "/v1"})
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
		<-handlerDone // the server saw the connection close
	})
	t.Run("before the call", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p, ft := fakeProvider(t, Config{}, reply(200, nil, textStream("hi")))
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if _, err := p.Stream(ctx, helloRequest, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("Stream error = %v, want context.Canceled", err)
			}
			if n := ft.count(); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	})
}

func TestMalformedStreams(t *testing.T) {
	const (
		role = `{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant"}}]}`
		stop = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
		done = `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`
	)
	call := func(index, id, name, args string) string {
		tc := `{`
		if index != "" {
			tc += `"index":` + index + `,`
		}
		if id != "" {
			tc += `"id":"` + id + `","type":"function",`
		}
		tc += `"function":{"name":"` + name + `","arguments":` + args + `}}`
		return `{"choices":[{"index":0,"delta":{"tool_calls":[` + tc + `]}}]}`
	}
	tests := []struct {
		name        string
		contentType string
		body        string
		wantErr     string // "" for success
		protocol    bool   // the error must wrap llm.ErrProtocol
		status      int    // the error must be an *llm.APIError with this status
		wantText    string
		wantCalls   []llm.ToolCall
		wantFinish  string
	}{
		{name: "chunk is not JSON", body: sse(role, `{"choices":[{"delta":{"content":"a"}}`, stop),
			wantErr: "stream event 2: not a chat completion chunk", protocol: true},
		{name: "chunk is an array", body: sse(role, `[1,2]`, stop), wantErr: "stream event 2", protocol: true},
		{name: "cut off", body: "data: " + role + "\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
			wantErr: "ended before the reply was complete", protocol: true},
		{name: "cut off inside a chunk", body: "data: " + role + "\n\ndata: {\"choices\":[{\"del",
			wantErr: "not a chat completion chunk", protocol: true},
		{name: "empty body", body: "", wantErr: "no stream events", protocol: true},
		{name: "HTML page", contentType: "text/html", body: "<html><body>Sign in</body></html>\n",
			wantErr: `no stream events (Content-Type "text/html")`, protocol: true},
		{name: "tool call without name", body: sse(role, call("0", "c1", "", `"{}"`), done),
			wantErr: "tool call 1 has no function name", protocol: true},
		{name: "unknown finish reason without content", body: sse(role, `{"choices":[{"delta":{},"finish_reason":"banana"}]}`),
			wantErr: `unknown finish reason "banana"`, protocol: true},
		{name: "finish reason error", body: sse(role, `{"choices":[{"delta":{"content":"par"},"finish_reason":"error"}]}`),
			wantErr: `finish reason "error"`, status: 500},
		{name: "error object", body: sse(`{"error":{"message":"Internal server error","type":"server_error","code":502}}`),
			wantErr: "error in the reply stream: Internal server error", status: 502},
		{name: "error event", body: "event: error\ndata: {\"message\":\"overloaded\"}\n\n",
			wantErr: "overloaded", status: 500},
		{name: "unknown finish reason with text", body: sse(role, `{"choices":[{"delta":{"content":"ok"},"finish_reason":"eos_token"}]}`),
			wantText: "ok", wantFinish: "eos_token"},
		{name: "bad JSON in arguments is passed on", body: sse(role, call("0", "c1", "read", `"{\"path\": \"a"`), done),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path": "a`)}}, wantFinish: "tool_calls"},
		{name: "arguments as an object", body: sse(role, call("0", "c1", "read", `{"path":"a"}`), done),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}, wantFinish: "tool_calls"},
		{name: "argument-less call", body: sse(role, call("0", "c1", "now", `""`), done),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "now", Arguments: json.RawMessage(`{}`)}}, wantFinish: "tool_calls"},
		{name: "null arguments", body: sse(role, call("0", "c1", "now", `null`), done),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "now", Arguments: json.RawMessage(`{}`)}}, wantFinish: "tool_calls"},
		{name: "arguments sent twice", body: sse(role, call("0", "c1", "read", `"{\"a\":"`), call("0", "", "", `"1}"`), call("0", "", "", `"{\"a\":1}"`), done),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"a":1}`)}}, wantFinish: "tool_calls"},
		{name: "parallel calls at one index", body: sse(role, call("0", "c1", "a", `"{}"`), call("0", "c2", "b", `"{\"x\":1}"`), done),
			wantCalls:  []llm.ToolCall{{ID: "c1", Name: "a", Arguments: json.RawMessage(`{}`)}, {ID: "c2", Name: "b", Arguments: json.RawMessage(`{"x":1}`)}},
			wantFinish: "tool_calls"},
		{name: "calls without index", body: sse(role, call("", "c1", "a", `"{\"p\":"`), call("", "", "", `"1}"`), call("", "c2", "b", `""`), done),
			wantCalls:  []llm.ToolCall{{ID: "c1", Name: "a", Arguments: json.RawMessage(`{"p":1}`)}, {ID: "c2", Name: "b", Arguments: json.RawMessage(`{}`)}},
			wantFinish: "tool_calls"},
		{name: "index gaps and interleaving", body: sse(role, call("2", "c2", "b", `"{\"q\":"`), call("5", "c5", "c", `"{}"`), call("2", "", "", `"2}"`), done),
			wantCalls:  []llm.ToolCall{{ID: "c2", Name: "b", Arguments: json.RawMessage(`{"q":2}`)}, {ID: "c5", Name: "c", Arguments: json.RawMessage(`{}`)}},
			wantFinish: "tool_calls"},
		{name: "name repeated in every delta", body: sse(role, call("0", "c1", "read", `"{\"a\":"`), call("0", "c1", "read", `"1}"`), done),
			wantCalls: []llm.ToolCall{{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"a":1}`)}}, wantFinish: "tool_calls"},
		{name: "missing call id is made up", body: sse(role, call("0", "", "now", `"{}"`), done),
			wantCalls: []llm.ToolCall{{ID: "call_c_1", Name: "now", Arguments: json.RawMessage(`{}`)}}, wantFinish: "tool_calls"},
		{name: "other choices are ignored", body: sse(role, `{"choices":[{"index":1,"delta":{"content":"no"}},{"index":0,"delta":{"content":"yes"}}]}`, stop),
			wantText: "yes", wantFinish: "stop"},
		{name: "refusal", body: sse(role, `{"choices":[{"delta":{"content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`),
			wantText: "I can't help with that.", wantFinish: "stop"},
		{name: "no [DONE] but a finish reason", body: "data: " + role + "\n\ndata: " + `{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}` + "\n",
			wantText: "a", wantFinish: "stop"},
		{name: "[DONE] without finish reason", body: sse(role, `{"choices":[{"delta":{"content":"a"}}]}`),
			wantText: "a"},
		{name: "multi-line data", body: "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n",
			wantText: "a", wantFinish: "stop"},
		{name: "only [DONE]", body: "data: [DONE]\n\n", wantErr: "before any chunk", protocol: true},
		{name: "whole reply sent as an event stream", body: "\n " + `{"id":"x","choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}`,
			wantText: "whole", wantFinish: "stop"},
		{name: "whole reply without choices", contentType: "application/json", body: `{"id":"x","object":"chat.completion","choices":[]}`,
			wantErr: "no choices", protocol: true},
		{name: "whole reply not JSON", contentType: "application/json", body: `{"id":`,
			wantErr: "not a chat completion", protocol: true},
		{name: "whole error reply with status 200", contentType: "application/json", body: `{"error":{"message":"model overloaded","code":503}}`,
			wantErr: "model overloaded", status: 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.Header{}
				if tt.contentType != "" {
					h.Set("Content-Type", tt.contentType)
				}
				p, _ := fakeProvider(t, Config{MaxRetries: -1}, reply(200, h, tt.body))
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
				if r.Resp.FinishReason != tt.wantFinish {
					t.Errorf("finish reason %q, want %q", r.Resp.FinishReason, tt.wantFinish)
				}
			})
		})
	}
}

func TestRequest(t *testing.T) {
	temp := 0.2
	req := &llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "Read go.mod."},
			{Role: llm.RoleAssistant, Reasoning: "I should read it.", ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
				{ID: "c2", Name: "clock", Arguments: nil},
				{ID: "c3", Name: "fs.read", Arguments: json.RawMessage(`{"path": "go.`)},
			}},
			{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "fs.read", Content: "module x"},
			{Role: llm.RoleTool, ToolCallID: "c2", ToolName: "clock", Content: "noon"},
			{Role: llm.RoleTool, ToolCallID: "c3", ToolName: "fs.read", Content: "invalid arguments"},
			{Role: llm.RoleAssistant, Content: "It is module x."},
		},
		Tools: []llm.ToolDef{
			{Name: "fs.read", Description: "Read a file.", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "clock"},
		},
		MaxTokens:   100,
		Temperature: &temp,
	}
	want := `{
		"model": "gpt-test",
		"messages": [
			{"role": "system", "content": "Be brief."},
			{"role": "user", "content": "Read go.mod."},
			{"role": "assistant", "tool_calls": [
				{"id": "c1", "type": "function", "function": {"name": "fs_read", "arguments": "{\"path\":\"go.mod\"}"}},
				{"id": "c2", "type": "function", "function": {"name": "clock", "arguments": "{}"}},
				{"id": "c3", "type": "function", "function": {"name": "fs_read", "arguments": "{\"path\": \"go."}}
			]},
			{"role": "tool", "tool_call_id": "c1", "content": "module x"},
			{"role": "tool", "tool_call_id": "c2", "content": "noon"},
			{"role": "tool", "tool_call_id": "c3", "content": "invalid arguments"},
			{"role": "assistant", "content": "It is module x."}
		],
		"tools": [
			{"type": "function", "function": {"name": "fs_read", "description": "Read a file.",
				"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
			{"type": "function", "function": {"name": "clock", "parameters": {"type": "object", "properties": {}}}}
		],
		"temperature": 0.2,
		%s
	}`
	tests := []struct {
		name   string
		cfg    Config
		fields string
	}{
		{name: "stream", cfg: Config{BaseURL: "http://localhost:11434/v1"},
			fields: `"max_tokens": 100, "stream": true, "stream_options": {"include_usage": true}`},
		{name: "no stream", cfg: Config{BaseURL: "http://localhost:8080/v1/", NoStream: true},
			fields: `"max_tokens": 100, "stream": false`},
		{name: "OpenAI", cfg: Config{},
			fields: `"max_completion_tokens": 100, "stream": true, "stream_options": {"include_usage": true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Model = "gpt-test"
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
			if err := json.Unmarshal([]byte(strings.Replace(want, "%s", tt.fields, 1)), &w); err != nil {
				t.Fatal(err)
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

// TestToolNamesRoundTrip checks that a call to a sanitized name comes back
// under the wield name, over HTTP with headers and the key from the
// environment.
func TestToolNamesRoundTrip(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	var got http.Header
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		gotBody, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse(`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"id":"t1","type":"function","function":{"name":"fs_read","arguments":"{\"path\":\"a\"}"}}]}}]}`,
			`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`))
	}))
	defer srv.Close()
	p := newTestProvider(t, Config{BaseURL: srv.URL + "/v1", Header: http.Header{"X-Title": {"wield"}}})
	req := &llm.Request{Model: "local", Messages: helloRequest.Messages, Tools: []llm.ToolDef{{Name: "fs.read", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	r := llmtest.Stream(t, p, req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Resp.Message.ToolCalls) != 1 || r.Resp.Message.ToolCalls[0].Name != "fs.read" {
		t.Errorf("tool calls %+v, want one to fs.read", r.Resp.Message.ToolCalls)
	}
	if a := got.Get("Authorization"); a != "Bearer "+testKey {
		t.Errorf("Authorization %q, want the key from OPENAI_API_KEY", a)
	}
	if got.Get("X-Title") != "wield" || got.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v, want X-Title and Content-Type", got)
	}
	if !bytes.Contains(gotBody, []byte(`"model":"local"`)) {
		t.Errorf("request %s does not name the model of the request", gotBody)
	}

	// NoKey keeps the OpenAI key from a server that must not see it.
	p = newTestProvider(t, Config{BaseURL: srv.URL + "/v1", NoKey: true})
	if r := llmtest.Stream(t, p, req); r.Err != nil {
		t.Fatal(r.Err)
	}
	if a := got.Get("Authorization"); a != "" {
		t.Errorf("Authorization %q sent with NoKey", a)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, base := range []string{"localhost:11434/v1", "ftp://host/v1", "http://", "http://a b/"} {
		if _, err := New(Config{BaseURL: base}); err == nil {
			t.Errorf("New(BaseURL %q) succeeded, want an error", base)
		}
	}
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Endpoint(); got != DefaultBaseURL+"/chat/completions" {
		t.Errorf("Endpoint() = %q, want %q", got, DefaultBaseURL+"/chat/completions")
	}
	if _, err := p.Stream(t.Context(), helloRequest, nil); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("Stream without a model: %v, want an error saying so", err)
	}
	bad := &llm.Request{Model: "m", Messages: []llm.Message{{Role: "narrator", Content: "x"}}}
	if _, err := p.Stream(t.Context(), bad, nil); err == nil || !strings.Contains(err.Error(), `unknown role "narrator"`) {
		t.Errorf("Stream with a bad role: %v", err)
	}
	clash := &llm.Request{Model: "m", Messages: helloRequest.Messages, Tools: []llm.ToolDef{{Name: "a.b"}, {Name: "a_b"}}}
	if _, err := p.Stream(t.Context(), clash, nil); err == nil || !strings.Contains(err.Error(), "rename one") {
		t.Errorf("Stream with clashing tool names: %v", err)
	}
}
