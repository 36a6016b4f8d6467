package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tools/plan"
)

// A slashCommand is one of the chat's own commands.
type slashCommand struct {
	name, args, help string
	// idle reports whether the command waits until no task runs (it
	// changes the session, or needs the model).
	idle bool
	// run acts on arg, the rest of the line; a command that takes time
	// returns the tea.Cmd that does the work (see chatModel.background).
	run func(m *chatModel, arg string) tea.Cmd
}

// slashCommands lists the chat's commands, in the order /help shows them.
func slashCommands() []slashCommand {
	return []slashCommand{
		{"help", "", "this list, and the keys", false, (*chatModel).help},
		{"model", "[name]", "the model; with a name, go on in this session with that model", true, (*chatModel).model},
		{"new", "", "start a new session", true, (*chatModel).newSession},
		{"resume", "[prefix]", "go on in the session whose id starts with prefix; without one, list them", true, (*chatModel).resume},
		{"sessions", "", "the workspace's latest sessions", false, (*chatModel).sessions},
		{"tools", "", "the tools the model is offered", false, (*chatModel).tools},
		{"permissions", "", "the permission mode and rules", false, (*chatModel).permissions},
		{"cost", "", "the tokens and cost of this chat", false, (*chatModel).cost},
		{"compact", "[focus]", "compact the session's older turns into a checked summary", true, (*chatModel).compact},
		{"undo", "", "take back the file changes of the last task (again: redo them)", true, (*chatModel).undo},
		{"plan", "", "enter plan mode (read-only until you approve a plan), or leave it", true, (*chatModel).plan},
		{"quit", "", "end the chat; the session is kept (wield chat --resume ID)", false, (*chatModel).quitCommand},
	}
}

// command runs line when it is one of the chat's commands; while a task
// runs, only those that need no idle chat run.
func (m *chatModel) command(line string) (tea.Cmd, bool) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	for _, c := range slashCommands() {
		if c.name == name && c.idle && m.running {
			m.note = "/" + name + " waits until the task is done: wait, or Esc to cancel it"
			return nil, true
		}
		if c.name == name {
			m.print(m.pal.bold("> ") + line)
			return c.run(m, strings.TrimSpace(arg)), true
		}
	}
	return nil, false
}

// completions returns the commands, the chat's and the plugins', whose
// names start with prefix ("/co"), with their slash, sorted.
func (c *chat) completions(prefix string) []string {
	var out []string
	for _, s := range slashCommands() {
		out = append(out, "/"+s.name)
	}
	for _, pc := range c.g.pluginCommands() {
		out = append(out, "/"+pc.Name)
	}
	out = slices.DeleteFunc(out, func(s string) bool { return !strings.HasPrefix(s, prefix) })
	slices.Sort(out)
	return slices.Compact(out)
}

func (m *chatModel) help(string) tea.Cmd {
	var b strings.Builder
	for _, c := range slashCommands() {
		fmt.Fprintf(&b, "  %-22s %s\n", "/"+strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	for _, pc := range m.c.g.pluginCommands() {
		fmt.Fprintf(&b, "  %-22s %s\n", "/"+pc.Name, pc.Description)
	}
	b.WriteString(m.pal.dim(`keys: Enter sends · Alt+Enter or Ctrl+J a new line · Up/Down the history · Tab completes a command
      Esc cancels the task · Ctrl-C cancels or clears, twice quits · when a call asks: y, n, e (no, and say why), a, p`))
	m.print(b.String())
	return nil
}

func (m *chatModel) model(arg string) tea.Cmd {
	if arg == "" {
		m.print(fmt.Sprintf("model: %s %s", m.c.env.model, m.pal.dim("(/model NAME switches; wield models lists them)")))
		return nil
	}
	return m.background("switching model", func(ctx context.Context) commandDoneMsg {
		return m.c.reopen(ctx, func(f *runFlags) { f.cfg.Model = arg })
	})
}

func (m *chatModel) newSession(string) tea.Cmd {
	return m.background("starting a session", func(ctx context.Context) commandDoneMsg {
		return m.c.reopen(ctx, func(f *runFlags) { f.sessionID = "" })
	})
}

func (m *chatModel) resume(arg string) tea.Cmd {
	if arg == "" {
		return m.sessions("")
	}
	return m.background("resuming", func(ctx context.Context) commandDoneMsg {
		list, err := m.c.env.store.List(ctx)
		if err != nil {
			return commandDoneMsg{err: err}
		}
		id, err := matchSession(list, arg)
		if err != nil {
			return commandDoneMsg{err: err}
		}
		return m.c.reopen(ctx, func(f *runFlags) { f.sessionID = id })
	})
}

// maxSessionsShown bounds /sessions.
const maxSessionsShown = 10

func (m *chatModel) sessions(string) tea.Cmd {
	ctx, cancel := m.c.roundContext()
	defer cancel()
	list, err := m.c.env.store.List(ctx)
	if err != nil {
		m.print(m.pal.red("wield: /sessions: " + err.Error()))
		return nil
	}
	list = slices.DeleteFunc(list, func(s session.Summary) bool { return s.Child != nil || s.Err != "" })
	if len(list) == 0 {
		m.print("no sessions")
		return nil
	}
	var b strings.Builder
	now := m.now()
	for i, s := range list {
		if i == maxSessionsShown {
			fmt.Fprintf(&b, "  … %d more: wield session ls\n", len(list)-i)
			break
		}
		mark := " "
		if s.ID == m.c.env.session.ID() {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s  %4s  %s  %s\n", mark, s.ID, age(now, s.Modified), count(s.Turns, "turn", "turns"), oneLine(s.Purpose, 50))
	}
	b.WriteString(m.pal.dim("/resume PREFIX goes on in one"))
	m.print(b.String())
	return nil
}

func (m *chatModel) tools(string) tea.Cmd {
	var names []string
	for _, t := range m.c.env.tools.Visible() {
		names = append(names, t.Name())
	}
	m.print(fmt.Sprintf("%s: %s", count(len(names), "tool", "tools"), strings.Join(names, ", ")))
	return nil
}

func (m *chatModel) permissions(string) tea.Cmd {
	p := m.c.env.policy
	var b strings.Builder
	fmt.Fprintf(&b, "mode: %s", m.c.mode())
	for _, list := range []string{policy.Allow, policy.Ask, policy.Deny} {
		var rs []string
		for _, r := range p.Rules(list) {
			rs = append(rs, r.String())
		}
		if len(rs) > 0 {
			fmt.Fprintf(&b, "\n%s: %s", list, strings.Join(rs, ", "))
		}
	}
	b.WriteString("\n" + m.pal.dim("rules live in .wield/settings.json and .wield/settings.local.json; a call that asks shows how they judge each of its commands"))
	m.print(b.String())
	return nil
}

func (m *chatModel) cost(string) tea.Cmd {
	line := usageLine(&agent.Outcome{Usage: m.total}, m.c.env.model, m.c.env.priced)
	if line == "" {
		line = "no tokens used yet"
	}
	// usageLine counts rounds, which the chat's total does not.
	line = strings.Replace(line, ": 0 rounds, ", ": ", 1)
	m.print(line)
	return nil
}

func (m *chatModel) compact(focus string) tea.Cmd {
	return m.commandWithAnswers("compacting", func(ctx context.Context, sc *bufio.Scanner) {
		m.c.g.chatCompact(ctx, m.c.env, focus, sc, true)
	})
}

func (m *chatModel) undo(string) tea.Cmd {
	return m.commandWithAnswers("undoing", func(ctx context.Context, sc *bufio.Scanner) {
		m.c.g.chatUndo(ctx, m.c.env, sc, true)
	})
}

func (m *chatModel) plan(string) tea.Cmd {
	s, ok := m.c.env.session.(*session.Session)
	if !ok {
		m.print(m.pal.red("wield: /plan: this session keeps no journal, so it has no mode"))
		return nil
	}
	mode, said := plan.ModePlan, "plan mode: only read-only tools run until you approve a plan; /plan again leaves it"
	if planmode.Of(s).Mode == plan.ModePlan {
		mode, said = plan.ModeDefault, "left plan mode"
	}
	if err := planmode.Set(s, mode, planmode.Of(s).Plan); err != nil {
		m.print(m.pal.red("wield: /plan: " + err.Error()))
		return nil
	}
	m.print(said)
	return nil
}

func (m *chatModel) quitCommand(string) tea.Cmd { return m.quit() }

// background runs a slash command's work off the screen's goroutine;
// the screen shows what it is doing until it reports.
func (m *chatModel) background(doing string, work func(ctx context.Context) commandDoneMsg) tea.Cmd {
	ctx, cancel := m.c.roundContext()
	m.busy, m.cancel = doing, cancel
	m.c.work.Add(1)
	return func() tea.Msg {
		defer m.c.work.Done()
		defer cancel()
		return work(ctx)
	}
}

// commandWithAnswers runs a command that may ask questions: what it
// writes is shown, and what is typed meanwhile is what it reads.
func (m *chatModel) commandWithAnswers(doing string, work func(ctx context.Context, sc *bufio.Scanner)) tea.Cmd {
	r, w := io.Pipe()
	m.answers = w
	return m.background(doing, func(ctx context.Context) commandDoneMsg {
		defer r.CloseWithError(errors.New("the command has ended"))
		// A question still waiting for its answer gets none when the
		// command is cancelled.
		stop := context.AfterFunc(ctx, func() { r.CloseWithError(context.Cause(ctx)) })
		defer stop()
		work(ctx, bufio.NewScanner(r))
		return commandDoneMsg{}
	})
}

// commandDone ends a slash command.
func (m *chatModel) commandDone(msg commandDoneMsg) {
	m.busy, m.answers, m.cancel = "", nil, nil
	if m.partial != "" {
		m.print(m.partial)
		m.partial = ""
	}
	for _, l := range msg.lines {
		m.print(l)
	}
	if msg.err != nil {
		m.print(m.pal.red("wield: " + msg.err.Error()))
	}
	if msg.lost {
		m.c.lost = msg.err
		m.quitting = true
	}
	if msg.env != nil {
		m.c.env = msg.env
		m.total = llm.Usage{}
		m.print(m.pal.dim(fmt.Sprintf("session %s (%s)", msg.env.session.ID(), msg.env.model)))
	}
	if m.note == "cancelling…" {
		m.note = ""
	}
}

// reopen switches the chat to another run: change edits the flags (the
// model, the session), the current run is closed and the new one set up.
// When it cannot be, the chat goes back to the session it was in.
func (c *chat) reopen(ctx context.Context, change func(*runFlags)) commandDoneMsg {
	prev := *c.f
	prev.sessionID = c.env.session.ID()
	next := prev
	change(&next)
	if err := c.env.close(); err != nil {
		return commandDoneMsg{err: err}
	}
	env, err := c.g.setupRun(ctx, &next, "", c.screen.event)
	if err == nil {
		next.sessionID = env.session.ID()
		*c.f = next
		return commandDoneMsg{env: env}
	}
	env, rerr := c.g.setupRun(context.WithoutCancel(ctx), &prev, "", c.screen.event)
	if rerr != nil {
		// Nothing to go on with: the chat ends with the error.
		return commandDoneMsg{err: fmt.Errorf("%w; and the session %s could not be reopened: %w", err, prev.sessionID, rerr), lost: true}
	}
	return commandDoneMsg{err: err, env: env}
}

// mode is the permission mode the status line shows: plan when the
// session is in plan mode, else the run's mode.
func (c *chat) mode() string {
	p := c.env.policy
	if p.Modes != nil {
		if md, ok := p.Modes.Mode(c.env.session.ID()); ok {
			return string(md)
		}
	}
	return string(cmpOrMode(p.Mode))
}

func cmpOrMode(m policy.Mode) policy.Mode {
	if m == "" {
		return policy.ModeDefault
	}
	return m
}
