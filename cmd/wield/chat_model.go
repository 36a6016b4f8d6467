package main

// The screen of wield chat: a bubbletea model. What is finished (the
// person's tasks, the model's messages rendered as Markdown, tool lines,
// answered approvals) is printed above the screen once, into the
// terminal's scrollback, where it can be scrolled, searched and copied,
// and is never drawn again; the screen itself (the live area, redrawn)
// holds only what is still going on: the text streaming in, the calls
// running, a question, the input and the status line. The live area is
// never taller than the terminal: a message taller than that shows its
// last lines while it streams, and is printed whole once complete.

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

// quitWindow is how soon a second Ctrl-C must follow the first to quit.
const quitWindow = 2 * time.Second

// A chatModel is the screen of one wield chat. Its methods run on the
// program's goroutine; runs and slash commands that take time run in
// commands and report back with messages.
type chatModel struct {
	c   *chat
	pal palette
	md  markdownRenderer
	now func() time.Time // the clock, for the Ctrl-C window
	// The terminal's size, in columns and rows.
	width, height int

	input   textarea.Model
	history []string
	histPos int    // len(history) when not browsing
	draft   string // the input as it was before browsing

	// A run of the agent: cancel ends it (Esc, Ctrl-C).
	running bool
	cancel  context.CancelFunc
	round   int
	text    strings.Builder // the message streaming in
	stream  streamView      // the text as the screen shows it
	calls   []runningCall   // started, not finished
	live    llm.Usage       // the running task's rounds so far
	total   llm.Usage       // this chat's finished tasks

	approval   *approvalRequest
	explaining bool // typing the note that goes with a denial
	question   *questionRequest

	// A slash command at work (/compact, /undo, /model, ...): answers
	// typed meanwhile go to answers; partial is its output's unfinished
	// line (a question it asks).
	busy    string
	answers *io.PipeWriter
	partial string

	status chatStatus
	note   string // a hint under the input, until the next key

	lastCtrlC time.Time
	quitting  bool
	done      bool // the chat has ended: the screen is left empty

	// queue holds what is still to be printed above the screen; printing
	// reports whether a print is under way. Prints go one at a time so
	// that they keep their order. printed keeps all that was printed:
	// the chat's transcript.
	queue    []string
	printing bool
	printed  []string
}

// A runningCall is a tool call started and not yet finished.
type runningCall struct {
	id, header string
}

// Messages the screen's commands report with.
type (
	runDoneMsg struct {
		o   *agent.Outcome
		err error
	}
	printedMsg struct{}
	// commandDoneMsg ends a slash command; env, when set, is the run the
	// command switched to (a new session, another model).
	commandDoneMsg struct {
		lines []string
		env   *runEnv
		err   error
		// lost reports that the chat's run was closed and no other
		// could be set up: the chat ends.
		lost bool
	}
	// outputMsg is output of wield's own, written while the screen runs.
	outputMsg struct{ text string }
)

func newChatModel(c *chat, color bool) *chatModel {
	m := &chatModel{c: c, pal: palette{color: color}, md: markdownRenderer{color: color}, width: 80, height: 24, now: time.Now, input: newChatInput(color)}
	m.setStatus()
	return m
}

// newChatInput returns the chat's input, focused: one line high, growing
// with its text (the lines it wraps to) up to 12.
func newChatInput(color bool) textarea.Model {
	in := textarea.New()
	in.Prompt = "> "
	in.Placeholder = "Ask wield, or /help"
	in.ShowLineNumbers = false
	in.CharLimit = 0
	// The textarea sizes itself, before it scrolls: sized after a key
	// (as it was), a new line scrolled the first out of a one-line input
	// and the input then grew by an empty line.
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 12
	in.SetHeight(1)
	plain := lipgloss.NewStyle()
	// Plain styles, the same on any background: the default ones are
	// chosen for a dark or a light one, which only the terminal knows.
	st := textarea.StyleState{Base: plain, CursorLine: plain, CursorLineNumber: plain, EndOfBuffer: plain,
		LineNumber: plain, Placeholder: plain.Faint(color), Prompt: plain.Bold(color), Text: plain, Selection: plain.Reverse(color)}
	in.SetStyles(textarea.Styles{Focused: st, Blurred: st, Cursor: textarea.CursorStyle{Shape: tea.CursorBar}})
	// The terminal's own cursor (see View): a drawn one would put an
	// escape sequence into the screen even without colours.
	in.SetVirtualCursor(false)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	in.Focus()
	return in
}

// Init starts nothing: the chat waits for its first task.
func (m *chatModel) Init() tea.Cmd { return nil }

// Update handles one message; what it prints goes out in order after it.
func (m *chatModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.setStatus()
	return m, tea.Batch(cmd, m.flush())
}

func (m *chatModel) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(msg.Width-1, 10))
		if m.approval != nil && !m.approval.shownAbove {
			m.placeApproval() // it may no longer fit
		}
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		return m.paste(msg)
	case eventMsg:
		m.event(msg.e)
		return nil
	case approvalMsg:
		m.approval, m.explaining = msg.req, false
		m.placeApproval()
		return nil
	case questionMsg:
		m.question = msg.req
		return nil
	case runDoneMsg:
		m.finish(msg.o, msg.err)
		return nil
	case commandDoneMsg:
		m.commandDone(msg)
		return nil
	case outputMsg:
		m.output(msg.text)
		return nil
	case printedMsg:
		m.printing = false
		return nil
	}
	return nil
}

// paste takes in pasted text, unless a call waits for a key.
func (m *chatModel) paste(p tea.PasteMsg) tea.Cmd {
	m.note = ""
	if m.approval != nil && !m.explaining {
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(p)
	return cmd
}

// key handles a key press.
func (m *chatModel) key(k tea.KeyPressMsg) tea.Cmd {
	m.note = ""
	switch k.String() {
	case "ctrl+c":
		now := m.now()
		if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) < quitWindow {
			return m.quit()
		}
		m.lastCtrlC = now
		switch {
		case m.running || m.busy != "":
			m.stop()
		case m.input.Value() != "":
			m.input.Reset()
		}
		m.note = "Ctrl-C again to quit"
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit()
		}
	case "esc":
		switch {
		case m.explaining:
			m.explaining = false
			m.input.Reset()
		case m.running || m.busy != "":
			m.stop()
		}
		return nil
	}
	if m.approval != nil && !m.explaining {
		return m.answerApproval(k.String())
	}
	switch k.String() {
	case "enter":
		return m.submit()
	case "tab":
		m.complete()
		return nil
	case "up", "down":
		if m.input.LineCount() == 1 && m.question == nil {
			m.browse(k.String() == "up")
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if v := m.input.Value(); strings.HasPrefix(v, "/") && !strings.Contains(v, " ") && m.busy == "" {
		m.note = strings.Join(m.c.completions(v), "  ")
	}
	return cmd
}

// browse moves through the input history.
func (m *chatModel) browse(up bool) {
	if len(m.history) == 0 {
		return
	}
	if m.histPos == len(m.history) {
		m.draft = m.input.Value()
	}
	switch {
	case up && m.histPos > 0:
		m.histPos--
	case !up && m.histPos < len(m.history):
		m.histPos++
	default:
		return
	}
	if m.histPos == len(m.history) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.history[m.histPos])
	}
}

// complete completes a slash command's name, as far as the commands
// that start with what is typed agree.
func (m *chatModel) complete() {
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.Contains(v, " ") {
		return
	}
	names := m.c.completions(v)
	if len(names) == 0 {
		m.note = "no command starts with " + v
		return
	}
	common := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, common) {
			common = common[:len(common)-1]
		}
	}
	if len(names) == 1 {
		common += " "
	} else {
		m.note = strings.Join(names, "  ")
	}
	m.input.SetValue(common)
}

// submit acts on the input: an answer to what waits for one, a slash
// command, or a task.
func (m *chatModel) submit() tea.Cmd {
	text := m.input.Value()
	trimmed := strings.TrimSpace(text)
	switch {
	case m.question != nil:
		ans, err := askuser.ParseAnswer(m.question.q, trimmed)
		if err != nil {
			m.note = err.Error()
			return nil
		}
		said := strings.Join(slices.Concat(ans.Chosen, []string{ans.Text}), "; ")
		m.print(m.pal.yellow("wield asks: ") + m.question.q.Text + "\n  → " + m.pal.bold(strings.Trim(said, "; ")))
		m.question.reply <- ans
		m.question = nil
		m.input.Reset()
		return nil
	case m.explaining:
		reason := "the user denied this call"
		if trimmed != "" {
			reason += ": " + trimmed
		}
		m.decide(tool.Decision{Verdict: tool.Deny, Reason: reason}, "denied: "+cmpOr(trimmed, "no reason given"))
		m.input.Reset()
		return nil
	case m.busy != "" && m.answers == nil:
		m.note = "wait: " + m.busy
		return nil
	case m.busy != "":
		m.input.Reset()
		m.print(m.partial + trimmed)
		m.partial = ""
		w := m.answers
		return func() tea.Msg {
			io.WriteString(w, trimmed+"\n") // fails once the command has ended
			return nil
		}
	case trimmed == "":
		return nil
	case m.running && !strings.HasPrefix(trimmed, "/"):
		m.note = "the model is still at work: wait, or Esc to cancel it"
		return nil
	}
	m.input.Reset()
	if len(m.history) == 0 || m.history[len(m.history)-1] != text {
		m.history = append(m.history, text)
	}
	m.histPos = len(m.history)
	if strings.HasPrefix(trimmed, "/") {
		if cmd, ok := m.command(trimmed); ok {
			return cmd
		}
		expanded, ok := m.c.g.expandCommand(trimmed)
		if ok && m.running {
			m.note = "the model is still at work: wait, or Esc to cancel it"
			return nil
		}
		if !ok {
			m.print(m.pal.red("unknown command "+strings.Fields(trimmed)[0]) + m.pal.dim("; /help lists them"))
			return nil
		}
		m.print(m.pal.bold("> ") + trimmed)
		return m.start(expanded)
	}
	m.print(m.pal.bold("> ") + text)
	return m.start(text)
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// start runs task in the chat's session.
func (m *chatModel) start(task string) tea.Cmd {
	ctx, cancel := m.c.roundContext()
	m.running, m.cancel, m.round, m.live = true, cancel, 0, llm.Usage{}
	env := m.c.env
	m.c.work.Add(1)
	return func() tea.Msg {
		defer m.c.work.Done()
		o, err := env.agent.Run(ctx, env.session, task)
		return runDoneMsg{o, err}
	}
}

// stop cancels the running task or command; the run gives each call its
// result and ends.
func (m *chatModel) stop() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.approval != nil {
		m.print(m.approvalRecord(m.pal.red("cancelled")))
		m.approval, m.explaining = nil, false
	}
	m.question = nil
	m.note = "cancelling…"
}

// quit ends the chat once the running task or command has ended.
func (m *chatModel) quit() tea.Cmd {
	m.quitting = true
	if m.running || m.busy != "" {
		m.stop()
	}
	return nil
}

// event shows one event of the run.
func (m *chatModel) event(e agent.Event) {
	switch e.Kind {
	case agent.EventRoundStarted:
		m.round = e.Round
	case agent.EventText:
		m.text.WriteString(e.Text)
	case agent.EventRoundFinished:
		m.endMessage()
		if e.Usage != nil {
			m.live = m.live.Add(*e.Usage)
		}
	case agent.EventToolStarted:
		m.endMessage()
		m.calls = append(m.calls, runningCall{e.Call.CallID, toolHeader(m.pal, callSpec(e.Call), e.Call.Arguments)})
	case agent.EventToolFinished:
		header := toolHeader(m.pal, callSpec(e.Call), nil)
		for i, c := range m.calls {
			if c.id == e.Call.CallID {
				header = c.header
				m.calls = append(m.calls[:i], m.calls[i+1:]...)
				break
			}
		}
		m.print(header + "\n" + toolSummary(m.pal, e.Call.Result, e.Call.Duration))
	case agent.EventRunFinished:
		m.endMessage()
	}
}

// endMessage prints the message that streamed in, as Markdown.
func (m *chatModel) endMessage() {
	if strings.TrimSpace(m.text.String()) == "" {
		m.text.Reset()
		return
	}
	m.print(m.md.render(m.text.String(), m.printWidth()))
	m.text.Reset()
}

// finish ends a task: why it stopped short, if it did, and what it used.
func (m *chatModel) finish(o *agent.Outcome, err error) {
	m.running = false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.endMessage()
	m.calls, m.approval, m.question, m.explaining = nil, nil, nil, false
	m.live = llm.Usage{}
	if o == nil {
		if err != nil {
			m.print(m.pal.red("wield: " + err.Error()))
		}
		return
	}
	m.total = m.total.Add(o.Usage)
	switch {
	case o.Reason == agent.StopCancelled:
		m.print(m.pal.yellow("cancelled") + m.pal.dim(" (each call started got its result; the task's turns were rolled back)"))
	case o.Reason != agent.StopAnswer && o.Note != "":
		m.print(m.pal.yellow("wield: " + o.Note))
	case err != nil:
		m.print(m.pal.red("wield: " + err.Error()))
	}
	if line := usageLine(o, m.status.model, m.status.priced); line != "" {
		m.print(m.pal.dim(line))
	}
	if m.note == "cancelling…" {
		m.note = ""
	}
}

// answerApproval acts on a key pressed while a call asks.
func (m *chatModel) answerApproval(k string) tea.Cmd {
	a := m.approval
	switch answer := parseAnswer(k); answer {
	case answerYes:
		m.decide(tool.Decision{Verdict: tool.Allow}, m.pal.green("yes"))
	case answerNo:
		m.decide(tool.Decision{Verdict: tool.Deny, Reason: "the user denied this call"}, m.pal.red("denied"))
	case answerExplain:
		m.explaining = true
		m.input.Reset()
	case answerSession, answerProject:
		if len(a.rules) == 0 {
			m.note = "no rule can allow this call for good; y or n"
			return nil
		}
		project := answer == answerProject
		names := strings.Join(a.approvalPrompt.rules, ", ")
		path, err := a.allow(a.rules, project)
		said := "always in this session: " + names
		switch {
		case err != nil:
			said = fmt.Sprintf("yes (could not store the rule: %v)", err)
		case project:
			said = fmt.Sprintf("always: %s, saved to %s", names, path)
		}
		m.decide(tool.Decision{Verdict: tool.Allow}, m.pal.green(said))
	default:
		m.note = "y yes · n no · e no, and say why · a always in this session · p always in this project · Esc cancels the task"
	}
	return nil
}

// decide answers the call that asks, and prints the question with the
// answer.
func (m *chatModel) decide(d tool.Decision, said string) {
	m.approval.reply <- d
	m.print(m.approvalRecord(said))
	m.approval, m.explaining = nil, false
}

// approvalRecord is what stays of an approval in the transcript: the
// call, what it would do (unless printed already) and the answer.
func (m *chatModel) approvalRecord(said string) string {
	a := m.approval
	s := m.pal.yellow("wield wants to call ") + a.header + "\n"
	if !a.shownAbove {
		s += indent(strings.TrimRight(a.preview, "\n"), "  ") + "\n"
	}
	return s + "  → " + said
}

// placeApproval decides where the call that asks shows what it will
// do: on the screen, or, when that would make the screen taller than
// the terminal, printed above it (for good), the screen keeping the
// call's line and the answers.
func (m *chatModel) placeApproval() {
	bottom, _ := m.bottom()
	if len(m.callLines())+strings.Count(m.approvalView(), "\n")+1+len(bottom) <= m.maxLive() {
		return
	}
	m.print(strings.TrimRight(m.approval.details(m.pal), "\n"))
	m.approval.shownAbove = true
}

// output takes in output of wield's own (a slash command's): whole
// lines are printed, a partial line waits under the screen (a question).
func (m *chatModel) output(s string) {
	m.partial += s
	for {
		i := strings.IndexByte(m.partial, '\n')
		if i < 0 {
			return
		}
		m.print(m.partial[:i])
		m.partial = m.partial[i+1:]
	}
}

// print queues s to be printed above the screen.
func (m *chatModel) print(s string) {
	m.queue = append(m.queue, s)
}

// printWidth is the width what is printed above the screen is made to
// fit: one column less than the terminal's, as a line that fills a row
// leaves the cursor past its end, where some terminals erase its last
// character as the line is printed.
func (m *chatModel) printWidth() int {
	return max(m.width-1, 1)
}

// flush prints what is queued, unless a print is under way (its
// printedMsg flushes again), and quits when asked to and all is done.
//
// Each line is printed on its own (bubbletea's Println), lines wider
// than the terminal wrapped first: a print scrolls the terminal by as
// many rows as it has lines and then puts them above the live area, so
// the live area, never taller than the terminal's height less one row
// (see maxLive), is never scrolled into the scrollback itself, whatever
// height the renderer last drew it at.
func (m *chatModel) flush() tea.Cmd {
	if m.printing {
		return nil
	}
	if len(m.queue) == 0 {
		if m.quitting && !m.running && m.busy == "" {
			m.done = true
			return tea.Quit
		}
		return nil
	}
	var cmds []tea.Cmd
	for _, s := range m.queue {
		for _, l := range strings.Split(wrapLines(s, m.printWidth()), "\n") {
			if l == "" {
				l = " " // Println prints nothing for an empty line
			}
			cmds = append(cmds, tea.Println(l))
		}
	}
	m.printed = append(m.printed, m.queue...)
	m.queue, m.printing = nil, true
	return tea.Sequence(append(cmds, func() tea.Msg { return printedMsg{} })...)
}

// setStatus brings the status line's figures up to date.
func (m *chatModel) setStatus() {
	env := m.c.env
	s := &m.status
	s.model, s.priced, s.session = env.model, env.priced, env.session.ID()
	s.mode = m.c.mode()
	s.usage = m.total.Add(m.live)
	switch {
	case m.approval != nil || m.question != nil:
		s.state = "waiting for you"
	case len(m.calls) > 0:
		s.state = count(len(m.calls), "tool", "tools") + " running"
	case m.running:
		s.state = fmt.Sprintf("thinking (round %d)", max(m.round, 1))
	case m.busy != "":
		s.state = m.busy
	default:
		s.state = ""
	}
}

// View draws what is going on, the input and the status line, with the
// terminal's cursor in the input.
func (m *chatModel) View() tea.View {
	content, inputLine := m.screen()
	v := tea.NewView(content)
	if c := m.input.Cursor(); c != nil && inputLine >= 0 {
		c.Y += inputLine
		v.Cursor = c
	}
	return v
}

// maxLive is the most rows the live area takes: the terminal's height
// less the row a line printed above it scrolls into (see flush).
func (m *chatModel) maxLive() int {
	return max(m.height-1, 1)
}

// screen returns what View draws, and the line the input starts on (-1
// when it is not shown): what is going on, then the input, a note and
// the status line, in at most maxLive lines. What is going on keeps its
// last lines when it is taller than that: a streaming message its tail.
func (m *chatModel) screen() (content string, inputLine int) {
	if m.done {
		return "", -1
	}
	bottom, inputLine := m.bottom()
	room := m.maxLive() - len(bottom)
	top := m.callLines()
	switch {
	case m.approval != nil:
		top = append(top, strings.Split(m.approvalView(), "\n")...)
	case m.question != nil:
		top = append(top, strings.Split(wrapLines(strings.TrimRight(m.questionView(), "\n"), m.width), "\n")...)
	case m.partial != "":
		top = append(top, strings.Split(wrapLines(m.partial, m.width), "\n")...)
	}
	if t := m.text.String(); t != "" {
		// The message streaming in goes above the calls; of it, only
		// the lines that fit are taken from the rendering.
		top = append(tailLines(m.stream.render(t, m.width), max(room-len(top), 0)), top...)
	}
	if len(top) > room {
		top = top[len(top)-max(room, 0):]
	}
	if len(bottom) > m.maxLive() {
		// A terminal too short for even the input and the status line.
		cut := len(bottom) - m.maxLive()
		bottom, inputLine = bottom[cut:], inputLine-cut
	}
	if inputLine >= 0 {
		inputLine += len(top)
	}
	return strings.Join(append(top, bottom...), "\n"), inputLine
}

// callLines returns the lines of the calls running.
func (m *chatModel) callLines() []string {
	var lines []string
	for _, c := range m.calls {
		lines = append(lines, strings.Split(wrapLines(c.header+m.pal.dim(" …"), m.width), "\n")...)
	}
	return lines
}

// bottom returns the lines under what is going on: the input (unless a
// call waits for a key), a note and the status line, and the line the
// input starts on (-1 when it is not shown).
func (m *chatModel) bottom() (lines []string, inputLine int) {
	inputLine = -1
	if m.approval == nil || m.explaining {
		if m.explaining {
			lines = append(lines, strings.Split(wrapLines(m.pal.dim("why not? (the model reads it; Enter sends, Esc goes back)"), m.width), "\n")...)
		}
		inputLine = len(lines)
		lines = append(lines, strings.Split(m.input.View(), "\n")...)
	}
	if m.note != "" {
		lines = append(lines, strings.Split(wrapLines(m.pal.dim(m.note), m.width), "\n")...)
	}
	return append(lines, statusLine(m.pal, m.status, m.width)), inputLine
}

// approvalView is the call that asks, as the screen shows it: the call,
// what it will do (unless printed above) and why it asks, and the
// answers, wrapped at the screen's width.
func (m *chatModel) approvalView() string {
	a := m.approval
	head := a.details(m.pal)
	if a.shownAbove {
		head = m.pal.yellow("wield wants to call") + " " + a.header + "\n  " + m.pal.dim("(what it will do is printed above)") + "\n"
	}
	return wrapLines(strings.TrimRight(head, "\n"), m.width) + "\n" + a.keys(m.pal, m.width)
}

// tailLines returns the last n lines of s, or all of them when it has
// fewer, without looking at the lines before.
func tailLines(s string, n int) []string {
	if n < 1 {
		return nil
	}
	start := len(s)
	for range n {
		i := strings.LastIndexByte(s[:start], '\n')
		if i < 0 {
			return strings.Split(s, "\n")
		}
		start = i
	}
	return strings.Split(s[start+1:], "\n")
}

func (m *chatModel) questionView() string {
	q := m.question.q
	var b strings.Builder
	b.WriteString(m.pal.yellow("wield asks: ") + q.Text + "\n")
	for i, o := range q.Options {
		fmt.Fprintf(&b, "  %d. %s", i+1, o.Label)
		if o.Description != "" {
			b.WriteString(m.pal.dim(" — " + o.Description))
		}
		b.WriteString("\n")
	}
	switch {
	case len(q.Options) > 1 && q.Multiple:
		fmt.Fprintf(&b, "%s\n", m.pal.dim(fmt.Sprintf("answer with numbers 1-%d (several allowed) or your own words", len(q.Options))))
	case len(q.Options) > 0:
		fmt.Fprintf(&b, "%s\n", m.pal.dim(fmt.Sprintf("answer with a number 1-%d or your own words", len(q.Options))))
	}
	return b.String()
}
