package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/session"
)

// undoCommands returns the commands of the change ledger: undo and rewind.
func (g *globals) undoCommands() []*cobra.Command {
	return []*cobra.Command{newUndoCommand(g), newRewindCommand(g)}
}

// undoFlags are the flags undo and rewind share.
type undoFlags struct {
	session                string
	yes, overwrite, asJSON bool
	dryRun                 bool
	code, conv, both       bool
}

func (f *undoFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "the session `ID` (default: the workspace's session written last)")
	fl.BoolVar(&f.yes, "yes", false, "apply without asking (files changed since wield wrote them still need --overwrite)")
	fl.BoolVar(&f.overwrite, "overwrite", false, "also overwrite files changed since wield wrote them (the undo keeps their content, so undoing it brings them back)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "only show what would change")
	fl.BoolVar(&f.asJSON, "json", false, "print the plan and the outcome as JSON")
	fl.BoolVar(&f.code, "code", false, "restore the files (the default)")
	fl.BoolVar(&f.conv, "conversation", false, "hide the undone turns from the model's prompt")
	fl.BoolVar(&f.both, "both", false, "restore the files and hide the turns")
}

func (f *undoFlags) scope(defaultCode bool) (ledger.Scope, error) {
	n := 0
	for _, b := range []bool{f.code, f.conv, f.both} {
		if b {
			n++
		}
	}
	if n > 1 {
		return ledger.Scope{}, errors.New("give one of --code, --conversation and --both")
	}
	switch {
	case f.both:
		return ledger.Scope{Code: true, Conversation: true}, nil
	case f.conv:
		return ledger.Scope{Conversation: true}, nil
	case f.code || defaultCode:
		return ledger.Scope{Code: true}, nil
	}
	return ledger.Scope{}, errors.New("say what to rewind: --code (the files), --conversation (the model's prompt) or --both")
}

func newUndoCommand(g *globals) *cobra.Command {
	var (
		f     undoFlags
		list  bool
		group string
	)
	cmd := &cobra.Command{
		Use:   "undo [--session ID] [--yes] [--list]",
		Short: "take back the last round's file changes, or list what can be undone",
		Long: `Undo takes back the file changes of the last round of work of a session
(the latest session of the workspace unless --session names one): files wield
edited get their earlier content and mode back, files it created are deleted,
files it deleted are re-created. Changes made through the shell (sed -i, a
generator, rm) are included when the workspace was snapshotted around the
round, which is the default in git repositories. Your repository's history,
refs and index are never touched.

A preview lists the files first; on a terminal you are asked before anything
changes. A file changed by someone else since wield wrote it is a conflict:
it is left alone unless you confirm, or pass --overwrite. Undo is itself
recorded, so running wield undo again redoes what was undone. A mutation
transaction the model opened with begin_change is undone as one; --group
takes back a named group (round:N, change:N, rewind:N) instead of the latest.

--list shows each round, its changes and whether they are in effect, and the
disk the session's saved contents use.

Examples:

  wield undo                  # preview and undo the last round's changes
  wield undo --yes            # without asking (scripts)
  wield undo --list           # rounds, changes, disk use
  wield undo --both           # also hide the round from the model's prompt
  wield undo --group change:2 # take back one mutation transaction

See also: wield rewind, wield session show.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, err := f.scope(true)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			sess, store, err := g.undoSession(cmd.Context(), f.session)
			if err != nil {
				return err
			}
			defer sess.Close()
			if list {
				return g.printLedger(cmd.Context(), store, sess.State(), f.asJSON)
			}
			var plan *ledger.Plan
			if group != "" {
				plan, err = ledger.PlanGroups(sess.State(), []string{group})
			} else {
				plan, err = ledger.PlanUndo(sess.State(), scope)
			}
			if errors.Is(err, ledger.ErrNothingToUndo) {
				return &exitError{exitToolFailure, fmt.Errorf("session %s: %w (wield undo --list shows its rounds)", sess.ID(), err)}
			}
			if err != nil {
				return &exitError{exitUsage, err}
			}
			return g.applyPlan(cmd.Context(), sess, plan, &f)
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&list, "list", false, "list the rounds, their changes and the disk they use")
	cmd.Flags().StringVar(&group, "group", "", "take back this ledger `group` (round:N, change:N, rewind:N) instead of the latest")
	return cmd
}

func newRewindCommand(g *globals) *cobra.Command {
	var (
		f  undoFlags
		to int
	)
	cmd := &cobra.Command{
		Use:   "rewind --to ROUND --code|--conversation|--both [--session ID]",
		Short: "put a session's files, prompt or both back to the start of a round",
		Long: `Rewind puts a session back to the start of round ROUND (wield undo --list
numbers them): --code restores every file changed from that round on, as undo
does for one round; --conversation hides that round's turns and all later ones
from the model's prompt (the session keeps them); --both does both.

The preview, the questions and conflicts work as in wield undo, and the rewind
is recorded: wield undo right after it takes it back.

Examples:

  wield rewind --to 3 --both
  wield rewind --to 3 --code --yes
  wield rewind --to 2 --conversation --session 20261125-101500-a1b2c3

See also: wield undo, wield session show.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, err := f.scope(false)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			if to < 1 {
				return &exitError{exitUsage, errors.New("--to ROUND is required: the round to go back to the start of (wield undo --list numbers them)")}
			}
			sess, _, err := g.undoSession(cmd.Context(), f.session)
			if err != nil {
				return err
			}
			defer sess.Close()
			plan, err := ledger.PlanRewind(sess.State(), to, scope)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			return g.applyPlan(cmd.Context(), sess, plan, &f)
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&to, "to", 0, "the `ROUND` to rewind to the start of")
	return cmd
}

// undoSession opens the session id for writing, or the latest top-level
// session of the workspace when id is empty.
func (g *globals) undoSession(ctx context.Context, id string) (*session.Session, *session.Store, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, nil, err
	}
	store := g.store(ws)
	if id == "" {
		list, err := store.List(ctx)
		if err != nil {
			return nil, nil, err
		}
		// The latest is the one written last: a resumed session counts.
		var latest time.Time
		for _, s := range list {
			if s.Err == "" && s.Child == nil && (id == "" || s.Modified.After(latest)) {
				id, latest = s.ID, s.Modified
			}
		}
		if id == "" {
			return nil, nil, &exitError{exitUsage, errors.New("no session in this workspace: nothing to undo")}
		}
	}
	sess, err := store.Open(ctx, id)
	if be, ok := errors.AsType[*session.BusyError](err); ok {
		return nil, nil, &exitError{exitUsage, fmt.Errorf("%w: wait for its run to finish (or stop it), then undo", be)}
	}
	if errors.Is(err, session.ErrNotFound) {
		return nil, nil, &exitError{exitUsage, fmt.Errorf("%w; wield session ls lists the sessions", err)}
	}
	if err != nil {
		return nil, nil, err
	}
	return sess, store, nil
}

// undoOutcome is what wield undo --json prints.
type undoOutcome struct {
	Session  string          `json:"session"`
	Groups   []string        `json:"groups,omitempty"`
	ToRound  int             `json:"to_round,omitempty"`
	Hide     *[2]int         `json:"hide_turns,omitempty"`
	Actions  []actionJSON    `json:"actions"`
	MCP      []mcpActionJSON `json:"mcp_servers,omitempty"`
	Applied  bool            `json:"applied"`
	Rewind   *session.Rewind `json:"rewind,omitempty"`
	Conflict []string        `json:"conflicts,omitempty"`
}

// mcpActionJSON is an MCP server the agent registered that an undo
// takes away ("remove") or brings back ("add").
type mcpActionJSON struct {
	Name    string `json:"name"`
	Action  string `json:"action"`
	Command string `json:"command,omitempty"`
	URL     string `json:"url,omitempty"`
}

type actionJSON struct {
	Path     string `json:"path"`
	Root     string `json:"root"`
	Kind     string `json:"kind"`
	Conflict bool   `json:"conflict,omitempty"`
	Problem  string `json:"problem,omitempty"`
}

// applyPlan previews plan, asks on a terminal, and applies it.
func (g *globals) applyPlan(ctx context.Context, sess *session.Session, plan *ledger.Plan, f *undoFlags) error {
	out := undoOutcome{Session: sess.ID(), Groups: plan.Groups, ToRound: plan.ToRound}
	if plan.Hide != [2]int{} {
		out.Hide = &plan.Hide
	}
	for _, a := range plan.Actions {
		out.Actions = append(out.Actions, actionJSON{Path: a.Path, Root: a.Root, Kind: a.Kind, Conflict: a.Conflict, Problem: a.Problem})
	}
	for _, a := range plan.MCP {
		j := mcpActionJSON{Name: a.Name, Action: registered.Add, Command: a.Server.Command, URL: a.Server.URL}
		if a.Remove {
			j.Action = registered.Remove
		}
		out.MCP = append(out.MCP, j)
	}
	if !f.asJSON {
		g.previewPlan(sess.State(), plan)
	}
	if plan.Empty() {
		if f.asJSON {
			return writeJSON(g, out)
		}
		fmt.Fprintln(g.stdout, "nothing to change: the files are already as they were")
		return nil
	}
	opts := &ledger.ApplyOptions{Overwrite: f.overwrite}
	switch {
	case f.dryRun:
		if f.asJSON {
			return writeJSON(g, out)
		}
		return nil
	case f.yes:
	case isTerminal(g.stderr) && !f.asJSON:
		ok, err := askYes(g.stdin, g.stderr, "Apply? [y/N] ")
		if err != nil || !ok {
			fmt.Fprintln(g.stderr, "nothing changed")
			return err
		}
		if len(plan.Conflicts()) > 0 && !f.overwrite {
			ok, err := askYes(g.stdin, g.stderr, fmt.Sprintf("%d file(s) changed since wield wrote them; overwrite them too? [y/N] ", len(plan.Conflicts())))
			if err != nil {
				return err
			}
			opts.Overwrite = ok
		}
	default:
		return &exitError{exitUsage, errors.New("not a terminal, so nobody can confirm: add --yes to apply, or --dry-run to only preview")}
	}
	if c := plan.Conflicts(); len(c) > 0 && !opts.Overwrite {
		// Apply what does not conflict; the conflicts are left as they are.
		plan = withoutConflicts(plan)
		for _, a := range c {
			out.Conflict = append(out.Conflict, a.Path)
		}
	}
	res, err := ledger.Apply(ctx, sess, plan, opts)
	if err != nil {
		return err
	}
	g.applyMCP(ctx, g.workspaceOrEmpty(), plan, sess) // see mcp.go
	out.Applied, out.Rewind = true, &res.Rewind
	if f.asJSON {
		return writeJSON(g, out)
	}
	fmt.Fprintf(g.stdout, "undone: %d file(s) restored", len(res.Applied))
	if n := len(plan.MCP); n > 0 {
		fmt.Fprintf(g.stdout, ", %d MCP server(s) taken away or brought back", n)
	}
	if plan.Hide != [2]int{} {
		fmt.Fprintf(g.stdout, ", turns %d-%d hidden from the prompt", plan.Hide[0], plan.Hide[1])
	}
	fmt.Fprintf(g.stdout, " (recorded as %s; wield undo again takes it back)\n", res.Rewind.Group())
	if len(out.Conflict) > 0 {
		fmt.Fprintf(g.stdout, "left alone, changed since wield wrote them: %s (add --overwrite to restore them too)\n", strings.Join(out.Conflict, ", "))
		return &exitError{exitToolFailure, fmt.Errorf("%d conflicting file(s) not restored", len(out.Conflict))}
	}
	return nil
}

// withoutConflicts returns plan without its conflicting actions. The
// groups stay: what is left of them is the user's now.
func withoutConflicts(plan *ledger.Plan) *ledger.Plan {
	p := *plan
	p.Actions = nil
	for _, a := range plan.Actions {
		if !a.Conflict || a.Problem != "" {
			p.Actions = append(p.Actions, a)
		}
	}
	return &p
}

// previewPlan shows what plan will change, on stderr.
func (g *globals) previewPlan(st *session.State, plan *ledger.Plan) {
	g.previewPlanTo(g.stderr, st, plan)
}

// previewPlanTo shows what plan will change, on w.
func (g *globals) previewPlanTo(w io.Writer, st *session.State, plan *ledger.Plan) {
	what := "Undo " + strings.Join(plan.Groups, ", ")
	if plan.ToRound > 0 {
		what = fmt.Sprintf("Rewind to the start of round %d", plan.ToRound)
	}
	fmt.Fprintf(w, "%s of session %s:\n", what, st.Header.ID)
	ws, _ := g.workspace()
	for _, a := range plan.Actions {
		p := a.Path
		if a.Root != ws {
			p = filepath.Join(a.Root, filepath.FromSlash(a.Path))
		}
		note := map[string]string{ledger.ActionRestore: "restore", ledger.ActionCreate: "re-create", ledger.ActionDelete: "delete", ledger.ActionMode: "restore mode"}[a.Kind]
		switch {
		case a.Problem != "":
			fmt.Fprintf(w, "  skip       %s (%s)\n", p, a.Problem)
		case a.Conflict:
			fmt.Fprintf(w, "  %-10s %s  CONFLICT: changed since wield wrote it\n", note, p)
		default:
			fmt.Fprintf(w, "  %-10s %s\n", note, p)
		}
	}
	if plan.Hide != [2]int{} {
		fmt.Fprintf(w, "  hide turns %d-%d from the model's prompt (the session keeps them)\n", plan.Hide[0], plan.Hide[1])
	}
	for _, h := range plan.Unhide {
		fmt.Fprintf(w, "  show turns %d-%d in the model's prompt again\n", h[0], h[1])
	}
	for _, a := range plan.MCP {
		what := a.Server.URL
		if what == "" {
			what = strings.Join(append([]string{a.Server.Command}, a.Server.Args...), " ")
		}
		verb := "remount"
		if a.Remove {
			verb = "unmount"
		}
		fmt.Fprintf(w, "  %-10s MCP server %s (%s), registered by the agent\n", verb, a.Name, what)
	}
	if len(plan.Actions) == 0 && plan.Hide == [2]int{} && len(plan.Unhide) == 0 && len(plan.MCP) == 0 {
		fmt.Fprintln(w, "  (no file to change)")
	}
}

func askYes(in io.Reader, out io.Writer, prompt string) (bool, error) {
	fmt.Fprint(out, prompt)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// roundJSON is one round of wield undo --list --json.
type roundJSON struct {
	Round   int        `json:"round"`
	Task    string     `json:"task,omitempty"`
	Status  string     `json:"status"`
	Changes []fileJSON `json:"changes,omitempty"`
	// MCP are the MCP servers the agent registered in the round, and
	// those an undo in it took away or brought back.
	MCP []mcpRecordJSON `json:"mcp_servers,omitempty"`
}

type mcpRecordJSON struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	Group  string `json:"group"`
	Undone bool   `json:"undone,omitempty"`
}

type fileJSON struct {
	Path    string `json:"path"`
	Group   string `json:"group"`
	Source  string `json:"source"`
	Change  string `json:"change"`
	Call    string `json:"call_id,omitempty"`
	Undone  bool   `json:"undone,omitempty"`
	Created bool   `json:"created,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

// printLedger lists st's rounds and their changes, and the disk use.
func (g *globals) printLedger(ctx context.Context, store *session.Store, st *session.State, asJSON bool) error {
	rounds := make([]roundJSON, len(st.Pools))
	for i, p := range st.Pools {
		rounds[i] = roundJSON{Round: p.Seq, Status: p.Status}
		first := p.Turns[0]
		if p.Status == session.PoolOpen {
			first = len(st.Turns) + 1
		}
		if t := st.TurnAt(first); t != nil && t.Kind == session.TurnUserTask {
			rounds[i].Task = oneLine(t.Text, 60)
		}
	}
	undone := map[string]bool{}
	active := map[string]bool{}
	for _, gr := range st.ActiveGroups() {
		active[gr] = true
	}
	for _, r := range st.Files {
		undone[r.Group] = !active[r.Group]
	}
	for _, r := range st.Files {
		f := fileJSON{Path: r.Path, Group: r.Group, Source: r.Source, Call: r.CallID, Undone: undone[r.Group],
			Created: r.BeforeHash == "", Deleted: r.AfterHash == ""}
		switch {
		case f.Created:
			f.Change = "created"
		case f.Deleted:
			f.Change = "deleted"
		default:
			f.Change = "modified"
		}
		if r.Round >= 1 && r.Round <= len(rounds) {
			rounds[r.Round-1].Changes = append(rounds[r.Round-1].Changes, f)
		}
	}
	for _, r := range registered.Entries(st) {
		if r.Group == "" || r.Round < 1 || r.Round > len(rounds) {
			continue
		}
		rounds[r.Round-1].MCP = append(rounds[r.Round-1].MCP, mcpRecordJSON{Name: r.Name, Action: r.Action, Group: r.Group, Undone: st.GroupUndone(r.Group)})
	}
	bytes, n, err := store.Blobs(st.Header.ID).Usage(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(g, map[string]any{"session": st.Header.ID, "rounds": rounds, "blob_bytes": bytes, "blobs": n})
	}
	fmt.Fprintf(g.stdout, "session %s\n", st.Header.ID)
	for _, r := range rounds {
		fmt.Fprintf(g.stdout, "round %d  %s  %s\n", r.Round, r.Status, strconv.Quote(r.Task))
		for _, c := range r.Changes {
			state := ""
			if c.Undone {
				state = "  (undone)"
			}
			by := c.Source
			if c.Call != "" {
				by += " " + c.Call
			}
			fmt.Fprintf(g.stdout, "  %-8s %-40s %s, %s%s\n", c.Change, c.Path, c.Group, by, state)
		}
		for _, m := range r.MCP {
			state := ""
			if m.Undone {
				state = "  (undone)"
			}
			fmt.Fprintf(g.stdout, "  mcp %-4s %-40s %s%s\n", m.Action, m.Name, m.Group, state)
		}
	}
	fmt.Fprintf(g.stdout, "saved contents: %d blob(s), %s\n", n, formatBytes(bytes))
	return nil
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// chatUndo runs /undo in wield chat: the latest round's (or change's)
// file changes are taken back. Asked on a terminal, the answers are the
// next lines of the chat's input, read through sc; headless, the undo is
// applied without overwriting files changed since.
func (g *globals) chatUndo(ctx context.Context, env *runEnv, sc *bufio.Scanner, ask bool) {
	sess, ok := env.session.(*session.Session)
	if !ok { // a chat's session is always journaled
		fmt.Fprintln(g.stderr, "wield: /undo: this session keeps no journal, so it has no changes to undo")
		return
	}
	msg, err := g.undoInChat(ctx, sess, scannerReader{sc}, g.stderr, ask)
	if err != nil {
		fmt.Fprintf(g.stderr, "wield: /undo: %v\n", err)
		return
	}
	fmt.Fprintf(g.stderr, "wield: %s\n", msg)
}

// scannerReader reads the lines of a scanner, one line (with its newline)
// per Read, so that a question asked in the middle of a chat takes one
// line of its input and no more.
type scannerReader struct{ sc *bufio.Scanner }

func (r scannerReader) Read(p []byte) (int, error) {
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	line := r.sc.Text() + "\n"
	if len(line) > len(p) { // a line longer than the reader's buffer: the answer is cut, never a yes
		line = line[:len(p)]
	}
	return copy(p, line), nil
}

// undoInChat is what /undo in wield chat calls: it previews on out the
// undo of the latest group of sess (open for writing by the chat), asks
// on in when confirm is set (conflicts only overwritten when the person
// says so; without confirm they are left alone), and applies it. It
// returns the line to show.
func (g *globals) undoInChat(ctx context.Context, sess *session.Session, in io.Reader, out io.Writer, confirm bool) (string, error) {
	plan, err := ledger.PlanUndo(sess.State(), ledger.Scope{Code: true})
	if errors.Is(err, ledger.ErrNothingToUndo) {
		return "nothing to undo", nil
	}
	if err != nil {
		return "", err
	}
	g.previewPlanTo(out, sess.State(), plan)
	opts := &ledger.ApplyOptions{}
	if confirm {
		ok, err := askYes(in, out, "Apply? [y/N] ")
		if err != nil || !ok {
			return "nothing changed", err
		}
		if len(plan.Conflicts()) > 0 {
			if opts.Overwrite, err = askYes(in, out, "Overwrite the files changed since? [y/N] "); err != nil {
				return "", err
			}
		}
	}
	if !opts.Overwrite {
		plan = withoutConflicts(plan)
	}
	res, err := ledger.Apply(ctx, sess, plan, opts)
	if err != nil {
		return "", err
	}
	g.applyMCP(ctx, g.workspaceOrEmpty(), plan, sess) // see mcp.go
	return fmt.Sprintf("undone: %d file(s) restored (/undo again takes it back)", len(res.Applied)), nil
}

// reportOpenChange tells a resumed session's user that its last run
// stopped inside a mutation transaction, and how to revert it; the
// transaction is closed as kept, so that new changes are not added to it.
func (g *globals) reportOpenChange(sess *session.Session) {
	c := sess.State().OpenChange()
	if c == nil {
		return
	}
	if _, err := sess.EndChange(session.ChangeKeep); err != nil {
		g.logger().Warn("close the interrupted change", "session", sess.ID(), "err", err)
		return
	}
	fmt.Fprintf(g.stderr, "session %s stopped inside change %d (%q, round %d); its changes are kept. To revert them: wield undo --session %s --group %s\n",
		sess.ID(), c.Seq, c.Reason, c.Round, sess.ID(), c.Group())
}
