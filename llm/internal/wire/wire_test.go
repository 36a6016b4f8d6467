package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/wieldhq/wield/llm"
)

func testClient(url string) *Client {
	return &Client{Endpoint: url, Key: "sk-secret-key-1234", KeyVar: "TEST_API_KEY", Timeout: 5 * time.Second,
		MaxRetries: 2, RetryBase: time.Millisecond, MaxRetryWait: time.Second}
}

// attemptFor returns an attempt that posts to url and reads the whole body
// as the response text.
func attemptFor(c *Client, url string) func(context.Context, func(llm.Event)) (*llm.Response, error) {
	return func(ctx context.Context, h func(llm.Event)) (*llm.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, url, nil)
		r, err := c.Send(ctx, req, nil)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		data, err := ReadAll(r.Body)
		if err != nil {
			return nil, r.Err(err)
		}
		h(llm.Event{Kind: llm.EventText, Text: string(data)})
		return &llm.Response{Message: llm.Message{Content: string(data)}}, nil
	}
}

func TestDoRetriesHonouringRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "5")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down."}}`)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	c := testClient(srv.URL)
	var seen []string
	resp, err := c.Do(t.Context(), func(e llm.Event) { seen = append(seen, e.Text) }, attemptFor(c, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "hello" || n.Load() != 2 || len(seen) != 1 {
		t.Fatalf("content %q after %d requests, events %q", resp.Message.Content, n.Load(), seen)
	}
}

func TestDoGivesUpWithTheProviderMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer srv.Close()
	c := testClient(srv.URL)
	_, err := c.Do(t.Context(), nil, attemptFor(c, srv.URL))
	apiErr, ok := errors.AsType[*llm.APIError](err)
	if !ok || apiErr.Status != 529 {
		t.Fatalf("err = %v, want an APIError with status 529", err)
	}
	for _, want := range []string{"Overloaded", "gave up after 3 attempts", "failed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestDoFailsAtOnceWhenRetryAfterIsTooLong(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	c := testClient(srv.URL)
	_, err := c.Do(t.Context(), nil, attemptFor(c, srv.URL))
	apiErr, ok := errors.AsType[*llm.APIError](err)
	if !ok || apiErr.RetryAfter != time.Hour || n.Load() != 1 {
		t.Fatalf("err = %v after %d requests; want one request and RetryAfter 1h", err, n.Load())
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	c := testClient("http://127.0.0.1:1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"bad key sk-secret-key-1234"}}`)
	}))
	defer srv.Close()
	_, err := c.Do(t.Context(), nil, attemptFor(c, srv.URL))
	if err == nil || strings.Contains(err.Error(), c.Key) || !strings.Contains(err.Error(), "TEST_API_KEY") {
		t.Fatalf("err = %v; want the key redacted and its variable named", err)
	}
}

// TestRedactIsExact checks Redact's rule: a short key (a placeholder for
// a local server) is hidden only as a whole token, never inside a word,
// and a long one wherever it occurs.
func TestRedactIsExact(t *testing.T) {
	tests := []struct {
		name, key string
		err       error
		want      string
	}{
		{"a short key inside a word stays", "x", errors.New("script exhausted"), "script exhausted"},
		{"a short key as a token", "x", errors.New("key x was refused"), "key [redacted] was refused"},
		{"a short key in an API error", "x",
			&llm.APIError{Status: 401, Message: "script exhausted; bad key: x"},
			"model endpoint answered 401: script exhausted; bad key: [redacted]"},
		{"a short key in a transport error", "local",
			&llm.APIError{Err: errors.New("dial http://127.0.0.1:1/v1?key=local: connection refused (localhost)")},
			"model endpoint unreachable: dial http://127.0.0.1:1/v1?key=[redacted]: connection refused (localhost)"},
		{"a long key inside a word", "sk-secret-key-1234", errors.New("tokensk-secret-key-1234x"), "token[redacted]x"},
		{"no key", "", errors.New("x"), "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{Key: tt.key}
			if got := c.Redact(tt.err).Error(); got != tt.want {
				t.Errorf("Redact(%q) with key %q = %q, want %q", tt.err, tt.key, got, tt.want)
			}
		})
	}
	plain := errors.New("script exhausted")
	if got := (&Client{Key: "x"}).Redact(plain); got != plain {
		t.Errorf("Redact returned a new error %v for one without the key", got)
	}
}

func TestIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := testClient(srv.URL)
	c.Timeout, c.MaxRetries = 50*time.Millisecond, 0
	_, err := c.Do(t.Context(), nil, attemptFor(c, srv.URL))
	if err == nil || !strings.Contains(err.Error(), "no answer for 50ms") {
		t.Fatalf("err = %v, want the idle timeout", err)
	}
}

func TestCancelIsTheCallersError(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := testClient(srv.URL)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := c.Do(ctx, nil, attemptFor(c, srv.URL))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// readAll returns every event of an SSE body.
func readAll(r io.Reader) ([][2]string, error) {
	var out [][2]string
	s := NewSSEReader(r)
	for {
		ev, data, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, [2]string{ev, string(data)})
	}
}

func TestSSEReader(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       [][2]string
	}{
		{"lf", "event: a\ndata: 1\n\ndata: 2\n\n", [][2]string{{"a", "1"}, {"", "2"}}},
		{"crlf and cr", "event: a\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3", [][2]string{{"a", "1"}, {"", "2"}, {"", "3"}}},
		{"comments and multi-line data", ": ping\ndata: x\ndata: y\n\n", [][2]string{{"", "x\ny"}}},
		{"event without data is dropped", "event: ping\n\ndata:z\n\n", [][2]string{{"", "z"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
}

// FuzzSSEChunking checks that how the body is split into reads never
// changes the events read: the property every provider's stream relies on.
func FuzzSSEChunking(f *testing.F) {
	f.Add([]byte("event: a\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3"), uint64(1))
	f.Add([]byte(": ping\ndata: {\"x\":1}\n\n"), uint64(7))
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		whole, werr := readAll(bytes.NewReader(body))
		rng := rand.New(rand.NewPCG(seed, seed))
		var parts [][]byte
		for rest := body; len(rest) > 0; {
			n := 1 + rng.IntN(len(rest))
			parts = append(parts, rest[:n])
			rest = rest[n:]
		}
		split, serr := readAll(iotest.OneByteReader(io.MultiReader(readers(parts)...)))
		if (werr == nil) != (serr == nil) || len(whole) != len(split) {
			t.Fatalf("whole %q (%v), split %q (%v)", whole, werr, split, serr)
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("event %d: whole %q, split %q", i, whole[i], split[i])
			}
		}
	})
}

func readers(parts [][]byte) []io.Reader {
	out := make([]io.Reader, len(parts))
	for i, p := range parts {
		out[i] = bytes.NewReader(p)
	}
	return out
}

// FuzzErrorBody feeds arbitrary error bodies and headers to the error
// parsers: they must not panic, plain bodies are clipped, and waits are
// never negative.
func FuzzErrorBody(f *testing.F) {
	for _, s := range [][2]string{
		{`{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}`, "2"},
		{`{"error":"model not found"}`, "Wed, 21 Oct 2015 07:28:00 GMT"},
		{`{"error":"Not Found","message":"Cannot POST /x","status":404}`, "1.5"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "-1"},
		{`{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}`, "1e400"},
		{"<html>\xff</html>", "NaN"},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		msg := ErrorMessage(body)
		if len(msg) > 600 && !json.Valid(body) {
			t.Fatalf("message of %d bytes from a plain body; want it clipped", len(msg))
		}
		h := http.Header{}
		h.Set("Retry-After", header)
		h.Set("Retry-After-Ms", header)
		if d := RetryAfter(h, now); d < 0 {
			t.Fatalf("RetryAfter(%q) = %v", header, d)
		}
	})
}

func TestSendInspectSeesTheErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"quota","details":[{"retryDelay":"7s"}]}}`)
	}))
	defer srv.Close()
	c := testClient(srv.URL)
	c.MaxRetries = 0
	var seen string
	c.Inspect = func(e *llm.APIError, body []byte) {
		seen = string(body)
		e.RetryAfter = 7 * time.Second
	}
	_, err := c.Do(t.Context(), nil, attemptFor(c, srv.URL))
	apiErr, ok := errors.AsType[*llm.APIError](err)
	if !ok || apiErr.RetryAfter != 7*time.Second || !strings.Contains(seen, "retryDelay") {
		t.Fatalf("err = %v, body seen %q; want RetryAfter 7s set by Inspect", err, seen)
	}
}
