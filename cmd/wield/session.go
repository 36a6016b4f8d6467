package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/workspace"
)

// store returns the session store of workspace ws: $WIELD_HOME/sessions
// when WIELD_HOME is set, else .wield/sessions in the workspace.
func (g *globals) store(ws string) *session.Store {
	dir, home := workspace.Layout{Root: ws}.SessionsDir(os.Getenv)
	if !home {
		ignoreState(ws)
	}
	var secrets []string
	if k := os.Getenv("OPENAI_API_KEY"); k != "" {
		secrets = append(secrets, k)
	}
	return &session.Store{Dir: dir, Secrets: secrets, Logger: g.logger()}
}

// stateIgnore keeps wield's own state out of the project's git status;
// project configuration in .wield (settings.json, tools/, mcp.json) stays
// visible.
const stateIgnore = "# wield's own state; settings.json, tools/ and mcp.json are project configuration\nsessions/\nspill/\nlogs/\n"

// ignoreState writes .wield/.gitignore in workspace ws if .wield has none.
// Failing to is harmless.
func ignoreState(ws string) {
	l := workspace.Layout{Root: ws}
	dir, path := l.State(), l.GitIgnore()
	if _, err := os.Lstat(path); err == nil {
		return
	}
	if os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			_, _ = f.WriteString(stateIgnore)
			_ = f.Close()
		}
	}
}

func newSessionCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "list, show, export, fork and delete sessions",
		Long: `A session is the journal of a conversation: every task, model response, tool
call and result, the todo list and the file references. Sessions live in
.wield/sessions of the workspace (or $WIELD_HOME/sessions), one JSON Lines file
each. Continue one with wield run --session ID.`,
	}
	storeFor := func() (*session.Store, error) {
		ws, err := g.workspace()
		if err != nil {
			return nil, err
		}
		return g.store(ws), nil
	}
	load := func(id string) (*session.State, error) {
		st, err := storeFor()
		if err != nil {
			return nil, err
		}
		s, err := st.Load(id)
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		return s, nil
	}
	var asJSON bool
	ls := &cobra.Command{
		Use:   "ls",
		Short: "list sessions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			st, err := storeFor()
			if err != nil {
				return err
			}
			list, err := st.List()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g, list)
			}
			rows := make([][]string, 0, len(list))
			for _, s := range list {
				state := "closed"
				switch {
				case s.Err != "":
					state = "unreadable: " + s.Err
				case s.Open:
					state = "open"
				}
				rows = append(rows, []string{s.ID, s.CreatedAt.Local().Format(time.DateTime), strconv.Itoa(s.Turns), state, oneLine(s.Purpose, 60)})
			}
			return writeTable(g, "no sessions yet; start one with wield run",
				[]string{"ID", "CREATED", "TURNS", "STATE", "PURPOSE"}, rows)
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "print a session's turns",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := load(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g, s.Export())
			}
			printSession(g, s)
			return nil
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print the session as one JSON document")
	export := &cobra.Command{
		Use:   "export ID",
		Short: "print a session as one JSON document",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := load(args[0])
			if err != nil {
				return err
			}
			return writeJSON(g, s.Export())
		},
	}
	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "delete a session (it is moved to the backups)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			st, err := storeFor()
			if err != nil {
				return err
			}
			dst, err := st.Delete(args[0])
			if err != nil {
				return &exitError{exitUsage, err}
			}
			fmt.Fprintf(g.stderr, "deleted %s (backup: %s)\n", args[0], dst)
			return nil
		},
	}
	var at int
	fork := &cobra.Command{
		Use:   "fork ID --at N",
		Short: "copy a session up to turn N into a new one",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			st, err := storeFor()
			if err != nil {
				return err
			}
			if !c.Flags().Changed("at") {
				s, err := st.Load(args[0])
				if err != nil {
					return &exitError{exitUsage, err}
				}
				at = len(s.Turns)
			}
			id, err := st.Fork(args[0], at)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			fmt.Fprintln(g.stdout, id)
			return nil
		},
	}
	fork.Flags().IntVar(&at, "at", 0, "keep turns 1..`N` (default: all committed turns)")
	cmd.AddCommand(ls, show, export, rm, fork, newSessionCompactCommand(g))
	return cmd
}

func printSession(g *globals, s *session.State) {
	h := s.Header
	fmt.Fprintf(g.stdout, "session %s  created %s", h.ID, h.CreatedAt.Local().Format(time.DateTime))
	if h.ParentID != "" {
		fmt.Fprintf(g.stdout, "  forked from %s", h.ParentID)
	}
	fmt.Fprintln(g.stdout)
	if c := h.Child; c != nil {
		fmt.Fprintf(g.stdout, "agent %s, started by call %s of session %s (depth %d)\n", c.Agent, c.Call, c.Session, c.Depth)
	}
	if h.Purpose != "" {
		fmt.Fprintf(g.stdout, "purpose: %s\n", h.Purpose)
	}
	print := func(n string, t *session.Turn) {
		switch t.Kind {
		case session.TurnUserTask:
			fmt.Fprintf(g.stdout, "\n%s user> %s\n", n, t.Text)
		case session.TurnModelResponse:
			if t.Text != "" {
				fmt.Fprintf(g.stdout, "%s model> %s\n", n, t.Text)
			}
		case session.TurnFunctionCalling:
			fmt.Fprintf(g.stdout, "%s call %s %s %s\n", n, t.CallID, t.Tool, oneLine(string(t.Arguments), 200))
		case session.TurnToolResponse:
			fmt.Fprintf(g.stdout, "%s %s %s: %s\n", n, t.Status, t.CallID, oneLine(t.Output, 200))
		case session.TurnAgentStarted:
			fmt.Fprintf(g.stdout, "%s agent %s started for %s: session %s\n", n, t.Agent, t.CallID, t.Child)
		case session.TurnAgentFinished:
			fmt.Fprintf(g.stdout, "%s agent %s finished for %s: %s\n", n, t.Agent, t.CallID, t.Status)
		case session.TurnCompressedHistory:
			fmt.Fprintf(g.stdout, "%s summary of turns %d-%d: %s\n", n, t.Range[0], t.Range[1], t.Text)
		}
	}
	for i := range s.Turns {
		print(fmt.Sprintf("%3d", i+1), &s.Turns[i])
	}
	for i := range s.Pool {
		print("  +", &s.Pool[i])
	}
	if len(s.Todos) > 0 {
		fmt.Fprintln(g.stdout, "\ntodos:")
		for _, t := range s.Todos {
			fmt.Fprintf(g.stdout, "  [%s] %s\n", t.Status, t.Title)
		}
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
