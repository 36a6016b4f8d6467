package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
	"github.com/wieldhq/wield/tools/fs"
)

// A chatHarness runs the chat's screen under teatest against a scripted
// model, on an 80×24 screen without colours.
type chatHarness struct {
	t     *testing.T
	ws    string
	tm    *teatest.TestModel
	clock *fakeClock
	// changed gets a value when the program has taken a message in
	// (other than a probe); seen is how many of the printed lines a
	// waitFor has already looked at.
	changed chan struct{}
	seen    int
}

// A probeMsg asks the program for what the person sees: it is answered
// by the harness's filter, on the program's goroutine, and never reaches
// the model.
type probeMsg struct{ reply chan<- shown }

// shown is what the screen shows: what it printed and its view.
type shown struct {
	printed []string
	screen  string
}

// A fakeClock is the screen's clock in tests: it moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// startChat starts a chat in a new workspace whose model plays script;
// extra edits the flags.
func startChat(t *testing.T, script string, extra func(*runFlags)) *chatHarness {
	t.Helper()
	ws := testWorkspace(t)
	if err := os.WriteFile(filepath.Join(ws, "script.jsonl"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var sink bytes.Buffer
	g := &globals{workdir: ws, stdin: strings.NewReader(""), stdout: &sink, stderr: &sink}
	f := &runFlags{replay: filepath.Join(ws, "script.jsonl"), sessionID: "chat1", newSess: true}
	if extra != nil {
		extra(f)
	}
	screen := &chatScreen{}
	f.screen = screen
	ctx := t.Context()
	env, err := g.setupRun(ctx, f, "", screen.event)
	if err != nil {
		t.Fatal(err)
	}
	f.sessionID, f.newSess = env.session.ID(), false
	c := &chat{g: g, f: f, env: env, screen: screen,
		roundContext: func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }}
	m := newChatModel(c, false)
	clock := &fakeClock{t: time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)}
	m.now = clock.now
	changed := make(chan struct{}, 1)
	filter := func(model tea.Model, msg tea.Msg) tea.Msg {
		if p, ok := msg.(probeMsg); ok {
			m := model.(*chatModel)
			p.reply <- shown{slices.Concat(m.printed, m.queue), screenOf(m)}
			return nil
		}
		select {
		case changed <- struct{}{}:
		default:
		}
		return msg
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24), teatest.WithProgramOptions(tea.WithFilter(filter)))
	screen.send = tm.Send
	g.stdout, g.stderr = screenWriter{tm.Send}, screenWriter{tm.Send}
	t.Cleanup(func() { env.close() })
	return &chatHarness{t: t, ws: ws, tm: tm, clock: clock, changed: changed}
}

// waitFor waits until the screen shows want, in what it printed since
// the last waitFor or in its view. It asks the program rather than
// reading the terminal's output, where the renderer writes only the
// cells that change.
func (h *chatHarness) waitFor(want string) {
	h.t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		reply := make(chan shown, 1)
		h.tm.Send(probeMsg{reply})
		var s shown
		select {
		case s = <-reply:
		case <-deadline.C:
			h.t.Fatalf("the screen never showed %q: the program does not answer", want)
		}
		text := strings.Join(s.printed[min(h.seen, len(s.printed)):], "\n") + "\n" + s.screen
		if strings.Contains(text, want) {
			h.seen = len(s.printed)
			return
		}
		select {
		case <-h.changed:
		case <-deadline.C:
			h.t.Fatalf("the screen never showed %q; it shows:\n%s", want, text)
		}
	}
}

// typeLine types s and presses Enter.
func (h *chatHarness) typeLine(s string) {
	h.tm.Type(s)
	h.tm.Send(keyEnter)
}

func (h *chatHarness) key(k tea.KeyPressMsg) { h.tm.Send(k) }

// The keys the tests press.
var (
	keyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	keyEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	keyTab   = tea.KeyPressMsg{Code: tea.KeyTab}
	keyUp    = tea.KeyPressMsg{Code: tea.KeyUp}
	keyDown  = tea.KeyPressMsg{Code: tea.KeyDown}
	keyCtrlC = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	keyCtrlU = tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
)

// runes is s typed as one key press, as a terminal may send it.
func runes(s string) tea.KeyPressMsg {
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// screenOf returns what m's View draws.
func screenOf(m *chatModel) string {
	s, _ := m.screen()
	return s
}

// quit presses Ctrl-C twice and returns the screen as it ended.
func (h *chatHarness) quit() *chatModel {
	h.t.Helper()
	h.key(keyCtrlC)
	h.key(keyCtrlC)
	return h.tm.FinalModel(h.t, teatest.WithFinalTimeout(30*time.Second)).(*chatModel)
}

// transcriptNoise is what varies between runs: durations, session ids
// made up by the store, ages.
var transcriptNoise = []struct {
	re   *regexp.Regexp
	with string
}{
	{durations, "(…)"},
	{regexp.MustCompile(`\d{8}-\d{6}-[0-9a-f]{6}`), "<session>"},
	{regexp.MustCompile(`(?m)^(\*| ) (\S+)\s+\d+[smhd]  `), "$1 $2  <age>  "},
}

// transcript is what the chat printed, then its screen as it ended, with
// what varies between runs replaced.
func transcript(m *chatModel) string {
	return steady(strings.Join(slices.Concat(m.printed, m.queue), "\n") + "\n----- screen -----\n" + screenOf(m) + "\n")
}

// steady replaces in s what varies between runs, and drops the spaces
// that pad its lines to the screen's width.
func steady(s string) string {
	for _, n := range transcriptNoise {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return trimLines(s) + "\n"
}

const readScript = `{"round": 1, "text": "Let me **read** it.", "tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "main.go"}}], "usage": {"input_tokens": 1000, "output_tokens": 20}}
{"round": 2, "text": "# Found it\n\n` + "`main.go`" + ` prints *hi*:\n\n- one function\n- one call", "usage": {"input_tokens": 1100, "output_tokens": 30}}
`

// TestChatScreen_Task is a task whose answer streams in, with a tool
// call between its two messages, each rendered as Markdown when done.
func TestChatScreen_Task(t *testing.T) {
	h := startChat(t, readScript, nil)
	h.typeLine("what does main.go print?")
	h.waitFor("2,100 tokens in")
	golden(t, "chat_task.txt", transcript(h.quit()))
}

// TestChatScreen_Streaming shows the text of a message plain while it
// streams, and as Markdown in the transcript once the round ends.
func TestChatScreen_Streaming(t *testing.T) {
	m := screenByHand(t)
	m.running = true
	for _, d := range []string{"# Plan\n\nFirst **read", "** the file,\n", "then `edit` it."} {
		m.Update(eventMsg{agent.Event{Kind: agent.EventText, Text: d}})
	}
	mid := screenOf(m)
	m.Update(eventMsg{agent.Event{Kind: agent.EventRoundFinished, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 5}}})
	golden(t, "chat_streaming.txt", steady("----- streaming -----\n"+mid+"\n")+transcript(m))
}

const writeScript = `{"round": 1, "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "notes.txt", "content": "one\ntwo\n"}}]}
{"round": 2, "text": "Done."}
`

// TestChatScreen_Approval answers a call that asks: y runs it, n does
// not, e says why not, and the model reads the reason.
func TestChatScreen_Approval(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer []string // typed after the question shows
		file   bool     // whether notes.txt is written
		reason string   // in the call's result
	}{
		{"yes", []string{"y"}, true, ""},
		{"no", []string{"n"}, false, "the user denied this call"},
		{"explain", []string{"e", "use the existing file\r"}, false, "the user denied this call: use the existing file"},
		{"always", []string{"a"}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startChat(t, writeScript, nil)
			h.typeLine("take notes")
			h.waitFor("y yes")
			for _, a := range tc.answer {
				if strings.HasSuffix(a, "\r") {
					h.typeLine(strings.TrimSuffix(a, "\r"))
				} else {
					h.tm.Type(a)
				}
			}
			h.waitFor("Done.")
			m := h.quit()
			_, err := os.Stat(filepath.Join(h.ws, "notes.txt"))
			if written := err == nil; written != tc.file {
				t.Errorf("notes.txt written: %v, want %v", written, tc.file)
			}
			journal, err := os.ReadFile(filepath.Join(h.ws, ".wield", "sessions", "chat1.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.reason != "" && !strings.Contains(string(journal), tc.reason) {
				t.Errorf("the journal does not give the model the reason %q", tc.reason)
			}
			golden(t, "chat_approval_"+tc.name+".txt", transcript(m))
		})
	}
}

// TestChatScreen_Esc cancels a running task: the shell command is
// stopped, its call gets its result, and the chat goes on.
func TestChatScreen_Esc(t *testing.T) {
	script := `{"turn": 1, "round": 1, "tool_calls": [{"id": "s1", "name": "run_shell_command", "arguments": {"command": "echo > started.fifo; sleep 60"}}]}
{"turn": 1, "round": 2, "text": "never"}
{"turn": 2, "round": 1, "text": "Back."}
`
	h := startChat(t, script, func(f *runFlags) { f.mode = "yolo" })
	// The command opens the FIFO once it runs; Esc comes after that, so
	// the call is stopped while it runs, never before it starts.
	fifo := filepath.Join(h.ws, "started.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	h.typeLine("wait a minute")
	started := make(chan error, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the command opens it to write
		if err == nil {
			_, err = io.Copy(io.Discard, f)
			f.Close()
		}
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the command never started")
	}
	h.waitFor("1 tool running")
	h.key(keyEsc)
	// The run's own ending, not the call's result, which says
	// "cancelled" first, while the run is still ending.
	h.waitFor("the task's turns were rolled back")
	h.typeLine("still there?")
	h.waitFor("Back.")
	golden(t, "chat_esc.txt", transcript(h.quit()))
}

// TestChatScreen_CtrlC clears the input with one Ctrl-C and quits with
// two within 2 seconds, not with two further apart.
func TestChatScreen_CtrlC(t *testing.T) {
	h := startChat(t, readScript, nil)
	h.tm.Type("half a thought")
	h.waitFor("> half a thought")
	h.key(keyCtrlC)
	h.waitFor("Ctrl-C again to quit")
	h.clock.advance(3 * time.Second)
	h.key(keyCtrlC) // too late to quit: a first press again
	h.tm.Type("/cost")
	h.key(keyEnter)
	h.waitFor("no tokens used yet")
	m := h.quit()
	if m.input.Value() != "" {
		t.Errorf("input after Ctrl-C = %q, want it cleared", m.input.Value())
	}
	golden(t, "chat_ctrlc.txt", transcript(m))
}

// TestChatScreen_Commands runs each slash command and shows its effect.
func TestChatScreen_Commands(t *testing.T) {
	h := startChat(t, readScript, nil)
	steps := []struct{ line, want string }{
		{"/help", "this list, and the keys"},
		{"/model", "wield models lists them"},
		{"/tools", "read_file"},
		{"/permissions", "mode: default"},
		{"/cost", "no tokens used yet"},
		{"/undo", "nothing to undo"},
		{"/compact", "/compact:"},
		{"/plan", "plan mode: only read-only tools run"},
		{"/plan", "left plan mode"},
		{"/new", "session "},
		{"/sessions", "/resume PREFIX goes on in one"},
		{"/resume chat1", "session chat1 (replay)"},
		{"/model other", "session chat1 (replay)"},
		{"/nope", "unknown command /nope"},
	}
	for _, s := range steps {
		h.typeLine(s.line)
		h.waitFor(s.want)
	}
	h.tm.Type("/he")
	h.key(keyTab)
	h.waitFor("> /help ")
	h.key(keyCtrlU)
	h.tm.Type("/quit")
	h.key(keyEnter)
	m := h.tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*chatModel)
	golden(t, "chat_commands.txt", transcript(m))
}

// TestChatScreen_Input covers the input: history, a new line with
// Alt+Enter, a paste, completion.
func TestChatScreen_Input(t *testing.T) {
	m := screenByHand(t)
	keys := func(ks ...tea.Msg) {
		for _, k := range ks {
			m.Update(k)
		}
	}
	m.history = []string{"first", "second"}
	m.histPos = len(m.history)
	keys(runes("draft"), keyUp, keyUp)
	if got := m.input.Value(); got != "first" {
		t.Errorf("after Up Up, input = %q, want first", got)
	}
	keys(keyDown, keyDown)
	if got := m.input.Value(); got != "draft" {
		t.Errorf("after Down Down, input = %q, want the draft back", got)
	}
	m.input.Reset()
	keys(runes("one"), tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}, runes("two"))
	if got := m.input.Value(); got != "one\ntwo" {
		t.Errorf("after Alt+Enter, input = %q, want two lines", got)
	}
	m.input.Reset()
	keys(tea.PasteMsg{Content: "pasted\nlines"})
	if got := m.input.Value(); got != "pasted\nlines" {
		t.Errorf("after a paste, input = %q", got)
	}
	m.input.Reset()
	keys(runes("/co"), keyTab)
	if got, note := m.input.Value(), m.note; got != "/co" || note != "/compact  /cost" {
		t.Errorf("Tab after /co: input %q, note %q; want /co and both commands", got, note)
	}
	keys(runes("s"), keyTab)
	if got := m.input.Value(); got != "/cost " {
		t.Errorf("Tab after /cos: input %q, want /cost", got)
	}
	if c := m.View().Cursor; c == nil || c.X != len("> /cost ") || c.Y != 0 {
		t.Errorf("the cursor = %+v, want the terminal's, after /cost in the input on the first line", c)
	}
	if v := screenOf(m); strings.Contains(v, "\033") {
		t.Errorf("the screen without colour has escapes:\n%q", v)
	}
}

// screenByHand returns a chat's screen whose program has ended, for a
// test to drive by calling Update itself.
func screenByHand(t *testing.T) *chatModel {
	h := startChat(t, readScript, nil)
	m := h.quit()
	m.done, m.quitting = false, false
	m.printed = nil
	return m
}

// TestChatScreen_Views draws the screen at the moments a person sees
// it while a task runs: text streaming in, a call running, a call that
// asks, the note that goes with a denial, a question.
func TestChatScreen_Views(t *testing.T) {
	m := screenByHand(t)
	var b strings.Builder
	shot := func(name string) { b.WriteString("----- " + name + " -----\n" + screenOf(m) + "\n") }
	m.Update(runes("fix the greeting"))
	m.Update(keyEnter)
	m.Update(eventMsg{agent.Event{Kind: agent.EventRoundStarted, Round: 1}})
	m.Update(eventMsg{agent.Event{Kind: agent.EventText, Text: "Let me look at **main.go** first; it is short, so one read will do, and then the fix is a one-line change."}})
	shot("streaming")
	m.Update(eventMsg{agent.Event{Kind: agent.EventRoundFinished, Usage: &llm.Usage{InputTokens: 1234, OutputTokens: 56}}})
	args := json.RawMessage(`{"path": "main.go", "old_string": "println(\"hi\")", "new_string": "println(\"hello\")"}`)
	m.Update(eventMsg{agent.Event{Kind: agent.EventToolStarted, Call: &tool.Event{CallID: "c1", Tool: "replace", Arguments: args}}})
	shot("a call running")
	rules, err := policy.AllowAlways(m.c.env.policy, "replace", args)
	if err != nil {
		t.Fatal(err)
	}
	req := &approvalRequest{approvalPrompt: approvalPrompt{header: toolHeader(m.pal, fs.NewReplace(fs.Config{}).Spec(), args), reason: "replace: no rule allows it",
		preview: renderChange(m.pal, fs.Change{Path: "main.go", Old: "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n", New: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}),
		rules:   ruleStrings(rules)}, rules: rules, reply: make(chan tool.Decision, 1)}
	m.Update(approvalMsg{req})
	shot("a call asks")
	m.Update(runes("e"))
	m.Update(runes("keep hi"))
	shot("saying why not")
	m.Update(keyEnter)
	if d := <-req.reply; d.Verdict != tool.Deny || d.Reason != "the user denied this call: keep hi" {
		t.Errorf("the decision = %+v, want a denial with the reason", d)
	}
	q := &questionRequest{q: askuser.Question{Text: "Which greeting?", Options: []askuser.Option{{Label: "hello"}, {Label: "hi there", Description: "friendlier"}}}, reply: make(chan askuser.Answer, 1)}
	m.Update(questionMsg{q})
	shot("a question")
	m.Update(runes("2"))
	m.Update(keyEnter)
	if a := <-q.reply; len(a.Chosen) != 1 || a.Chosen[0] != "hi there" {
		t.Errorf("the answer = %+v, want option 2", a)
	}
	b.WriteString("----- printed -----\n" + strings.Join(slices.Concat(m.printed, m.queue), "\n") + "\n")
	golden(t, "chat_screens.txt", steady(b.String()))
}

// TestChatScreen_CompactAsks compacts the session from the screen: the
// summary is shown, the question is answered in the input, and the
// compaction is recorded.
func TestChatScreen_CompactAsks(t *testing.T) {
	var words []string
	for i := range 600 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	script := `{"when": "You write the handoff summary", "round": 1, "text": "GOAL: greet the user.\nTASK STATE: eight greetings done."}
{"when": "You review a summary", "round": 1, "tool_calls": [{"name": "complete_task", "arguments": {"status": "done", "result": "approved", "data": {"approved": true, "missing": []}}}]}
{"round": 1, "text": "hello ` + strings.Join(words, " ") + `", "usage": {"input_tokens": 10, "output_tokens": 10}}
`
	h := startChat(t, script, nil)
	for i := range 8 {
		h.typeLine(fmt.Sprintf("say hello %d", i))
		h.waitFor("1 round, ")
	}
	h.typeLine("/compact the greetings")
	h.waitFor("Record this compaction?")
	h.typeLine("y")
	h.waitFor("wield: compacted turns 1-")
	h.typeLine("/cost")
	h.waitFor("80 tokens in")
	m := h.quit()
	journal, err := os.ReadFile(filepath.Join(h.ws, ".wield", "sessions", "chat1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(journal, []byte(`"op":"compact"`)) || !bytes.Contains(journal, []byte("GOAL: greet the user")) {
		t.Errorf("the journal has no compaction with the summary")
	}
	got := strings.Join(m.printed, "\n")
	for _, want := range []string{"GOAL: greet the user.", "Record this compaction? The turns stay in the session either way. [y/N] y"} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, got)
		}
	}
}

// TestChatScreen_WhileRunning runs the commands that only read while a
// task is at work, and holds back those that would change the session.
func TestChatScreen_WhileRunning(t *testing.T) {
	m := screenByHand(t)
	m.running = true
	for _, line := range []string{"/cost", "/new", "another task"} {
		m.input.SetValue(line)
		m.Update(keyEnter)
	}
	got := strings.Join(slices.Concat(m.printed, m.queue), "\n")
	if !strings.Contains(got, "no tokens used yet") {
		t.Errorf("/cost while a task runs printed nothing:\n%s", got)
	}
	if strings.Contains(got, "/new") || m.busy != "" {
		t.Errorf("/new ran while a task runs:\n%s", got)
	}
	if m.note != "the model is still at work: wait, or Esc to cancel it" {
		t.Errorf("note after a task typed while one runs = %q", m.note)
	}
}

// ruleStrings returns the rules as an approval names them.
func ruleStrings(rules []policy.Rule) []string {
	var names []string
	for _, r := range rules {
		names = append(names, r.String())
	}
	return names
}

// TestChatScreen_MultiLineInput types a line, a new line (Ctrl+J) and a
// second line: the input shows both, the cursor on the second. (Sized
// after the key, the input used to scroll the first line out and show
// an empty one under the second.)
func TestChatScreen_MultiLineInput(t *testing.T) {
	m := screenByHand(t)
	for _, k := range []tea.Msg{runes("one"), tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}, runes("two")} {
		m.Update(k)
	}
	lines := strings.Split(steady(screenOf(m)), "\n")
	if want := []string{"> one", "> two"}; !slices.Equal(lines[:2], want) {
		t.Errorf("the screen starts %q, want %q", lines[:2], want)
	}
	if len(lines) != 4 { // the input's two lines, the status line, and the end
		t.Errorf("the screen has %d lines, want the input's two and the status line:\n%s", len(lines)-1, steady(screenOf(m)))
	}
	if c := m.View().Cursor; c == nil || c.Y != 1 || c.X != len("> two") {
		t.Errorf("the cursor = %+v, want after two, on the second line", c)
	}
}

// TestChatScreen_TallMessage streams a message taller than the terminal:
// the screen keeps to the terminal's height less one row, showing the
// message's last lines above the input and the status line, and once
// the message is complete it is printed whole, and the screen holds
// only the input and the status line.
func TestChatScreen_TallMessage(t *testing.T) {
	m := screenByHand(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 12})
	m.running = true
	var text strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&text, "line %d\n\n", i)
	}
	m.Update(eventMsg{agent.Event{Kind: agent.EventText, Text: text.String()}})
	lines := strings.Split(strings.TrimRight(steady(screenOf(m)), "\n"), "\n")
	if len(lines) != 11 {
		t.Errorf("the screen has %d lines, want 11 on a terminal of 12:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if want := []string{"line 36", "", "line 37", "", "line 38", "", "line 39", "", "line 40", "> Ask wield, or /help"}; !slices.Equal(lines[:10], want) {
		t.Errorf("the screen shows\n%s\nwant the message's last lines, then the input", strings.Join(lines, "\n"))
	}
	m.Update(eventMsg{agent.Event{Kind: agent.EventRoundFinished}})
	printed := strings.Join(slices.Concat(m.printed, m.queue), "\n")
	for i := 1; i <= 40; i++ {
		if n := strings.Count(printed+"\n", fmt.Sprintf("line %d\n", i)); n != 1 {
			t.Errorf("line %d is printed %d times, want once", i, n)
		}
	}
	if got := strings.Count(steady(screenOf(m)), "\n"); got != 2 {
		t.Errorf("after the message the screen has %d lines, want the input and the status line:\n%s", got, screenOf(m))
	}
}
