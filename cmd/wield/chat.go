package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
)

func newChatCommand(g *globals) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "talk with the agent in one session, task after task",
		Long: `Chat works task after task in the same session, so every task sees the ones
before it.

At a terminal, chat is a conversation screen under the terminal's
scrollback, where what is finished is printed once and stays. The model's
answer streams in (its last lines, when it is taller than the screen) and
is printed whole, as Markdown, once complete; each tool call is a line
saying what it touched and what it came to. A call that needs approval
shows what it will do (an edit as a diff, a shell line command by
command), wrapped at the terminal's width, and waits for a key, the same
answers as wield run's: y yes, n no, e no and say why (the model reads
it), a always in this session, p always in this project. The status line
shows the model, the session, the permission mode, the tokens and the
cost.

Keys: Enter sends; Alt+Enter (or Ctrl+J) starts a new line; Up and Down
go through the history; Tab completes a command. Esc cancels the running
task (each call started still gets its result); Ctrl-C cancels or clears
the input, and twice within 2 seconds ends the chat. The session is kept
and the command to resume it printed.

Commands: /help, /model [name], /new, /resume [prefix], /sessions,
/tools, /permissions, /cost, /compact [focus], /undo, /plan, /quit; a
plugin's commands (/name args) are expanded into tasks.

When standard input or output is not a terminal, or with --json, chat
reads tasks from standard input, one per line, until it ends (an empty
line is skipped); /compact [focus] and /undo work there too, asking on
the next line of input when wield runs at a terminal. Calls that need
approval are then denied and, as with wield run, the chat ends with exit
status 3.

It takes the same flags as wield run.

See also: wield run, wield session, docs/cli.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !f.json && !g.tty && isTerminal(g.stdin) && isTerminal(g.stdout) {
				return g.chatScreen(cmd.Context(), f)
			}
			return g.chatLines(cmd.Context(), f)
		},
	}
	f.register(cmd)
	return cmd
}

// chatLines is wield chat without a terminal: one task per line of
// standard input.
func (g *globals) chatLines(ctx context.Context, f *runFlags) error {
	out := newRunPrinter(g, f.json)
	env, err := g.setupRun(ctx, f, "", out.event)
	if err != nil {
		return err
	}
	defer env.close()
	out.model, out.priced = env.model, env.priced
	sc := bufio.NewScanner(g.stdin)
	sc.Buffer(nil, 1<<20)
	ask := !f.json && out.interactive
	for {
		if ask {
			fmt.Fprint(g.stderr, "> ")
		}
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return err
			}
			return g.endRun(ctx, out, env, nil, nil)
		}
		task := strings.TrimSpace(sc.Text())
		if task == "" {
			continue
		}
		if focus, ok := compactCommand(task); ok {
			g.chatCompact(ctx, env, focus, sc, ask)
			continue
		}
		if task == "/undo" {
			g.chatUndo(ctx, env, sc, ask) // see undo.go
			continue
		}
		task, _ = g.expandCommand(task) // a plugin's command: see extensions.go
		outcome, err := env.agent.Run(ctx, env.session, task)
		out.finish(outcome)
		if err != nil {
			if ctx.Err() != nil {
				return &exitError{exitToolFailure, err}
			}
			fmt.Fprintf(g.stderr, "wield: %v\n", err)
		}
	}
}

// A chat is one wield chat at a terminal: the flags it runs with and
// the run it works in, which /new, /resume and /model replace.
type chat struct {
	g      *globals
	f      *runFlags
	env    *runEnv
	screen *chatScreen
	// roundContext returns the context of one task or command, a child
	// of the command's that Esc and Ctrl-C cancel.
	roundContext func() (context.Context, context.CancelFunc)
	// lost is set when the chat's run was closed and none could take
	// its place.
	lost error
	// work counts the tasks and commands at work, which the chat waits
	// for before it closes its run.
	work sync.WaitGroup
}

// chatScreen runs wield chat at a terminal, as a bubbletea program.
// While it runs, wield's own output (a slash command's, warnings) is
// shown on the screen instead of being written over it.
func (g *globals) chatScreen(ctx context.Context, f *runFlags) error {
	// Cancelled when the screen ends however it ends, so that no task
	// or command outlives it.
	screenCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	screen := &chatScreen{}
	f.screen = screen
	env, err := g.setupRun(screenCtx, f, "", screen.event)
	if err != nil {
		return err
	}
	// From here on the flags name the session, for /model and /new.
	f.sessionID, f.resume, f.cont, f.newSess = env.session.ID(), "", false, false
	c := &chat{g: g, f: f, env: env, screen: screen,
		roundContext: func() (context.Context, context.CancelFunc) { return context.WithCancel(screenCtx) }}
	m := newChatModel(c, !g.noColor())
	stdout, stderr := g.stdout, g.stderr
	p := tea.NewProgram(m, tea.WithContext(screenCtx), tea.WithInput(g.stdin), tea.WithOutput(stdout))
	screen.send = p.Send
	shown := screenWriter{p.Send}
	g.stdout, g.stderr = shown, shown
	_, runErr := p.Run()
	cancel()
	c.work.Wait()
	g.stdout, g.stderr = stdout, stderr
	return g.endChat(ctx, c, runErr)
}

// endChat closes the chat's run and says how to resume its session.
func (g *globals) endChat(ctx context.Context, c *chat, runErr error) error {
	if c.lost != nil {
		return &exitError{exitToolFailure, c.lost}
	}
	id := c.env.session.ID()
	if err := c.env.close(); err != nil {
		return err
	}
	pal := palette{color: !g.noColor()}
	fmt.Fprintf(g.stderr, "%s\n", pal.dim(fmt.Sprintf("session %s kept; resume it with: wield chat --resume %s", id, id)))
	switch {
	case ctx.Err() != nil, errors.Is(runErr, tea.ErrInterrupted):
		return &exitError{exitInterrupted, nil}
	case runErr != nil:
		return &exitError{exitToolFailure, fmt.Errorf("the chat's screen: %w", runErr)}
	}
	return nil
}

// A screenWriter shows what is written to it on the chat's screen.
type screenWriter struct{ send func(tea.Msg) }

func (w screenWriter) Write(p []byte) (int, error) {
	w.send(outputMsg{string(p)})
	return len(p), nil
}

var _ io.Writer = screenWriter{}
