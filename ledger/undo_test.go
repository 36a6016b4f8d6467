package ledger_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
)

// env is a workspace with a session store, the file tools wired to the
// ledger and a tracker.
type env struct {
	t       *testing.T
	root    string
	ws      *os.Root
	store   *session.Store
	sess    *session.Session
	tracker *ledger.Tracker
	tools   map[string]*tool.Tool
	calls   int
}

func newEnv(t *testing.T, files map[string]string) *env {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		write(t, root, p, c)
	}
	state := t.TempDir()
	store := &session.Store{Dir: filepath.Join(state, "sessions")}
	sess, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ws, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	e := &env{t: t, root: root, ws: ws, store: store, sess: sess, tools: map[string]*tool.Tool{},
		tracker: &ledger.Tracker{Store: store, Watch: []ledger.Watched{{Root: root, Snapshots: &ledger.Snapshotter{Dir: filepath.Join(state, "snapshots")}}}}}
	for _, tl := range fs.Tools(fs.Config{Recorder: store}) {
		e.tools[tl.Name()] = tl
	}
	return e
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call runs a file tool in the session and fails the test if it fails.
func (e *env) call(name string, args any) {
	e.t.Helper()
	raw, _ := json.Marshal(args)
	e.calls++
	c := &tool.Call{SessionID: e.sess.ID(), ID: fmt.Sprintf("call-%d", e.calls), Tool: name, Root: e.ws}
	res, err := e.tools[name].Handler().Handle(e.t.Context(), c, raw)
	if err != nil || !res.Success {
		e.t.Fatalf("%s(%s) = %v, %v", name, raw, res.Output, err)
	}
}

// sh runs a command in a real shell in the workspace.
func (e *env) sh(script string) {
	e.t.Helper()
	cmd := exec.CommandContext(e.t.Context(), "sh", "-c", script)
	cmd.Dir = e.root
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("sh %q: %v\n%s", script, err, out)
	}
}

// round runs body as one round of the session, tracked.
func (e *env) round(task string, body func()) {
	e.t.Helper()
	ctx := e.t.Context()
	if err := e.tracker.RoundStarted(ctx, e.sess.ID()); err != nil {
		e.t.Fatal(err)
	}
	if err := e.sess.Begin(ctx, task); err != nil {
		e.t.Fatal(err)
	}
	body()
	if err := e.tracker.RoundEnded(ctx, e.sess.ID()); err != nil {
		e.t.Fatal(err)
	}
	if err := e.sess.Commit(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// treeHash hashes every file of root (path, mode, content; links by
// target) with a fresh walk that shares no code with package ledger.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		var data []byte
		if info.Mode()&iofs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			data = []byte("link:" + target)
		} else if data, err = os.ReadFile(p); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		lines = append(lines, fmt.Sprintf("%s %v %s", filepath.ToSlash(rel), info.Mode(), hex.EncodeToString(sum[:])))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// undoLast plans and applies an undo of the latest group in effect.
func (e *env) undoLast(opts *ledger.ApplyOptions) (*ledger.Plan, error) {
	e.t.Helper()
	plan, err := ledger.PlanUndo(e.sess.State(), ledger.Scope{Code: true})
	if err != nil {
		return nil, err
	}
	_, err = ledger.Apply(e.t.Context(), e.sess, plan, opts)
	return plan, err
}

func TestUndoRoundOfToolsAndShellIsByteIdentical(t *testing.T) {
	e := newEnv(t, map[string]string{
		"main.go":        "package main\n\nfunc main() { println(\"old\") }\n",
		"doomed.txt":     "delete me\n",
		"sub/config.txt": "mode=slow\n",
		"shell-del.txt":  "the shell removes this\n",
		"both.txt":       "alpha\nbeta\n",
	})
	if err := os.Symlink("main.go", filepath.Join(e.root, "link.go")); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, e.root)
	e.round("edit things", func() {
		e.call("replace", map[string]any{"path": "main.go", "old_string": "old", "new_string": "new"})
		e.call("write_file", map[string]any{"path": "pkg/new.go", "content": "package pkg\n"})
		e.sh("sed -i 's/slow/fast/' sub/config.txt && rm doomed.txt shell-del.txt && echo hi > made-by-shell.txt && chmod 755 main.go")
		e.call("replace", map[string]any{"path": "both.txt", "old_string": "beta", "new_string": "gamma"})
		e.sh("sed -i 's/alpha/ALPHA/' both.txt")
	})
	if treeHash(t, e.root) == before {
		t.Fatal("the round changed nothing")
	}
	plan, err := e.undoLast(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := plan.Conflicts(); len(c) > 0 {
		t.Fatalf("conflicts: %+v", c)
	}
	if got := treeHash(t, e.root); got != before {
		t.Errorf("after undo the tree differs from before the round")
	}
	if _, err := os.Stat(filepath.Join(e.root, "pkg/new.go")); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("pkg/new.go, created by the round, still exists: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.root, "made-by-shell.txt")); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("made-by-shell.txt, created by the shell, still exists: %v", err)
	}
}

func TestUndoOfUndoRedoes(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "one\n"})
	e.round("edit", func() {
		e.call("write_file", map[string]any{"path": "a.txt", "content": "two\n"})
		e.call("write_file", map[string]any{"path": "b.txt", "content": "new\n"})
	})
	edited := treeHash(t, e.root)
	if _, err := e.undoLast(nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, e.root, "a.txt"); got != "one\n" {
		t.Fatalf("after undo a.txt = %q, want %q", got, "one\n")
	}
	if _, err := e.undoLast(nil); err != nil {
		t.Fatal(err)
	}
	if got := treeHash(t, e.root); got != edited {
		t.Errorf("after undoing the undo the tree is not as the round left it")
	}
	st := e.sess.State()
	if diff := cmp.Diff([]string{"round:1", "rewind:2"}, st.ActiveGroups()); diff != "" {
		t.Errorf("active groups (-want +got):\n%s", diff)
	}
}

func read(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUndoReportsConflictingLaterEdit(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n"})
	e.round("edit", func() {
		e.call("write_file", map[string]any{"path": "a.txt", "content": "two\n"})
		e.call("write_file", map[string]any{"path": "b.txt", "content": "bb\n"})
	})
	write(t, e.root, "a.txt", "the user's own edit\n")
	plan, err := e.undoLast(nil)
	var ce *ledger.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("undo over a later edit: err = %v, want a ConflictError", err)
	}
	if diff := cmp.Diff([]string{"a.txt"}, ce.Paths); diff != "" {
		t.Errorf("conflicts (-want +got):\n%s", diff)
	}
	if plan == nil || len(plan.Conflicts()) != 1 {
		t.Errorf("plan conflicts = %v, want one", plan)
	}
	if got := read(t, e.root, "b.txt"); got != "bb\n" {
		t.Errorf("a refused undo changed b.txt to %q", got)
	}
	// Confirmed, it overwrites; the user's edit is kept in the ledger and
	// comes back with an undo of the undo.
	if _, err := e.undoLast(&ledger.ApplyOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, e.root, "a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q after a confirmed undo", got)
	}
	if _, err := e.undoLast(nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, e.root, "a.txt"); got != "the user's own edit\n" {
		t.Errorf("a.txt = %q after undoing the undo, want the user's edit back", got)
	}
}

func TestTransactionOfThreeCallsRevertedAsOne(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a\n"})
	var kept string
	e.round("work", func() {
		e.call("write_file", map[string]any{"path": "a.txt", "content": "a2\n"}) // outside: kept
		kept = treeHash(t, e.root)
		if _, err := e.sess.BeginChange("try a refactor"); err != nil {
			t.Fatal(err)
		}
		e.call("write_file", map[string]any{"path": "a.txt", "content": "a3\n"})
		e.call("write_file", map[string]any{"path": "b.txt", "content": "b\n"})
		e.call("replace", map[string]any{"path": "b.txt", "old_string": "b", "new_string": "bee"})
		st := e.sess.State()
		plan, err := ledger.PlanGroups(st, []string{st.OpenChange().Group()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.Apply(t.Context(), e.sess, plan, nil); err != nil {
			t.Fatal(err)
		}
	})
	if got := treeHash(t, e.root); got != kept {
		t.Errorf("after reverting the transaction the tree is not as before it")
	}
	st := e.sess.State()
	if c := st.ChangeTxs[0]; c.Outcome != session.ChangeRevert {
		t.Errorf("change outcome = %q, want revert", c.Outcome)
	}
	if got := read(t, e.root, "a.txt"); got != "a2\n" {
		t.Errorf("a.txt = %q, want the change made before the transaction", got)
	}
}

func TestRewindConversationHidesLaterRounds(t *testing.T) {
	e := newEnv(t, map[string]string{})
	for i := range 3 {
		e.round(fmt.Sprintf("task %d", i+1), func() {
			e.call("write_file", map[string]any{"path": "f.txt", "content": fmt.Sprintf("v%d\n", i+1)})
		})
	}
	plan, err := ledger.PlanRewind(e.sess.State(), 2, ledger.Scope{Code: true, Conversation: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Apply(t.Context(), e.sess, plan, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, e.root, "f.txt"); got != "v1\n" {
		t.Errorf("f.txt = %q after rewinding to round 2, want v1", got)
	}
	var tasks []string
	for _, m := range e.sess.History() {
		if m.Role == "user" {
			tasks = append(tasks, m.Content)
		}
	}
	if diff := cmp.Diff([]string{"task 1"}, tasks); diff != "" {
		t.Errorf("tasks in the prompt after the rewind (-want +got):\n%s", diff)
	}
	// Undoing the rewind brings both back.
	if _, err := e.undoLast(nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, e.root, "f.txt"); got != "v3\n" {
		t.Errorf("f.txt = %q after undoing the rewind", got)
	}
	if n := len(e.sess.History()); n != 3 {
		t.Errorf("history has %d messages after undoing the rewind, want 3", n)
	}
}

func TestUndoDoesNotWriteThroughLinkedParent(t *testing.T) {
	e := newEnv(t, map[string]string{"d/a.txt": "a\n"})
	e.round("edit", func() {
		e.call("write_file", map[string]any{"path": "d/a.txt", "content": "b\n"})
	})
	outside := t.TempDir()
	write(t, outside, "a.txt", "b\n")
	if err := os.Rename(filepath.Join(e.root, "d"), filepath.Join(e.root, "d-moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.root, "d")); err != nil {
		t.Fatal(err)
	}
	plan, err := ledger.PlanUndo(e.sess.State(), ledger.Scope{Code: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Actions) != 1 || plan.Actions[0].Problem == "" {
		t.Fatalf("plan = %+v, want the action skipped with a problem", plan.Actions)
	}
	if _, err := ledger.Apply(context.WithoutCancel(t.Context()), e.sess, plan, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, outside, "a.txt"); got != "b\n" {
		t.Errorf("the file outside the workspace became %q", got)
	}
}

// TestUndoTakesBackChangesToWieldsOwnConfiguration: a permission rule
// saved, a memory note written and an MCP server added to wield's
// configuration during a round are undone with the round, through the
// snapshot of wield's state directory.
func TestUndoTakesBackChangesToWieldsOwnConfiguration(t *testing.T) {
	e := newEnv(t, map[string]string{
		".wield/settings.json":     `{"permissions":{"allow":[]}}` + "\n",
		".wield/sessions/x.jsonl":  "not watched\n",
		".wield/memory/project.md": "# Memory\n",
	})
	state := filepath.Join(e.root, ".wield")
	e.tracker.Watch = append(e.tracker.Watch, ledger.Watched{Root: state,
		Snapshots: &ledger.Snapshotter{Dir: t.TempDir(), Only: []string{"settings.json", "mcp.json", "memory", "skills"}}})
	before := treeHash(t, state)
	e.round("self-modify", func() {
		write(t, state, "settings.json", `{"permissions":{"allow":["Bash(rm:*)"]}}`+"\n")
		write(t, state, "memory/notes/new.md", "remember this\n")
		write(t, state, "mcp.json", `{"mcpServers":{"evil":{"command":"evil"}}}`+"\n")
		write(t, state, "skills/new/SKILL.md", "---\nname: new\n---\n")
		write(t, state, "sessions/x.jsonl", "changed, but not watched\n")
	})
	if _, err := e.undoLast(nil); err != nil {
		t.Fatal(err)
	}
	write(t, state, "sessions/x.jsonl", "not watched\n")
	if got := treeHash(t, state); got != before {
		t.Errorf("wield's configuration after undo differs from before the round")
	}
	if _, err := os.Stat(filepath.Join(state, "mcp.json")); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("the MCP server file the round created is still there: %v", err)
	}
}

func TestUndoOfConversationRewindShowsTheTurnsAgain(t *testing.T) {
	e := newEnv(t, map[string]string{})
	for i := range 2 {
		e.round(fmt.Sprintf("task %d", i+1), func() {})
	}
	plan, err := ledger.PlanRewind(e.sess.State(), 2, ledger.Scope{Conversation: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Apply(t.Context(), e.sess, plan, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(e.sess.History()); n != 1 {
		t.Fatalf("history after the rewind has %d messages, want 1", n)
	}
	plan, err = ledger.PlanUndo(e.sess.State(), ledger.Scope{Code: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Empty() {
		t.Fatal("the undo of a conversation rewind is empty")
	}
	if _, err := ledger.Apply(t.Context(), e.sess, plan, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(e.sess.History()); n != 2 {
		t.Errorf("history after undoing the rewind has %d messages, want 2", n)
	}
}
