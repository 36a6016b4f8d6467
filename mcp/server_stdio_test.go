package mcp

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

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

func (nopWriter) Close() error { return nil }

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
