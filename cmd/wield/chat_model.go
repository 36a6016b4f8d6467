package main

// The screen of wield chat: a bubbletea model. What is finished (the
// person's tasks, the model's messages rendered as Markdown, tool lines,
// answered approvals) is printed above the screen, into the terminal's
// scrollback, where it can be scrolled, searched and copied; the screen
// itself holds only what is still going on: the text streaming in, the
// calls running, a question, the input and the status line.

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
	c     *chat
	pal   palette
	md    markdownRenderer
	width int
	now   func() time.Time // the clock, for the Ctrl-C window

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
	m := &chatModel{c: c, pal: palette{color: color}, md: markdownRenderer{color: color}, width: 80, now: time.Now, input: newChatInput(color)}
	m.setStatus()
	return m
}

// newChatInput returns the chat's input, focused: one line high, growing
// with its text up to 12.
func newChatInput(color bool) textarea.Model {
	in := textarea.New()
	in.Prompt = "> "
	in.Placeholder = "Ask wield, or /help"
	in.ShowLineNumbers = false
	in.CharLimit = 0
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
		m.width = msg.Width
		m.input.SetWidth(max(msg.Width-1, 10))
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
	m.fitInput()
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
			m.fitInput()
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
	m.fitInput()
	if v := m.input.Value(); strings.HasPrefix(v, "/") && !strings.Contains(v, " ") && m.busy == "" {
		m.note = strings.Join(m.c.completions(v), "  ")
	}
	return cmd
}

// fitInput makes the input as tall as its text.
func (m *chatModel) fitInput() {
	m.input.SetHeight(min(max(m.input.LineCount(), 1), m.input.MaxHeight))
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
	m.fitInput()
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
	m.fitInput()
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
	m.print(m.md.render(m.text.String(), m.width))
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
	switch k {
	case "y", "Y":
		m.decide(tool.Decision{Verdict: tool.Allow}, m.pal.green("yes"))
	case "n", "N":
		m.decide(tool.Decision{Verdict: tool.Deny, Reason: "the user denied this call"}, m.pal.red("denied"))
	case "e", "E":
		m.explaining = true
		m.input.Reset()
	case "a", "A", "s", "p", "P":
		if len(a.rules) == 0 {
			m.note = "no rule can allow this call for good; y or n"
			return nil
		}
		project := k == "p" || k == "P"
		names := ruleNames(a)
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

func ruleNames(a *approvalRequest) string {
	var names []string
	for _, r := range a.rules {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
}

// decide answers the call that asks, and prints the question with the
// answer.
func (m *chatModel) decide(d tool.Decision, said string) {
	m.approval.reply <- d
	m.print(m.approvalRecord(said))
	m.approval, m.explaining = nil, false
}

// approvalRecord is what stays of an approval in the transcript.
func (m *chatModel) approvalRecord(said string) string {
	a := m.approval
	return m.pal.yellow("wield wants to call ") + a.header + "\n" + indent(strings.TrimRight(a.preview, "\n"), "  ") + "\n  → " + said
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

// flush prints what is queued, unless a print is under way (its
// printedMsg flushes again), and quits when asked to and all is done.
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
	s := strings.Join(m.queue, "\n")
	m.printed = append(m.printed, m.queue...)
	m.queue, m.printing = nil, true
	return tea.Sequence(tea.Println(s), func() tea.Msg { return printedMsg{} })
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

// screen returns what View draws, and the line the input starts on (-1
// when it is not shown).
func (m *chatModel) screen() (content string, inputLine int) {
	if m.done {
		return "", -1
	}
	inputLine = -1
	var b strings.Builder
	if t := m.text.String(); t != "" {
		b.WriteString(m.stream.render(t, m.width))
		b.WriteString("\n")
	}
	for _, c := range m.calls {
		b.WriteString(c.header + m.pal.dim(" …") + "\n")
	}
	switch {
	case m.approval != nil:
		b.WriteString(m.approvalView())
	case m.question != nil:
		b.WriteString(m.questionView())
	case m.partial != "":
		b.WriteString(m.partial + "\n")
	}
	if m.approval == nil || m.explaining {
		if m.explaining {
			b.WriteString(m.pal.dim("why not? (the model reads it; Enter sends, Esc goes back)") + "\n")
		}
		inputLine = strings.Count(b.String(), "\n")
		b.WriteString(m.input.View() + "\n")
	}
	if m.note != "" {
		b.WriteString(m.pal.dim(m.note) + "\n")
	}
	b.WriteString(statusLine(m.pal, m.status, m.width))
	return b.String(), inputLine
}

func (m *chatModel) approvalView() string {
	a := m.approval
	var b strings.Builder
	b.WriteString(m.pal.yellow("wield wants to call ") + a.header + "\n")
	b.WriteString(indent(strings.TrimRight(a.preview, "\n"), "  ") + "\n")
	if a.reason != "" {
		b.WriteString("  " + m.pal.dim("asks because: ") + a.reason + "\n")
	}
	if a.rulesErr != nil {
		b.WriteString("  " + m.pal.dim("(no rule can allow this for good: "+a.rulesErr.Error()+")") + "\n")
	}
	keys := m.pal.bold("y") + " yes  " + m.pal.bold("n") + " no  " + m.pal.bold("e") + " no, and say why"
	if len(a.rules) > 0 {
		keys += "  " + m.pal.bold("a") + " always in this session (" + ruleNames(a) + ")  " + m.pal.bold("p") + " always in this project"
	}
	b.WriteString("  " + keys + "\n")
	return b.String()
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
