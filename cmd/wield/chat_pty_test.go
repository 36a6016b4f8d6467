package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// A ptyScreen is what a program wrote to its terminal; changed gets a
// value whenever more arrives.
type ptyScreen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (s *ptyScreen) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.buf.Write(p)
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

// text returns what was written, without escape sequences.
func (s *ptyScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.Strip(s.buf.String())
}

// waitFor waits until the screen has shown want, or fails the test after
// a deadline.
func (s *ptyScreen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for !strings.Contains(s.text(), want) {
		select {
		case <-s.changed:
		case <-deadline.C:
			t.Fatalf("the screen never showed %q; it shows:\n%s", want, s.text())
		}
	}
}

// startPTY starts cmd in a pseudo-terminal of rows and cols, and copies
// what it writes to screen until the terminal closes (then copied is
// closed). The caller closes tty.
func startPTY(t *testing.T, cmd *exec.Cmd, rows, cols uint16) (tty *os.File, screen *ptyScreen, copied <-chan struct{}) {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	screen = &ptyScreen{changed: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return tty, screen, done
}

// wieldBinary returns a path that runs wield: the test binary, which is
// wield when it is called wield (see TestMain).
func wieldBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "wield")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestVersionDoesNotQueryTheTerminal runs wield --version at a terminal
// that never answers: it must neither ask the terminal anything (as
// bubbletea v1's init did, for the background colour, waiting up to 5
// seconds for the answer) nor wait.
func TestVersionDoesNotQueryTheTerminal(t *testing.T) {
	cmd := exec.Command(wieldBinary(t), "--version")
	// Under -race, a program sleeps a second before it exits (to let
	// goroutines report races) unless told not to.
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	read := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(tty) // ends with EIO once wield has exited
		read <- b
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("wield --version: %v", err)
		}
	case <-time.After(time.Second):
		cmd.Process.Kill()
		<-exited
		t.Errorf("wield --version at a terminal that does not answer took over a second")
	}
	var out []byte
	select {
	case out = <-read:
	case <-time.After(30 * time.Second):
		t.Fatalf("the terminal stayed open after wield --version exited")
	}
	if bytes.ContainsRune(out, '\x1b') || !bytes.Contains(out, []byte("wield")) {
		t.Errorf("wield --version wrote %q to the terminal, want its version and no escape sequence", out)
	}
}

// TestChatAtATerminal runs wield chat in a pseudo-terminal: a
// task is typed, the edit it makes is approved with y, the reply shows,
// Ctrl-C twice ends the chat with the session kept, and the session goes
// on in a later chat.
func TestChatAtATerminal(t *testing.T) {
	ws := testWorkspace(t)
	bin := wieldBinary(t)
	script := `{"turn": 1, "round": 1, "text": "I will write it.", "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}], "usage": {"input_tokens": 1200, "output_tokens": 30}}
{"turn": 1, "round": 2, "text": "Wrote **hello.txt**.", "usage": {"input_tokens": 1300, "output_tokens": 10}}
{"turn": 2, "round": 1, "text": "Still here: the file is hello.txt."}
`
	if err := os.WriteFile(filepath.Join(ws, "script.jsonl"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "chat", "--replay", "script.jsonl", "--new", "--session", "pty1")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm-256color")
	tty, screen, copied := startPTY(t, cmd, 30, 100)
	defer tty.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	screen.waitFor(t, "Ask wield, or /help")
	// The task is typed and sent at once: the screen redraws only the
	// cells that change, so the input as typed need not show whole in
	// its output; the task does once sent, printed above the screen.
	tty.WriteString("write hello.txt\r")
	screen.waitFor(t, "> write hello.txt")
	screen.waitFor(t, "wield wants to call")
	screen.waitFor(t, "y yes")
	tty.WriteString("y")
	screen.waitFor(t, "Wrote hello.txt.") // rendered: the Markdown was "Wrote **hello.txt**."
	screen.waitFor(t, "2,500 tokens in")
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("hello.txt = %q, %v; want the approved write", b, err)
	}
	tty.WriteString("\x03")
	screen.waitFor(t, "Ctrl-C again to quit")
	tty.WriteString("\x03")
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("wield chat ended with %v; the screen shows:\n%s", err, screen.text())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("wield chat did not end after Ctrl-C twice; the screen shows:\n%s", screen.text())
	}
	tty.Close()
	<-copied
	if !strings.Contains(screen.text(), "resume it with: wield chat --resume pty1") {
		t.Errorf("no resume hint at the end; the screen shows:\n%s", screen.text())
	}
	t.Logf("the screen:\n%s", screen.text())

	// The session goes on: the second task is the session's second turn.
	again := exec.Command(bin, "chat", "--replay", "script.jsonl", "--resume", "pty1")
	again.Dir = ws
	again.Env = cmd.Env
	again.Stdin = strings.NewReader("and now?\n")
	out, err := again.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Still here: the file is hello.txt.") {
		t.Errorf("resumed chat: %v\n%s", err, out)
	}
}
