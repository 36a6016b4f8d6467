package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/shell"
)

// cancelWait bounds each wait of the cancellation tests: for the command
// to start, for its processes to be gone, for an answer.
const cancelWait = 20 * time.Second

// shellServer returns a server of run_shell_command in a fresh workspace.
func shellServer(t *testing.T) *Server {
	t.Helper()
	reg, err := tool.NewRegistry(shell.NewRunShellCommand(shell.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	srv, err := NewServer(reg, &ServerOptions{Root: root, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// longCommand is a command that tells the test it started, through a
// FIFO, then sleeps for a duration no other process on the machine sleeps
// for: the marker that finds its processes in /proc.
type longCommand struct {
	fifo, marker string
}

func newLongCommand(t *testing.T) longCommand {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return longCommand{fifo: fifo, marker: fmt.Sprintf("3000.%09d", rand.Int64N(1e9))}
}

// args returns run_shell_command's arguments, as JSON. The command goes
// on after sleep, so that bash stays, holding the marker too.
func (c longCommand) args() string {
	return fmt.Sprintf(`{"command":"echo started > %s; sleep %s; echo never"}`, c.fifo, c.marker)
}

// started waits until the command has written to the FIFO, and returns
// pidfds of the processes that hold the marker.
func (c longCommand) started(t *testing.T) []int {
	t.Helper()
	opened := make(chan error, 1)
	go func() {
		f, err := os.Open(c.fifo) // blocks until the command opens it
		if err == nil {
			_, err = io.ReadAll(f)
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(cancelWait):
		t.Fatalf("the command did not start within %v", cancelWait)
	}
	fds := ownProcesses(t, c.marker)
	if len(fds) == 0 {
		t.Fatalf("no process of ours runs sleep %s", c.marker)
	}
	return fds
}

// ownProcesses returns pidfds of this process's descendants whose command
// line holds marker.
func ownProcesses(t *testing.T, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	var fds []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) || !descends(pid, self) {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		t.Cleanup(func() { unix.Close(fd) })
		fds = append(fds, fd)
	}
	return fds
}

// descends reports whether pid is a descendant of ancestor.
func descends(pid, ancestor int) bool {
	for range 64 {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return false
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(fields[1])
		if err != nil || ppid <= 1 {
			return false
		}
		if ppid == ancestor {
			return true
		}
		pid = ppid
	}
	return false
}

// waitGone waits, up to cancelWait, until every process of fds has ended.
func waitGone(t *testing.T, fds []int) {
	t.Helper()
	deadline := time.Now().Add(cancelWait)
	for _, fd := range fds {
		for {
			ms := int(time.Until(deadline).Milliseconds())
			if ms <= 0 {
				t.Fatalf("the command's processes still run %v after the cancellation", cancelWait)
			}
			// A pidfd becomes readable when its process ends.
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				break
			}
		}
	}
}

// TestHTTPCancelStopsCommand cancels a run_shell_command over streamable
// HTTP with notifications/cancelled, for a call answered with JSON and for
// one that asked for progress (answered with an event stream): the
// command's processes are killed, the call's request ends without a
// response, and the session goes on.
func TestHTTPCancelStopsCommand(t *testing.T) {
	for _, tt := range []struct{ name, meta string }{
		{"json", ""},
		{"event stream", `"_meta":{"progressToken":"p7"},`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(shellServer(t).HTTPHandler(nil))
			defer hs.Close()
			testHTTPCancel(t, hs, tt.meta)
		})
	}
}

func testHTTPCancel(t *testing.T, hs *httptest.Server, meta string) {
	post := func(session, body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL, strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Error(err)
		}
		return resp, string(b)
	}
	resp, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %v %s", resp, body)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)

	cmd := newLongCommand(t)
	type answer struct {
		resp *http.Response
		body string
	}
	answered := make(chan answer, 1)
	go func() {
		resp, body := post(session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`+meta+`"name":"run_shell_command","arguments":`+cmd.args()+`}}`)
		answered <- answer{resp, body}
	}()
	fds := cmd.started(t)
	resp, body = post(session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	if resp == nil || resp.StatusCode != http.StatusAccepted {
		t.Errorf("notifications/cancelled: %v %q, want 202", resp, body)
	}
	waitGone(t, fds)
	select {
	case a := <-answered:
		if a.resp == nil {
			t.Fatal("the call's request failed")
		}
		if strings.Contains(a.body, `"id":7`) || strings.Contains(a.body, "data:") {
			t.Errorf("the cancelled call was answered: %d %q", a.resp.StatusCode, a.body)
		}
	case <-time.After(cancelWait):
		t.Fatalf("the cancelled call's request did not end within %v", cancelWait)
	}
	resp, body = post(session, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{`+meta+`"name":"run_shell_command","arguments":{"command":"echo next"}}}`)
	if resp == nil || !strings.Contains(body, `"id":8,"result"`) || !strings.Contains(body, "next") {
		t.Errorf("the next call: %v %s", resp, body)
	}
}

// TestStdioCancelStopsCommand does the same over stdio: the command's
// processes are killed, the next call is answered and the cancelled one
// never is.
func TestStdioCancelStopsCommand(t *testing.T) {
	srv := shellServer(t)
	pr, pw := io.Pipe()
	var out syncBuffer
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(t.Context(), pr, nopWriter{&out}) }()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(pw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	out.waitFor(t, `"id":1,"result"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	cmd := newLongCommand(t)
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_shell_command","arguments":` + cmd.args() + `}}`)
	fds := cmd.started(t)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	waitGone(t, fds)
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"run_shell_command","arguments":{"command":"echo next"}}}`)
	out.waitFor(t, `"id":8,"result"`)
	pw.Close()
	if err := <-served; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	if got := out.String(); strings.Contains(got, `"id":7`) {
		t.Errorf("the cancelled call was answered:\n%s", got)
	}
}
