package mcp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/tool"
)

// blockedBuild returns a build function that waits for release and then
// returns reg and err, and a channel closed when it has been called.
func blockedBuild(reg *tool.Registry, err error) (build func(context.Context) (*tool.Registry, error), called <-chan struct{}, release chan<- struct{}) {
	c, r := make(chan struct{}), make(chan struct{})
	return func(ctx context.Context) (*tool.Registry, error) {
		close(c)
		select {
		case <-r:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return reg, err
	}, c, r
}

// TestBuildServerStdio checks that a server whose tools are still being
// built answers initialize and ping, holds tools/list and tools/call
// until they are in place, and then answers them; with the official
// go-sdk client.
func TestBuildServerStdio(t *testing.T) {
	build, _, release := blockedBuild(testTools(t, nil), nil)
	srv := BuildServer(t.Context(), build, &ServerOptions{Logger: quiet()})
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), sr, sw) }()

	// The handshake completes while the build cannot have finished.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want tools without listChanged (the list never changes)", caps.Tools)
	}
	if err := cs.Ping(t.Context(), nil); err != nil {
		t.Fatalf("ping while building: %v", err)
	}

	// Asked before the tools are in place, the list still has them.
	listed := make(chan []string, 1)
	go func() {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Errorf("tools/list: %v", err)
		}
		var names []string
		if res != nil {
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
		}
		listed <- names
	}()
	called := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "held"}})
		if err != nil {
			t.Errorf("tools/call: %v", err)
		}
		called <- res
	}()
	close(release)
	if names := <-listed; !slices.Contains(names, "echo") {
		t.Errorf("tools/list sent during the build = %v, want the built tools", names)
	}
	if res := <-called; textOf(res) != "held" {
		t.Errorf("tools/call sent during the build = %v, want the echo", res)
	}
	if err := srv.Ready(t.Context()); err != nil {
		t.Errorf("Ready = %v", err)
	}
	cs.Close()
	if err := <-served; err != nil {
		t.Errorf("ServeStdio after EOF: %v", err)
	}
}

// TestBuildServerStdioFails checks that a failed build, after the
// handshake was answered, ends ServeStdio with the build's error, and
// that a request waiting for the tools is not answered with an empty
// list.
func TestBuildServerStdioFails(t *testing.T) {
	boom := errors.New("no tools today")
	build, _, release := blockedBuild(nil, boom)
	srv := BuildServer(t.Context(), build, &ServerOptions{Logger: quiet()})
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), sr, sw) }()

	lines := bufio.NewReader(cr)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(cw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer, err := lines.ReadString('\n')
	if err != nil || !strings.Contains(answer, `"protocolVersion"`) {
		t.Fatalf("initialize answer = %q, %v", answer, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	close(release)
	if err := <-served; !errors.Is(err, boom) {
		t.Errorf("ServeStdio = %v, want the build's error", err)
	}
	if err := srv.Ready(t.Context()); !errors.Is(err, boom) {
		t.Errorf("Ready = %v, want the build's error", err)
	}
	cw.Close()
	rest, _ := io.ReadAll(lines)
	if strings.Contains(string(rest), `"tools"`) {
		t.Errorf("after the failed build the client got %s, want no tool list", rest)
	}
}

// TestBuildServerHTTP checks the HTTP handler: requests wait for the
// build and then work; a failed build is 503 with its error.
func TestBuildServerHTTP(t *testing.T) {
	t.Run("built", func(t *testing.T) {
		build, called, release := blockedBuild(testTools(t, nil), nil)
		srv := BuildServer(t.Context(), build, &ServerOptions{Logger: quiet()})
		hs := httptest.NewServer(srv.HTTPHandler(nil))
		defer hs.Close()
		<-called
		go close(release)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over http"}})
		if err != nil || textOf(res) != "over http" {
			t.Fatalf("echo over HTTP: %v %v", res, err)
		}
	})
	t.Run("failed", func(t *testing.T) {
		build, _, release := blockedBuild(nil, errors.New("no tools today"))
		srv := BuildServer(t.Context(), build, &ServerOptions{Logger: quiet()})
		hs := httptest.NewServer(srv.HTTPHandler(nil))
		defer hs.Close()
		close(release)
		resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "no tools today") {
			t.Errorf("after a failed build: %d %s, want 503 with the build's error", resp.StatusCode, body)
		}
	})
}

// TestBuildServerCancelled checks that a build ended by its context is
// reported, and that Ready honours its own context.
func TestBuildServerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	build, called, _ := blockedBuild(nil, nil)
	srv := BuildServer(ctx, build, nil)
	<-called
	short, stop := context.WithCancel(t.Context())
	stop()
	if err := srv.Ready(short); !errors.Is(err, context.Canceled) {
		t.Errorf("Ready with a done context = %v, want context.Canceled", err)
	}
	cancel()
	if err := srv.Ready(t.Context()); !errors.Is(err, context.Canceled) {
		t.Errorf("Ready after the build's context ended = %v, want context.Canceled", err)
	}
}
