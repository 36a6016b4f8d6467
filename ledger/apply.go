package ledger

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"strings"

	"github.com/wieldhq/wield/session"
)

// A ConflictError is returned by [Apply] when the plan would overwrite
// changes made after the ledger's record and the caller did not allow it.
// Nothing was changed.
type ConflictError struct {
	Paths []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%d file(s) changed since wield recorded them (%s); undoing would overwrite those changes", len(e.Paths), strings.Join(e.Paths, ", "))
}

// ApplyOptions say how [Apply] treats conflicts. The zero value refuses
// them.
type ApplyOptions struct {
	// Overwrite applies conflicting actions too, overwriting the later
	// changes (which the rewind record keeps, so they can be restored by
	// undoing the undo).
	Overwrite bool
}

// A Result is what [Apply] did.
type Result struct {
	// Rewind is the record appended; its group undoes the undo.
	Rewind session.Rewind
	// Applied are the actions done; Skipped those with a problem.
	Applied, Skipped []Action
}

// Apply carries out plan in sess, which must be the plan's session open
// for writing: it writes back the files (never through a symbolic link),
// keeps what it overwrites in the session's blob store, and appends a
// rewind record listing the groups taken back and the changes made, so
// that nothing is lost and the undo itself can be undone; the MCP servers
// the plan takes away or brings back ([Plan.MCP]) are recorded in the
// rewind's group too (unmounting them from a running wield is the
// caller's). It fails with a
// *[ConflictError] before changing anything when the plan has conflicts
// and opts does not allow overwriting them. When an action fails midway,
// the ones done are still recorded and the error is returned.
func Apply(ctx context.Context, sess *session.Session, plan *Plan, opts *ApplyOptions) (*Result, error) {
	if opts == nil {
		opts = &ApplyOptions{}
	}
	if sess.ID() != plan.Session {
		return nil, fmt.Errorf("apply: the plan is for session %s, not %s", plan.Session, sess.ID())
	}
	if c := plan.Conflicts(); len(c) > 0 && !opts.Overwrite {
		e := &ConflictError{}
		for _, a := range c {
			e.Paths = append(e.Paths, a.Path)
		}
		return nil, e
	}
	blobs := sess.Blobs()
	res := &Result{}
	var records []session.FileRecord
	var applyErr error
	for _, a := range plan.Actions {
		if err := ctx.Err(); err != nil {
			applyErr = err
			break
		}
		if a.Problem == "" && a.Target.Exists() && !blobs.Has(ctx, a.Target.Hash) {
			a.Problem = "its earlier content is no longer saved (dropped to keep the session under its size limit)"
		}
		if a.Problem != "" {
			res.Skipped = append(res.Skipped, a)
			continue
		}
		cur, err := restore(ctx, blobs, a)
		if err != nil {
			applyErr = fmt.Errorf("undo %s: %w", a.Path, err)
			break
		}
		res.Applied = append(res.Applied, a)
		records = append(records, session.FileRecord{Root: a.Root, Path: a.Path,
			BeforeHash: cur.Hash, BeforeMode: cur.Mode, AfterHash: a.Target.Hash, Mode: a.Target.Mode})
	}
	rw := session.Rewind{Reverts: plan.Groups, ToRound: plan.ToRound, Hide: plan.Hide}
	for _, a := range res.Applied {
		if a.Conflict {
			rw.Conflicts = append(rw.Conflicts, a.Path)
		}
	}
	if applyErr != nil {
		// Only what was done is recorded as undone: the groups stay in
		// effect, and the rewind's own changes can be undone.
		rw.Reverts, rw.Hide = nil, [2]int{}
	}
	if len(records) > 0 || applyErr == nil {
		r, err := sess.AppendRewind(rw, records)
		if err != nil {
			return res, errors.Join(applyErr, err)
		}
		res.Rewind = r
		if applyErr == nil {
			if err := recordMCP(sess, r.Group(), plan.MCP); err != nil {
				return res, err
			}
		}
	}
	if applyErr == nil && plan.CloseChange != 0 {
		if _, err := sess.EndChange(session.ChangeRevert); err != nil {
			return res, err
		}
	}
	return res, applyErr
}

// restore puts a.Target in place and returns the file as it was, whose
// content it has kept in blobs.
func restore(ctx context.Context, blobs *session.Blobs, a Action) (session.FileRef, error) {
	r, err := os.OpenRoot(a.Root)
	if err != nil {
		return session.FileRef{}, err
	}
	defer r.Close()
	// Check again just before writing: the plan may be old.
	cur, problem := current(a.Root, a.Path)
	if problem != "" {
		return session.FileRef{}, errors.New(problem)
	}
	if cur.Exists() {
		data, err := readEntry(r, a.Path, cur.Mode)
		if err != nil {
			return session.FileRef{}, err
		}
		if session.HashBytes(data) != cur.Hash {
			return session.FileRef{}, errors.New("the file changed while it was being undone; try again")
		}
		if _, err := blobs.Put(ctx, data); err != nil {
			return session.FileRef{}, err
		}
	}
	if !a.Target.Exists() {
		if err := r.Remove(a.Path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return cur, err
		}
		// Directories left empty go too, as git does on checkout.
		for dir := path.Dir(a.Path); dir != "."; dir = path.Dir(dir) {
			if r.Remove(dir) != nil {
				break
			}
		}
		return cur, nil
	}
	data, err := blobs.Get(ctx, a.Target.Hash)
	if err != nil {
		return cur, err
	}
	if dir := path.Dir(a.Path); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return cur, err
		}
	}
	if a.Target.Mode&iofs.ModeSymlink != 0 {
		if err := r.Remove(a.Path); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return cur, err
		}
		return cur, r.Symlink(string(data), a.Path)
	}
	return cur, writeFile(r, a.Path, data, a.Target.Mode.Perm())
}

// writeFile replaces rel with data atomically: a temporary file beside
// it, synced, then renamed over it (which replaces a link, never what it
// points to).
func writeFile(r *os.Root, rel string, data []byte, mode iofs.FileMode) error {
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".wield-undo")
	_ = r.Remove(tmp)
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, rel)
	}
	if err != nil {
		_ = r.Remove(tmp)
	}
	return err
}
