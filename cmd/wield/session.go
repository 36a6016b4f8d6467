package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/session"
)

// store returns the session store of workspace ws, as [wield.OpenStore]
// chooses it: the one $WIELD_SESSIONS names when it is set, else
// $WIELD_HOME/sessions when WIELD_HOME is set, else .wield/sessions in the
// workspace. Its journals hide every secret wield knows of (the process's
// SecretSet, which the log, the printed events and the tool results hide
// too: see secrets.go). What it opened is closed when wield exits
// ([globals.close]).
func (g *globals) store(ws string) *session.Store {
	g.hideSecrets(ws, wield.WorkspaceSecrets(ws))
	st, closeStore := wield.OpenStore(ws, os.Getenv, g.logger())
	g.stores = append(g.stores, closeStore)
	st.Live = g.extensions(ws).secrets
	return st
}

func newSessionCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "list, show, export, fork and delete sessions",
		Long: `A session is the journal of a conversation: every task, model response, tool
call and result, the todo list and the file references. Sessions live in
.wield/sessions of the workspace (or $WIELD_HOME/sessions), one JSON Lines file
each; WIELD_SESSIONS names another store: a directory, or a postgres:// URL
for workers on several machines (docs/cli.md, "Sessions in PostgreSQL"). Continue one with wield run --continue (the latest), --resume PREFIX
(any unique prefix of its id) or --session ID.

See also: wield run, docs/cli.md.`,
	}
	storeFor := func() (*session.Store, error) {
		ws, err := g.workspace()
		if err != nil {
			return nil, err
		}
		return g.store(ws), nil
	}
	load := func(ctx context.Context, id string) (*session.State, error) {
		st, err := storeFor()
		if err != nil {
			return nil, err
		}
		s, err := st.Load(ctx, id)
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := storeFor()
			if err != nil {
				return err
			}
			list, err := st.List(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g, list)
			}
			rows := make([][]string, 0, len(list))
			now := time.Now()
			for _, s := range list {
				title := oneLine(s.Purpose, 50)
				if s.Child != nil {
					title = "(" + s.Child.Agent + " for " + s.Child.Session + ") " + title
				}
				if s.Err != "" {
					rows = append(rows, []string{s.ID, age(now, s.Modified), "-", "-", "-", "unreadable: " + s.Err})
					continue
				}
				tasks, cost, priced := "-", "-", false
				if st, err := st.Load(cmd.Context(), s.ID); err == nil {
					n, c := sessionTotals(st)
					tasks, priced = strconv.Itoa(n), c > 0
					if s.Purpose == "" { // a chat: its first task
						title += oneLine(firstTask(st), 50)
					}
					if priced {
						cost = fmt.Sprintf("$%.4f", c)
					}
				}
				if s.Open {
					title += " (open)"
				}
				rows = append(rows, []string{s.ID, age(now, s.Modified), tasks, cmp.Or(s.Model, "-"), cost, title})
			}
			return writeTable(g, "no sessions yet; start one with wield run",
				[]string{"ID", "AGE", "TURNS", "MODEL", "COST", "TITLE"}, rows)
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "print a session's turns",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := load(cmd.Context(), args[0])
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
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := load(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return writeJSON(g, s.Export())
		},
	}
	addExportHTML(g, export, storeFor) // --html: view.go
	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "delete a session (it is moved to the backups)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := storeFor()
			if err != nil {
				return err
			}
			dst, err := st.Delete(cmd.Context(), args[0])
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
				s, err := st.Load(c.Context(), args[0])
				if err != nil {
					return &exitError{exitUsage, err}
				}
				at = len(s.Turns)
			}
			id, err := st.Fork(c.Context(), args[0], at)
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

// sessionTotals counts a session's turns as a person does, one per task
// given, and adds up its models' cost (zero when no prices are known).
func sessionTotals(s *session.State) (turns int, cost float64) {
	for _, ts := range [][]session.Turn{s.Turns, s.Pool} {
		for _, t := range ts {
			switch t.Kind {
			case session.TurnUserTask:
				turns++
			case session.TurnModelResponse:
				if t.Usage != nil {
					cost += t.Usage.Cost
				}
			}
		}
	}
	return turns, cost
}

// firstTask returns the first task given in a session, or "".
func firstTask(s *session.State) string {
	for _, t := range s.Turns {
		if t.Kind == session.TurnUserTask {
			return t.Text
		}
	}
	return ""
}

// age says how long ago t was, in the largest whole unit: 40s, 5m, 3h,
// 2d.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
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

// resolveSession turns --continue and --resume into --session: the
// workspace's latest session that a person started, or the one whose id
// starts with the prefix given. An ambiguous prefix is an error that
// lists the candidates.
func resolveSession(ctx context.Context, st *session.Store, f *runFlags) error {
	set := 0
	for _, b := range []bool{f.cont, f.resume != "", f.sessionID != ""} {
		if b {
			set++
		}
	}
	if set > 1 {
		return &exitError{exitUsage, errors.New("give one of --continue, --resume and --session")}
	}
	if (f.cont || f.resume != "") && f.newSess {
		return &exitError{exitUsage, errors.New("--new starts a session; --continue and --resume continue one")}
	}
	if !f.cont && f.resume == "" {
		return nil
	}
	list, err := st.List(ctx)
	if err != nil {
		return err
	}
	if f.cont {
		for _, s := range list { // newest first
			if s.Err == "" && s.Child == nil {
				f.sessionID = s.ID
				return nil
			}
		}
		return &exitError{exitUsage, errors.New("no session to continue in this workspace; start one with wield run TASK")}
	}
	id, err := matchSession(list, f.resume)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	f.sessionID = id
	return nil
}

// matchSession returns the id of the session in list that prefix names:
// an exact id, or the only id that starts with prefix.
func matchSession(list []session.Summary, prefix string) (string, error) {
	var found []session.Summary
	for _, s := range list {
		if s.ID == prefix {
			return s.ID, nil
		}
		if strings.HasPrefix(s.ID, prefix) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no session id starts with %q: %w", prefix, session.ErrNotFound)
	case 1:
		return found[0].ID, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions start with %q; give more of the id:", len(found), prefix)
	for _, s := range found {
		fmt.Fprintf(&b, "\n  %s  %s  %s", s.ID, s.CreatedAt.Local().Format(time.DateTime), oneLine(s.Purpose, 60))
	}
	return "", errors.New(b.String())
}
