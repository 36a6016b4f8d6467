package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/echo"
)

type waitInput struct {
	Steps int `json:"steps" jsonschema:"progress events to emit before waiting"`
}

// testTools returns echo, a tool that reports progress and then waits for
// cancellation, and a destructive one.
func testTools(t *testing.T, started chan<- struct{}) *tool.Registry {
	t.Helper()
	wait := tool.New(tool.Spec{Name: "wait", Description: "emits progress, then waits to be cancelled", Annotations: tool.Annotations{ReadOnly: true}},
		func(ctx context.Context, c *tool.Call, in waitInput) (tool.Result, error) {
			for i := range in.Steps {
				c.Emit(tool.Event{Message: "step", Progress: float64(i + 1), Total: float64(in.Steps)})
			}
			if in.Steps > 0 {
				return tool.Text("done"), nil
			}
			started <- struct{}{}
			<-ctx.Done()
			return tool.Failure("stopped"), nil
		})
	rm := tool.New(tool.Spec{Name: "rm", Description: "removes", Annotations: tool.Annotations{Destructive: true, OpenWorld: true},
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"removed":{"type":"integer"}},"required":["removed"]}`)},
		func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
			return tool.Result{Success: true, Output: "gone", Data: map[string]int{"removed": 1}}, nil
		})
	reg, err := tool.NewRegistry(echo.New(), wait, rm)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// connect serves srv in memory and returns a connected client session.
func connect(t *testing.T, srv *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// textOf returns the text the model reads: the first text content. (A
// structured result repeats its data as JSON in a second one.)
func textOf(r *sdk.CallToolResult) string {
	if r == nil {
		return ""
	}
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

func TestToolsListAndCall(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	ctx := t.Context()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	if len(byName) != 3 {
		t.Fatalf("tools/list = %d tools, want 3", len(list.Tools))
	}
	if a := byName["echo"].Annotations; !a.ReadOnlyHint || *a.DestructiveHint || *a.OpenWorldHint {
		t.Errorf("echo annotations = %+v, want read-only, not destructive, closed world", a)
	}
	if a := byName["rm"].Annotations; a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("rm annotations = %+v, want destructive, open world", a)
	}
	schema, _ := json.Marshal(byName["echo"].InputSchema)
	if !strings.Contains(string(schema), `"text"`) {
		t.Errorf("echo schema = %s", schema)
	}

	tests := []struct {
		name    string
		tool    string
		args    any
		isError bool
		want    []string
	}{
		{"valid", "echo", map[string]any{"text": "hi"}, false, []string{"hi"}},
		{"wrong type", "echo", map[string]any{"text": 5}, true, []string{"/text", "string"}},
		{"every violation", "echo", map[string]any{"extra": true}, true, []string{"text", "extra"}},
		{"no arguments", "echo", nil, true, []string{"text"}},
		{"structured", "rm", map[string]any{}, false, []string{"gone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: %v (invalid arguments must be a tool result, not a protocol error)", err)
			}
			if res.IsError != tt.isError {
				t.Errorf("isError = %v, want %v: %s", res.IsError, tt.isError, textOf(res))
			}
			for _, w := range tt.want {
				if !strings.Contains(textOf(res), w) {
					t.Errorf("result %q lacks %q", textOf(res), w)
				}
			}
		})
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "rm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"removed":1}` {
		t.Errorf("structuredContent = %s, want the tool's data", b)
	}
	// An unknown tool is a protocol error, as the spec says.
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
		t.Error("calling an unknown tool succeeded")
	}
}

func TestProgressAndCancellation(t *testing.T) {
	started := make(chan struct{}, 1)
	srv, err := NewServer(testTools(t, started), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan float64, 10)
	cs := connect(t, srv, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		progress <- r.Params.Progress
	}})
	p := &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"steps": 3}}
	p.SetProgressToken("tok")
	res, err := cs.CallTool(t.Context(), p)
	if err != nil || res.IsError {
		t.Fatalf("wait: %v %s", err, textOf(res))
	}
	// The client may handle notifications after the response; wait for
	// all three.
	var got []float64
	for range 3 {
		got = append(got, <-progress)
	}
	slices.Sort(got)
	if got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("progress = %v, want 1, 2, 3", got)
	}

	// Cancelling the client's request cancels the tool's context.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"steps": 0}})
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
	// The server keeps serving.
	if res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}}); err != nil || textOf(res) != "still here" {
		t.Errorf("after a cancellation: %v %v", res, err)
	}
}

func TestSessionRecording(t *testing.T) {
	store := &session.Store{Dir: t.TempDir(), Logger: quiet()}
	s, err := store.Create(session.Header{ID: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet(), Store: store, SessionID: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	for _, args := range []any{map[string]any{"text": "a"}, map[string]any{"text": 1}} {
		if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Load("mcp")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tr := range st.Turns {
		kinds = append(kinds, string(tr.Kind)+":"+tr.Status)
	}
	want := "function_calling: tool_response:succeeded function_calling: tool_response:failed"
	if strings.Join(kinds, " ") != want {
		t.Errorf("journal turns = %v, want %s", kinds, want)
	}
	if msgs := session.Messages(st.Turns); len(msgs) != 4 || msgs[0].ToolCalls[0].Name != "echo" {
		t.Errorf("recorded pairs do not read as call/result messages: %+v", msgs)
	}
}

func TestStdio(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), sr, sw) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over stdio"}})
	if err != nil || textOf(res) != "over stdio" {
		t.Fatalf("echo over stdio: %v %v", res, err)
	}
	// The client closing its end (EOF) ends the server cleanly.
	cs.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio after EOF: %v", err)
	}
}

func TestHTTP(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []HTTPOptions{{}, {JSONResponse: true}, {Stateless: true, JSONResponse: true}, {Token: "s3cret"}} {
		hs := httptest.NewServer(srv.HTTPHandler(&o))
		client := hs.Client()
		if o.Token != "" {
			// Without the token: refused.
			resp, err := client.Post(hs.URL, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("no token: status %d, want 401", resp.StatusCode)
			}
			client = &http.Client{Transport: bearer{o.Token, http.DefaultTransport}}
		}
		progress := make(chan float64, 10)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { progress <- r.Params.Progress },
		}).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: client}, nil)
		if err != nil {
			t.Fatalf("%+v: connect: %v", o, err)
		}
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over http"}})
		if err != nil || textOf(res) != "over http" {
			t.Errorf("%+v: echo: %v %v", o, res, err)
		}
		if !o.JSONResponse {
			// Progress comes on the call's event stream, before its answer.
			p := &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"steps": 3}}
			p.SetProgressToken("tok")
			if res, err := cs.CallTool(t.Context(), p); err != nil || res.IsError {
				t.Fatalf("%+v: wait: %v %s", o, err, textOf(res))
			}
			// The client may handle them after the answer, in any order.
			got := []float64{<-progress, <-progress, <-progress}
			slices.Sort(got)
			if !slices.Equal(got, []float64{1, 2, 3}) {
				t.Errorf("%+v: progress %v, want 1, 2, 3", o, got)
			}
		}
		cs.Close()
		hs.Close()
	}
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr   string
		remote bool
		token  string
		want   string
		is     error // the sentinel the error wraps, if any
	}{
		{"127.0.0.1:8080", false, "", "", nil},
		{"localhost:0", false, "", "", nil},
		{"[::1]:9", false, "", "", nil},
		{"0.0.0.0:8080", false, "", "not a loopback address", ErrNotLoopback},
		{"0.0.0.0:8080", true, "", "without a bearer token", ErrNoToken},
		{"0.0.0.0:8080", true, "t", "", nil},
		{"8080", false, "", "HOST:PORT", nil},
	}
	for _, tt := range tests {
		err := CheckListenAddr(tt.addr, tt.remote, tt.token)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckListenAddr(%q, %v, %q) = %v, want %q", tt.addr, tt.remote, tt.token, err, tt.want)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("CheckListenAddr(%q, %v, %q) = %v, want an error wrapping %v", tt.addr, tt.remote, tt.token, err, tt.is)
		}
		// The library names no command-line flags: cmd/wield adds them.
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("CheckListenAddr(%q, %v, %q) = %v, which names a flag", tt.addr, tt.remote, tt.token, err)
		}
	}
}

// TestStdioBadInput sends raw lines: malformed JSON, an oversized line, a
// call before initialize and requests right before EOF. Each gets an
// answer and the server keeps serving until the input ends.
func TestStdioBadInput(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	huge := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", MaxMessageBytes) + `"}}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`this is not json`,
		huge,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{}}`,
	}, "\n") + "\n"
	var out strings.Builder
	if err := srv.ServeStdio(t.Context(), io.NopCloser(strings.NewReader(in)), nopWriter{&out}); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	got := out.String()
	for _, want := range []string{
		`"id":1,"result":{`,
		`"protocolVersion":"2025-06-18"`,
		`{"jsonrpc":"2.0","error":{"code":-32700`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"message exceeds`,
		`"id":2,"result":{"content":[{"type":"text","text":"after"},`,
		`"id":3,"error":{`,
		`"id":4,"error":{"code":-32601`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	if strings.Contains(got, `"id":9`) {
		t.Error("the oversized call was run")
	}
	if t.Failed() {
		t.Logf("output:\n%.3000s", got)
	}
}

type nopWriter struct{ w io.Writer }

func (n nopWriter) Write(p []byte) (int, error) { return n.w.Write(p) }
func (nopWriter) Close() error                  { return nil }

func TestHTTPRefusesOtherOrigins(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(&HTTPOptions{JSONResponse: true}))
	defer hs.Close()
	host := strings.TrimPrefix(hs.URL, "http://")
	tests := []struct {
		name         string
		host, origin string
		fetchSite    string
		want         int
	}{
		{"no browser headers", "", "", "", http.StatusOK},
		{"same origin", "", "http://" + host, "", http.StatusOK},
		{"rebound host", "evil.example.com", "http://evil.example.com", "", http.StatusForbidden},
		{"other origin", "", "http://evil.example.com", "", http.StatusForbidden},
		{"cross-site fetch", "", "", "cross-site", http.StatusForbidden},
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.fetchSite != "" {
				req.Header.Set("Sec-Fetch-Site", tt.fetchSite)
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
		})
	}
}

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

// syncBuffer is a strings.Builder safe for one writer and waiting readers.
type syncBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	cond *sync.Cond
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cond == nil {
		s.cond = sync.NewCond(&s.mu)
	}
	s.b.Write(p)
	s.cond.Broadcast()
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor blocks until the output contains want (the test's timeout
// bounds it).
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cond == nil {
		s.cond = sync.NewCond(&s.mu)
	}
	for !strings.Contains(s.b.String(), want) {
		s.cond.Wait()
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
