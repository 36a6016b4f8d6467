package ledger

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"

	"github.com/wieldhq/wield/session"
)

// A Tracker snapshots directory trees (the workspace, wield's own
// configuration) before and after each round of a session's work and
// records in the session's ledger every change the tools did not report
// themselves: what shell commands did (sed -i, a code generator, rm), and
// what the agent changed of wield (memory, skills, permission rules, MCP
// server files), so that undo takes it back too. It implements the agent
// package's RoundObserver. It is safe for concurrent use, for different
// sessions.
//
// Changes anyone else made to the workspace during the round are recorded
// as the round's too: a snapshot cannot tell who wrote a file.
type Tracker struct {
	// Store holds the sessions; a round of a session this process does not
	// have open for writing is not tracked.
	Store *session.Store
	// Watch lists the trees snapshotted around each round: the workspace
	// (its absolute directory, as the file tools name it in their
	// records), and wield's own configuration (memory, skills, settings
	// with their permission rules, MCP server files), so that what an
	// agent changed of wield itself is undone with the rest.
	Watch []Watched
	// MaxBlobBytes caps each session's blob store, checked after every
	// round (see [session.Session.PruneBlobs]); zero means
	// session.DefaultBlobLimit.
	MaxBlobBytes int64
	// Logger receives a warning when a snapshot fails (the round goes on
	// untracked) and when contents are dropped to keep under MaxBlobBytes;
	// nil discards.
	Logger *slog.Logger

	mu     sync.Mutex
	starts map[string]roundStart
}

// Watched is a tree a [Tracker] snapshots.
type Watched struct {
	// Root is the tree's absolute directory.
	Root string
	// Snapshots takes its snapshots.
	Snapshots *Snapshotter
}

type roundStart struct {
	trees []*Tree // by Watch index; nil where the snapshot failed
	mark  int     // the ledger's length when the round started
}

func (t *Tracker) logger() *slog.Logger {
	if t.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return t.Logger
}

// RoundStarted snapshots the workspace before a round of session id.
func (t *Tracker) RoundStarted(ctx context.Context, id string) error {
	sess, ok := t.Store.Writer(id)
	if !ok {
		return nil
	}
	start := roundStart{trees: make([]*Tree, len(t.Watch)), mark: sess.FileCount()}
	for i, w := range t.Watch {
		tree, err := w.Snapshots.Take(ctx, w.Root)
		if err != nil {
			t.logger().Warn("snapshot failed; changes made outside the file tools this round cannot be undone", "session", id, "root", w.Root, "err", err)
			continue
		}
		start.trees[i] = tree
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.starts == nil {
		t.starts = map[string]roundStart{}
	}
	t.starts[id] = start
	return nil
}

// RoundEnded snapshots the workspace after a round of session id and
// appends to its ledger, as SourceShell records, the differences the
// tools' records do not explain. Its error means the ledger could not be
// written.
func (t *Tracker) RoundEnded(ctx context.Context, id string) error {
	t.mu.Lock()
	start, ok := t.starts[id]
	delete(t.starts, id)
	t.mu.Unlock()
	if !ok {
		return nil
	}
	sess, ok := t.Store.Writer(id)
	if !ok {
		return nil
	}
	st := sess.State()
	tools := st.Files[min(start.mark, len(st.Files)):]
	var records []session.FileRecord
	for i, w := range t.Watch {
		if start.trees[i] == nil {
			continue
		}
		after, err := w.Snapshots.Take(ctx, w.Root)
		if err != nil {
			t.logger().Warn("snapshot failed; changes made outside the file tools this round cannot be undone", "session", id, "root", w.Root, "err", err)
			continue
		}
		rs := ShellChanges(start.trees[i], after, tools, func(rel string) bool { return exists(w.Root, rel) })
		if err := copyBlobs(ctx, w.Snapshots.Blobs(), sess.Blobs(), rs); err != nil {
			return fmt.Errorf("record the changes of session %s in %s: %w", id, w.Root, err)
		}
		records = append(records, rs...)
	}
	if err := sess.AppendFileRecords(records); err != nil {
		return err
	}
	rep, err := sess.PruneBlobs(ctx, t.MaxBlobBytes)
	if err != nil {
		return fmt.Errorf("prune the saved contents of session %s: %w", id, err)
	}
	if rep.Dropped > 0 {
		t.logger().Warn("the session's saved file contents passed their limit; the oldest were dropped, and their changes can no longer be undone",
			"session", id, "dropped", rep.Dropped, "bytes_before", rep.Before, "bytes_after", rep.After)
	}
	return nil
}

// copyBlobs copies the contents records name from src to dst.
func copyBlobs(ctx context.Context, src, dst *session.Blobs, records []session.FileRecord) error {
	for _, r := range records {
		for _, h := range []string{r.BeforeHash, r.AfterHash} {
			if h == "" || dst.Has(ctx, h) {
				continue
			}
			data, err := src.Get(ctx, h)
			if err != nil {
				return err
			}
			if _, err := dst.Put(ctx, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// exists reports whether rel exists in root now.
func exists(root, rel string) bool {
	r, err := os.OpenRoot(root)
	if err != nil {
		return false
	}
	defer r.Close()
	_, err = r.Lstat(rel)
	return err == nil
}

// ShellChanges returns the file records that explain the difference
// between the snapshots before and after a round, given the records the
// tools made during it (tools; those of other roots are ignored): a change
// of a file no tool touched, a change made after a tool's last change of
// the file, and (marked Pre) one made before the tool's first. exists
// reports whether a path absent from both snapshots exists: such a file
// is one the snapshot leaves out (too large, ignored), not one deleted.
func ShellChanges(before, after *Tree, tools []session.FileRecord, exists func(rel string) bool) []session.FileRecord {
	type chain struct{ first, last session.FileRef }
	chains := map[string]*chain{}
	for i := range tools {
		r := &tools[i]
		if r.Root != after.Root || r.Source == session.SourceShell {
			continue
		}
		c, ok := chains[r.Path]
		if !ok {
			chains[r.Path] = &chain{first: r.Before(), last: r.After()}
			continue
		}
		c.last = r.After()
	}
	paths := Diff(before, after)
	for p := range chains {
		if _, ok := slices.BinarySearch(paths, p); !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var out []session.FileRecord
	add := func(p string, from, to session.FileRef, pre bool) {
		if from == to {
			return
		}
		out = append(out, session.FileRecord{Root: after.Root, Path: p, BeforeHash: from.Hash, BeforeMode: from.Mode,
			AfterHash: to.Hash, Mode: to.Mode, Source: session.SourceShell, Pre: pre})
	}
	for _, p := range paths {
		if !cleanRel(p) {
			continue
		}
		b, inBefore := before.Files[p]
		a, inAfter := after.Files[p]
		c, touched := chains[p]
		if !touched {
			add(p, b.Ref(), a.Ref(), false)
			continue
		}
		if !inBefore && !inAfter && exists != nil && exists(p) {
			continue // outside the snapshots' view
		}
		if inBefore || !c.first.Exists() {
			add(p, b.Ref(), c.first, true)
		}
		add(p, c.last, a.Ref(), false)
	}
	return out
}
