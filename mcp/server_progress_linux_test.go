package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestShellProgressCarriesOutput calls run_shell_command with a progress
// token over the in-memory transport: each progress notification carries
// the output printed since the last one as its message, and the bytes
// printed so far as its progress. The command prints its second line only
// once the test has seen the first one's notification, so that the two
// arrive apart.
func TestShellProgressCarriesOutput(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	notes := make(chan *sdk.ProgressNotificationParams, 16)
	cs := connect(t, shellServer(t), &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { notes <- r.Params },
	})
	p := &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{
		"command": fmt.Sprintf("echo first line; read x < %s; echo second", gate),
	}}
	p.SetProgressToken("shell")
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), p)
		answered <- answer{res, err}
	}()
	next := func() *sdk.ProgressNotificationParams {
		t.Helper()
		select {
		case n := <-notes:
			return n
		case <-time.After(cancelWait):
			t.Fatalf("no progress notification within %v", cancelWait)
			return nil
		}
	}
	first := next()
	// Release the command: it prints its second line and ends.
	if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []*sdk.ProgressNotificationParams
	got = append(got, first)
	a := <-answered
	if a.err != nil || a.res.IsError {
		t.Fatalf("call: %v %s", a.err, textOf(a.res))
	}
	// The client may handle notifications after the answer: wait for the
	// output's.
	var text strings.Builder
	text.WriteString(first.Message)
	for !strings.Contains(text.String(), "second") {
		n := next()
		got = append(got, n)
		text.WriteString(n.Message)
	}
	if text.String() != "first line\nsecond\n" {
		t.Errorf("messages = %q, want the output", text.String())
	}
	if first.Message != "first line\n" || first.Progress != float64(len("first line\n")) {
		t.Errorf("first notification = %q at %v, want the first line at %d bytes", first.Message, first.Progress, len("first line\n"))
	}
	var bytes float64
	for i, n := range got {
		bytes += float64(len(n.Message))
		if n.Progress != bytes || n.ProgressToken != "shell" {
			t.Errorf("notification %d: progress %v (token %v), want %v bytes so far", i, n.Progress, n.ProgressToken, bytes)
		}
	}
}
