package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

// A vtTerminal is a terminal emulator a program runs in through a
// pseudo-terminal: what the program writes is drawn on its screen, lines
// scrolled off the top go to its scrollback, and its answers to the
// program's queries go back to the program, as a terminal's do.
type vtTerminal struct {
	tty *os.File
	// mu guards emu, which the reading goroutine writes; changed gets a
	// value whenever the program has written more.
	mu      sync.Mutex
	emu     *vt.Emulator
	changed chan struct{}
	closed  chan struct{} // closed once the program's side of the terminal is gone
}

// startVT starts cmd in a terminal of cols×rows.
func startVT(t *testing.T, cmd *exec.Cmd, cols, rows int) *vtTerminal {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatal(err)
	}
	term := &vtTerminal{tty: tty, emu: vt.NewEmulator(cols, rows), changed: make(chan struct{}, 1), closed: make(chan struct{})}
	term.emu.SetScrollbackSize(100000)
	go func() {
		defer close(term.closed)
		buf := make([]byte, 32*1024)
		for {
			n, err := tty.Read(buf)
			if n > 0 {
				term.mu.Lock()
				term.emu.Write(buf[:n])
				term.mu.Unlock()
				select {
				case term.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	// The terminal's answers (to queries of its modes, say) go back to
	// the program; the copy ends when the emulator is closed.
	go io.Copy(tty, term.emu)
	t.Cleanup(func() {
		tty.Close()
		term.emu.Close()
	})
	return term
}

// lines returns the scrollback's lines, oldest first, and the screen's,
// top to bottom, with the spaces at their ends trimmed.
func (term *vtTerminal) lines() (scrollback, screen []string) {
	term.mu.Lock()
	defer term.mu.Unlock()
	for _, l := range term.emu.Scrollback().Lines() {
		scrollback = append(scrollback, strings.TrimRight(l.String(), " "))
	}
	for y := range term.emu.Height() {
		var b strings.Builder
		for x := 0; x < term.emu.Width(); x++ {
			c := term.emu.CellAt(x, y)
			switch {
			case c == nil:
			case c.Content == "" && c.Width == 0:
				// The second column of a wide character.
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		screen = append(screen, strings.TrimRight(b.String(), " "))
	}
	return scrollback, screen
}

// text returns the scrollback and the screen as text, a rule between them.
func (term *vtTerminal) text() string {
	sb, scr := term.lines()
	return strings.Join(sb, "\n") + "\n----- screen -----\n" + strings.Join(scr, "\n")
}

// waitFor waits until the terminal shows want, in its scrollback or on
// its screen, or fails the test after a deadline.
func (term *vtTerminal) waitFor(t *testing.T, want string) {
	t.Helper()
	term.waitUntil(t, fmt.Sprintf("%q", want), func(all string) bool { return strings.Contains(all, want) })
}

// waitUntil waits until shows is true of the terminal's scrollback and
// screen, as text, or fails the test after a deadline; what describes
// what is waited for.
func (term *vtTerminal) waitUntil(t *testing.T, what string, shows func(all string) bool) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		sb, scr := term.lines()
		if shows(strings.Join(sb, "\n") + "\n" + strings.Join(scr, "\n")) {
			return
		}
		select {
		case <-term.changed:
		case <-term.closed:
			t.Fatalf("the program ended before the terminal showed %s; it shows:\n%s", what, term.text())
		case <-deadline.C:
			t.Fatalf("the terminal never showed %s; it shows:\n%s", what, term.text())
		}
	}
}

// longAnswer returns a Markdown answer of n lines (n at least 3): a
// heading, paragraphs, lists, a table and code blocks, each line but the
// blank ones, the table's rule and the fences tagged L001, L002, ... so
// that each can be found once rendered, and ending in LAST LINE MARKER.
func longAnswer(n int) string {
	tag := 0
	tagged := func(format string) string {
		tag++
		return fmt.Sprintf(format, fmt.Sprintf("L%03d", tag))
	}
	lines := []string{tagged("# Report %s")}
	for kind := 0; ; kind++ {
		before := tag
		var group []string
		switch kind % 5 {
		case 0:
			group = append(group, "")
			for range 4 {
				group = append(group, tagged("- an item %s of a list"))
			}
		case 1:
			group = append(group, "", tagged("| name %s | kind | size |"), "|---|---|--:|")
			for range 4 {
				group = append(group, tagged("| cell %s | file | 12 |"))
			}
		case 2:
			group = append(group, "", "```go")
			for range 4 {
				group = append(group, tagged(`fmt.Println("%s")`))
			}
			group = append(group, "```")
		case 3:
			group = append(group, "")
			for i := range 4 {
				group = append(group, tagged(fmt.Sprintf("%d. a step %%s in order", i+1)))
			}
		default:
			group = append(group, "", tagged("A paragraph %s on its own."))
		}
		if len(lines)+len(group) > n-2 {
			tag = before
			break
		}
		lines = append(lines, group...)
	}
	for len(lines) < n-3 {
		lines = append(lines, "", tagged("A paragraph %s to fill."))
	}
	if len(lines) < n-2 {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, "", "LAST LINE MARKER"), "\n")
}

// TestChatLongAnswerAtATerminal runs wield chat in a terminal emulator
// at three sizes against a model that streams, word by word, an answer
// far taller than the screen, then asks to run a 300-character command.
// Every line of the answer, rendered, is in the terminal (its scrollback
// and its screen) exactly as often as in the rendering, the raw text
// that streamed nowhere; then the whole command shows.
func TestChatLongAnswerAtATerminal(t *testing.T) {
	answer := longAnswer(300)
	command := "curl -fsSL https://downloads.example.com/releases/" + strings.Repeat("nightly/", 25) + "install.sh --output /tmp/install.sh --retry 3 | sh"
	if len(command) != 300 {
		t.Fatalf("the command has %d characters, want 300", len(command))
	}
	entries := []replay.Entry{
		{Turn: 1, Round: 1, Text: answer, Usage: llm.Usage{InputTokens: 1234, OutputTokens: 5678}},
		{Turn: 2, Round: 1, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "run_shell_command", Arguments: mustJSON(t, map[string]string{"command": command})}},
			Usage: llm.Usage{InputTokens: 2000, OutputTokens: 10}},
		{Turn: 2, Round: 2, Text: "Not installed.", Usage: llm.Usage{InputTokens: 2100, OutputTokens: 5}},
	}
	for _, size := range []struct{ cols, rows int }{{80, 24}, {100, 30}, {120, 80}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			srv := openaitest.NewServer(t, entries)
			ws := testWorkspace(t)
			cmd := exec.Command(wieldBinary(t), "chat", "--model", "openai:gpt-4.1-mini", "--base-url", srv.URL, "--new", "--session", "long")
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm-256color", "OPENAI_API_KEY=", "WIELD_MODEL=", "GORACE=atexit_sleep_ms=0")
			term := startVT(t, cmd, size.cols, size.rows)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()

			term.waitFor(t, "Ask wield, or /help")
			term.tty.WriteString("write the report\r")
			term.waitFor(t, "1 round, 1,234 tokens in")
			sb, scr := term.lines()
			shown := make(map[string]int)
			for _, l := range append(sb, scr...) {
				shown[l]++
			}
			want := make(map[string]int)
			rendered := (&markdownRenderer{}).render(answer, size.cols-1)
			for _, l := range strings.Split(rendered, "\n") {
				if strings.TrimSpace(l) != "" {
					want[l]++
				}
			}
			for l, n := range want {
				if shown[l] != n {
					t.Errorf("the answer's line %q is in the terminal %d times, want %d", l, shown[l], n)
				}
			}
			// The text as it streamed (its list markers, its pipes and
			// fences) is nowhere: the live area was never scrolled into
			// the scrollback.
			for _, raw := range []string{"- an item", "| cell", "```"} {
				for _, l := range append(sb, scr...) {
					if strings.Contains(l, raw) {
						t.Errorf("the terminal has a line of the raw answer: %q", l)
					}
				}
			}
			if t.Failed() {
				t.Fatalf("the terminal:\n%s", term.text())
			}
			if size.cols == 100 {
				t.Logf("the long answer at 100×30:\n%s", term.text())
			}

			term.tty.WriteString("install it\r")
			term.waitFor(t, "y yes")
			// At 80×24 what the call will do is printed above the screen,
			// which keeps the call's line and the answers.
			term.waitUntil(t, "the whole command", func(all string) bool {
				return strings.Contains(squeeze(all), squeeze("$ "+command))
			})
			if size.cols == 100 {
				t.Logf("the approval at 100×30:\n%s", term.text())
			}
			term.tty.WriteString("n")
			term.waitFor(t, "Not installed.")
			term.tty.WriteString("\x03")
			term.waitFor(t, "Ctrl-C again to quit")
			term.tty.WriteString("\x03")
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("wield chat ended with %v; the terminal shows:\n%s", err, term.text())
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("wield chat did not end after Ctrl-C twice; the terminal shows:\n%s", term.text())
			}
		})
	}
}

// squeeze returns s without its white space: a wrapped line joined.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
