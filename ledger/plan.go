package ledger

import (
	"cmp"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"slices"
	"strings"

	"github.com/wieldhq/wield/session"
)

// The kinds of [Action].
const (
	ActionRestore = "restore" // write the earlier content over the file
	ActionCreate  = "create"  // re-create a file that was deleted
	ActionDelete  = "delete"  // delete a file the undone changes created
	ActionMode    = "mode"    // restore the file's mode only
)

// An Action is one file an undo changes.
type Action struct {
	// Root is the absolute directory Path is relative to; Path is
	// slash-separated.
	Root, Path string
	// Kind is one of the Action constants.
	Kind string
	// Current is the file as it is now, Expected as the ledger last
	// recorded it, Target as it will be.
	Current, Expected, Target session.FileRef
	// Conflict is set when Current differs from Expected: someone changed
	// the file after the changes being undone, and undoing overwrites that.
	Conflict bool
	// Problem says why the action cannot be applied (a directory where the
	// file was, a symbolic link among its parents, a lost blob); such an
	// action is skipped.
	Problem string
}

// A Plan is what an undo or rewind will do: the ledger groups it takes
// back, the files it changes and the conversation turns it hides. Build
// one with [PlanUndo] or [PlanRewind], show it, then [Apply] it.
type Plan struct {
	// Session is the session's id.
	Session string
	// Groups are the ledger groups taken back, oldest first.
	Groups []string
	// ToRound is the round rewound to the start of; 0 for an undo.
	ToRound int
	// Actions are the file changes, by path.
	Actions []Action
	// Hide is the range of turns no longer shown in prompts, for a
	// conversation rewind; zero otherwise.
	Hide [2]int
	// CloseChange is the open mutation transaction the plan takes back,
	// which applying ends as reverted; 0 when none.
	CloseChange int
	// Unhide lists the turn ranges shown again in prompts: those of the
	// conversation rewinds the plan takes back.
	Unhide [][2]int
	// MCP lists the MCP servers the agent registered that the plan takes
	// away or brings back. Applying records it; unmounting them from a
	// running wield is the caller's.
	MCP []MCPAction
}

// Conflicts returns the actions that overwrite someone else's change.
func (p *Plan) Conflicts() []Action {
	var out []Action
	for _, a := range p.Actions {
		if a.Conflict && a.Problem == "" {
			out = append(out, a)
		}
	}
	return out
}

// Empty reports whether applying the plan would change nothing.
func (p *Plan) Empty() bool {
	if p.Hide != [2]int{} || p.CloseChange != 0 || len(p.Unhide) > 0 || len(p.MCP) > 0 {
		return false
	}
	for _, a := range p.Actions {
		if a.Problem == "" {
			return false
		}
	}
	return true
}

// What an undo or rewind covers.
type Scope struct {
	// Code restores files; Conversation hides turns from prompts.
	Code, Conversation bool
}

// ErrNothingToUndo is returned by [PlanUndo] when the session's ledger has
// nothing in effect to take back.
var ErrNothingToUndo = errors.New("nothing to undo: the session made no file changes (nor registered MCP servers) that are still in effect")

// PlanUndo plans taking back the newest ledger group in effect of st: the
// last round's changes, the last mutation transaction, or the last undo
// (an undo of an undo redoes). A conversation scope also hides the turns
// of that round from prompts, when the group is a round's. A group in
// which the agent registered an MCP server counts, whether or not it
// changed files.
func PlanUndo(st *session.State, scope Scope) (*Plan, error) {
	groups := activeGroups(st)
	if len(groups) == 0 {
		return nil, ErrNothingToUndo
	}
	g := groups[len(groups)-1]
	p := &Plan{Session: st.Header.ID, Groups: []string{g}}
	if n, ok := session.GroupRound(g); ok && scope.Conversation {
		p.Hide = roundTurns(st, n)
	}
	return p.fill(st, scope)
}

// PlanGroups plans taking back the given ledger groups.
func PlanGroups(st *session.State, groups []string) (*Plan, error) {
	active := activeGroups(st)
	for _, g := range groups {
		if !slices.Contains(active, g) {
			return nil, fmt.Errorf("undo %s: it is not in effect (already undone, or no such change)", g)
		}
	}
	p := &Plan{Session: st.Header.ID, Groups: slices.Clone(groups)}
	return p.fill(st, Scope{Code: true})
}

// PlanRewind plans putting the session back to the start of round n: the
// files as they were before it (code), and the prompt without its turns
// and the later ones (conversation).
func PlanRewind(st *session.State, n int, scope Scope) (*Plan, error) {
	if n < 1 || n > len(st.Pools) {
		return nil, fmt.Errorf("rewind to round %d: the session has rounds 1 to %d", n, len(st.Pools))
	}
	p := &Plan{Session: st.Header.ID, ToRound: n}
	if scope.Code {
		for _, g := range activeGroups(st) {
			if groupFrom(st, g, n) || mcpFrom(st, g, n) {
				p.Groups = append(p.Groups, g)
			}
		}
	}
	if scope.Conversation {
		p.Hide = roundTurns(st, n)
		p.Hide[1] = st.Timeline()
		if p.Hide[0] > p.Hide[1] {
			p.Hide = [2]int{}
		}
	}
	return p.fill(st, scope)
}

// groupFrom reports whether group g has a record of round n or later.
func groupFrom(st *session.State, g string, n int) bool {
	for i := range st.Files {
		if st.Files[i].Group == g && st.Files[i].Round >= n {
			return true
		}
	}
	return false
}

// roundTurns returns the range of timeline turns of round n.
func roundTurns(st *session.State, n int) [2]int {
	if n < 1 || n > len(st.Pools) {
		return [2]int{}
	}
	pr := st.Pools[n-1]
	if pr.Status != session.PoolOpen {
		return pr.Turns
	}
	return [2]int{len(st.Turns) + 1, st.Timeline()}
}

// fill computes the plan's actions from the ledger and the files on disk.
func (p *Plan) fill(st *session.State, scope Scope) (*Plan, error) {
	if c := st.OpenChange(); c != nil && slices.Contains(p.Groups, c.Group()) {
		p.CloseChange = c.Seq
	}
	for i := range st.Rewinds {
		if r := &st.Rewinds[i]; r.Hide != [2]int{} && slices.Contains(p.Groups, r.Group()) {
			p.Unhide = append(p.Unhide, r.Hide)
		}
	}
	if p.ToRound > 0 && len(p.Groups) == 0 || !scope.Code && len(p.Unhide) == 0 {
		p.Groups = nil
		return p, nil
	}
	if !scope.Code {
		return p, nil
	}
	p.MCP = mcpActions(st, p.Groups)
	type key struct{ root, path string }
	type span struct {
		first, last *session.FileRecord
		firstAt     [3]int
	}
	in := map[string]bool{}
	for _, g := range p.Groups {
		in[g] = true
	}
	order := func(i int, r *session.FileRecord) [3]int {
		pre := 1
		if r.Pre {
			pre = 0
		}
		return [3]int{r.Round, pre, i}
	}
	spans := map[key]*span{}
	var keys []key
	for i := range st.Files {
		r := &st.Files[i]
		// A rewind follows every change from its round on, undone ones
		// too: the files go back to what they were before the first.
		if p.ToRound > 0 && r.Round < p.ToRound || p.ToRound == 0 && !in[r.Group] {
			continue
		}
		k := key{r.Root, r.Path}
		at := order(i, r)
		s, ok := spans[k]
		if !ok {
			spans[k] = &span{first: r, last: r, firstAt: at}
			keys = append(keys, k)
			continue
		}
		if cmpOrder(at, s.firstAt) < 0 {
			s.first, s.firstAt = r, at
		}
		if !r.Pre {
			s.last = r
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.root, b.root), cmp.Compare(a.path, b.path)) })
	for _, k := range keys {
		s := spans[k]
		a := Action{Root: k.root, Path: k.path, Expected: s.last.After(), Target: s.first.Before()}
		cur, problem := current(k.root, k.path)
		a.Current, a.Problem = cur, problem
		if problem == "" && cur == a.Target {
			continue // already so
		}
		a.Conflict = problem == "" && cur != a.Expected
		switch {
		case !a.Target.Exists():
			a.Kind = ActionDelete
		case !a.Current.Exists():
			a.Kind = ActionCreate
		case a.Current.Hash == a.Target.Hash:
			a.Kind = ActionMode
		default:
			a.Kind = ActionRestore
		}
		p.Actions = append(p.Actions, a)
	}
	return p, nil
}

func cmpOrder(a, b [3]int) int {
	return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]), cmp.Compare(a[2], b[2]))
}

// current returns the file root/rel as it is now, or why it cannot be
// handled. A symbolic link is the file itself (its target is its
// content); a link among its parents is a problem, never followed.
func current(root, rel string) (session.FileRef, string) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return session.FileRef{}, fmt.Sprintf("cannot open %s: %v", root, err)
	}
	defer r.Close()
	if prob := linkedParent(r, rel); prob != "" {
		return session.FileRef{}, prob
	}
	info, err := r.Lstat(rel)
	if errors.Is(err, iofs.ErrNotExist) {
		return session.FileRef{}, ""
	}
	if err != nil {
		return session.FileRef{}, err.Error()
	}
	switch {
	case info.IsDir():
		return session.FileRef{}, "a directory is there now"
	case info.Mode()&iofs.ModeSymlink != 0:
		target, err := r.Readlink(rel)
		if err != nil {
			return session.FileRef{}, err.Error()
		}
		return session.FileRef{Hash: session.HashBytes([]byte(target)), Mode: iofs.ModeSymlink}, ""
	case !info.Mode().IsRegular():
		return session.FileRef{}, "not a regular file"
	}
	data, err := r.ReadFile(rel)
	if err != nil {
		return session.FileRef{}, err.Error()
	}
	return session.FileRef{Hash: session.HashBytes(data), Mode: info.Mode().Perm()}, ""
}

// linkedParent returns a problem when a parent directory of rel is a
// symbolic link: an undo writes through no link.
func linkedParent(r *os.Root, rel string) string {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		info, err := r.Lstat(dir)
		if errors.Is(err, iofs.ErrNotExist) {
			return ""
		}
		if err != nil {
			return err.Error()
		}
		if info.Mode()&iofs.ModeSymlink != 0 {
			return dir + " is a symbolic link; an undo does not write through links"
		}
		if !info.IsDir() {
			return dir + " is a file now, not a directory"
		}
	}
	return ""
}
