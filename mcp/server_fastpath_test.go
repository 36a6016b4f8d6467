package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// TestStdioFastPath drives the stdio fast path with raw lines on a
// revision it speaks: progress notifications precede the answer, a
// cancelled call gets no answer, and unknown tools still get the SDK's
// error.
func TestStdioFastPath(t *testing.T) {
	started := make(chan struct{}, 1)
	srv, err := NewServer(testTools(t, started), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	var out syncBuffer
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(t.Context(), pr, nopWriter{&out}) }()
	send := func(line string) {
		if _, err := io.WriteString(pw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	out.waitFor(t, `"id":1,"result"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"steps":2},"_meta":{"progressToken":"p2"}}}`)
	out.waitFor(t, `"id":2,"result"`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{"steps":0}}}`)
	<-started
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":7}}}`)
	out.waitFor(t, `"id":5,"result"`)
	out.waitFor(t, `"id":4,"error"`)
	pw.Close()
	if err := <-served; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	got := out.String()
	p1 := strings.Index(got, `"message":"step","progress":1,`)
	p2 := strings.Index(got, `"message":"step","progress":2,`)
	r2 := strings.Index(got, `"id":2,"result"`)
	if p1 < 0 || p2 < p1 || r2 < p2 {
		t.Errorf("progress must precede the answer:\n%s", got)
	}
	if strings.Contains(got, `"id":3,`) {
		t.Errorf("the cancelled call was answered:\n%s", got)
	}
	if !strings.Contains(got, `"id":5,"result":{"content":[{"type":"text","text":"Error: invalid arguments`) || !strings.Contains(got, `"isError":true`) {
		t.Errorf("invalid arguments on the fast path:\n%s", got)
	}
}

// TestHTTPFastPath speaks raw streamable HTTP on 2025-11-25: a tools/call
// in a session the SDK created is answered as JSON; an unknown session and
// a foreign Host still get the SDK's refusals.
func TestHTTPFastPath(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for _, stateless := range []bool{false, true} {
		hs := httptest.NewServer(srv.HTTPHandler(&HTTPOptions{Stateless: stateless, JSONResponse: true}))
		post := func(session, host, body string) (*http.Response, string) {
			t.Helper()
			req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			if host != "" {
				req.Host = host
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp, string(b)
		}
		resp, body := post("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
			t.Fatalf("stateless=%v initialize: %d %s", stateless, resp.StatusCode, body)
		}
		session := resp.Header.Get("Mcp-Session-Id")
		if (session == "") != stateless {
			t.Fatalf("stateless=%v: session id %q", stateless, session)
		}
		post(session, "", `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		resp, body = post(session, "", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"fast"}}}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":"a","result":{"content":[{"type":"text","text":"fast"},`) {
			t.Errorf("stateless=%v tools/call: %d %s", stateless, resp.StatusCode, body)
		}
		resp, body = post(session, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":1}}}`)
		if !strings.Contains(body, `"isError":true`) || !strings.Contains(body, "want string") {
			t.Errorf("stateless=%v invalid arguments: %d %s", stateless, resp.StatusCode, body)
		}
		if !stateless {
			if resp, body := post("not-a-session", "", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); resp.StatusCode != http.StatusNotFound {
				t.Errorf("unknown session: %d %s, want the SDK's 404", resp.StatusCode, body)
			}
		}
		if resp, body := post(session, "evil.example:80", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); resp.StatusCode == http.StatusOK {
			t.Errorf("stateless=%v foreign Host answered: %s", stateless, body)
		}
		hs.Close()
	}
}

// ctxKey marks the context value TestFastPathContextFromRequest follows.
type ctxKey struct{}

// TestFastPathContextFromRequest checks that a call on either fast path
// runs under the context it arrived with: the HTTP request's (here with a
// value a middleware set), or the one ServeStdio was given.
func TestFastPathContextFromRequest(t *testing.T) {
	ctxTool := tool.New(tool.Spec{Name: "ctx", Description: "reports the context value", Annotations: tool.Annotations{ReadOnly: true}},
		func(ctx context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
			v, _ := ctx.Value(ctxKey{}).(string)
			return tool.Text("value=" + v), nil
		})
	reg, err := tool.NewRegistry(ctxTool)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(reg, &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ctx","arguments":{}}}`

	t.Run("http", func(t *testing.T) {
		h := srv.HTTPHandler(&HTTPOptions{Stateless: true, JSONResponse: true})
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, "request")))
		}))
		defer hs.Close()
		for _, body := range []string{initialize, call} {
			req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if body == call && !strings.Contains(string(got), `"text":"value=request"`) {
				t.Errorf("tools/call over HTTP = %s, want the request's context value", got)
			}
		}
	})
	t.Run("stdio", func(t *testing.T) {
		pr, pw := io.Pipe()
		var out syncBuffer
		served := make(chan error, 1)
		ctx := context.WithValue(t.Context(), ctxKey{}, "connection")
		go func() { served <- srv.ServeStdio(ctx, pr, nopWriter{&out}) }()
		for _, line := range []string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, call} {
			if _, err := io.WriteString(pw, line+"\n"); err != nil {
				t.Fatal(err)
			}
			if line == initialize {
				out.waitFor(t, `"id":1,"result"`)
			}
		}
		out.waitFor(t, `"id":2,"result"`)
		pw.Close()
		if err := <-served; err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		if got := out.String(); !strings.Contains(got, `"text":"value=connection"`) {
			t.Errorf("tools/call over stdio = %s, want the context value ServeStdio was given", got)
		}
	})
}
