//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMCPStdioStopsOnSIGTERM starts wield mcp as an MCP client does, with
// a pipe for standard input that the client keeps open, and stops it
// with SIGTERM as a client or service manager would: wield must exit at
// once with status 0, though a read of its input is waiting (before
// PollStdin, nothing interrupted that read and wield never exited).
func TestMCPStdioStopsOnSIGTERM(t *testing.T) {
	cmd := exec.Command(wieldBinary(t), "--workdir", t.TempDir(), "--no-mcp", "mcp")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(out)
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`} {
		line, err := lines.ReadString('\n')
		if err != nil || !strings.Contains(line, want) {
			t.Fatalf("answer %q, %v; want %s (stderr: %s)", line, err, want, stderr.String())
		}
	}
	// Now wield waits for the next request.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("wield mcp after SIGTERM: %v (stderr: %s)", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("wield mcp still ran 30 s after SIGTERM, its input open (stderr: %s)", stderr.String())
	}
}
