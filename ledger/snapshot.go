package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/workspace"
)

// DefaultMaxFileSize is the size above which a snapshot leaves a file out.
const DefaultMaxFileSize = 10 << 20

// DefaultSkipDirs are the directory names a snapshot never enters:
// version control, dependencies, virtual environments and build caches,
// which tools re-create and which would make snapshots slow and large.
var DefaultSkipDirs = []string{".git", ".hg", ".svn", "node_modules", "vendor", ".venv", "venv", "__pycache__",
	"target", ".gradle", ".tox", ".mypy_cache", ".pytest_cache", ".cache", ".next", ".terraform", workspace.Dir}

// An Entry is one file of a [Tree]: its content's hash, mode, and the stat
// facts that let the next snapshot reuse the hash of an unchanged file.
type Entry struct {
	Hash  string        `json:"h"`
	Mode  iofs.FileMode `json:"m"`
	Size  int64         `json:"s"`
	MTime int64         `json:"t"`
	Ino   uint64        `json:"i,omitempty"`
	CTime int64         `json:"c,omitempty"`
}

// Ref returns the entry as a ledger file version.
func (e Entry) Ref() session.FileRef { return session.FileRef{Hash: e.Hash, Mode: e.Mode} }

// A Tree is a snapshot of a directory tree: slash-separated paths,
// relative to Root, of regular files and symbolic links (whose content is
// their target).
type Tree struct {
	Root  string           `json:"root"`
	Files map[string]Entry `json:"files"`
}

// Snapshotter takes snapshots of workspaces in pure Go and keeps the
// content of every file it saw in a blob store, so that a change a shell
// command made between two snapshots can be undone. The zero value is not
// usable: set Dir. Options must not change after first use. It is safe
// for concurrent use.
type Snapshotter struct {
	// Dir holds the snapshot store: blobs/ (content-addressed, shared by
	// every session of the workspace) and the index of the last snapshot
	// of each root, which makes the next one warm.
	Dir string
	// MaxFileSize leaves out larger files; zero means DefaultMaxFileSize.
	MaxFileSize int64
	// SkipDirs are directory names never entered; nil means
	// DefaultSkipDirs. Directories ignored by .gitignore files are skipped
	// too.
	SkipDirs []string
	// Only, if set, limits the snapshot to these names at the top of the
	// root (files or directories), such as wield's own configuration files
	// in its state directory; nil means everything.
	Only []string
	// Workers hash files concurrently; zero means GOMAXPROCS.
	Workers int

	mu   sync.Mutex
	last map[string]*Tree // by root
}

// Blobs returns the snapshot store's blobs.
func (s *Snapshotter) Blobs() *session.Blobs {
	return session.NewBlobs(filepath.Join(s.Dir, "blobs"), false)
}

func (s *Snapshotter) indexPath(root string) string {
	key := root + "\x00" + strings.Join(s.Only, "\x00")
	return filepath.Join(s.Dir, "index-"+session.HashBytes([]byte(key))[:16]+".json")
}

// previous returns the last snapshot of root: this process's, else the
// one saved in the index.
func (s *Snapshotter) previous(root string) *Tree {
	s.mu.Lock()
	t := s.last[root]
	s.mu.Unlock()
	if t != nil {
		return t
	}
	data, err := os.ReadFile(s.indexPath(root))
	if err != nil {
		return nil
	}
	var saved Tree
	if json.Unmarshal(data, &saved) != nil || saved.Root != root || saved.Files == nil {
		return nil
	}
	return &saved
}

// Take snapshots the tree at root (an absolute directory) and stores the
// content of every file that is new or changed since the previous
// snapshot in the snapshot store. Files whose size, modification time,
// inode and change time are those of the previous snapshot are not read
// again. Symbolic links are recorded, never followed.
func (s *Snapshotter) Take(ctx context.Context, root string) (*Tree, error) {
	if s.Dir == "" {
		return nil, errors.New("snapshot: no store directory configured")
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("snapshot: root %q is not absolute", root)
	}
	r, err := os.OpenRoot(root)
	if errors.Is(err, iofs.ErrNotExist) {
		return &Tree{Root: root, Files: map[string]Entry{}}, nil // nothing there yet
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	defer r.Close()
	prev := s.previous(root)
	w := walker{s: s, root: r, prev: prev, tree: &Tree{Root: root, Files: map[string]Entry{}}}
	if err := w.walk(ctx); err != nil {
		return nil, err
	}
	if err := w.hashAll(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.last == nil {
		s.last = map[string]*Tree{}
	}
	s.last[root] = w.tree
	s.mu.Unlock()
	if w.changed || prev == nil || len(prev.Files) != len(w.tree.Files) {
		if err := s.save(w.tree); err != nil {
			return nil, err
		}
	}
	return w.tree, nil
}

// save writes t as root's index, atomically.
func (s *Snapshotter) save(t *Tree) error {
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	tmp, err := os.CreateTemp(s.Dir, ".index-*")
	if err != nil {
		return fmt.Errorf("snapshot index: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.indexPath(t.Root))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("snapshot index: %w", err)
	}
	return nil
}

// A walker takes one snapshot.
type walker struct {
	s       *Snapshotter
	root    *os.Root
	prev    *Tree
	tree    *Tree
	todo    []string // paths to hash
	changed bool
}

func (w *walker) maxSize() int64 {
	if w.s.MaxFileSize > 0 {
		return w.s.MaxFileSize
	}
	return DefaultMaxFileSize
}

func (w *walker) skipDir(name string) bool {
	if w.s.SkipDirs == nil {
		return slices.Contains(DefaultSkipDirs, name)
	}
	return slices.Contains(w.s.SkipDirs, name)
}

// walk walks the tree from the root, directories concurrently: a
// snapshot is mostly system calls (a directory read, a stat per file),
// whose latency overlaps.
func (w *walker) walk(ctx context.Context) error {
	n := w.s.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, 2*n)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	var visit func(j dirJob)
	visit = func(j dirJob) {
		defer wg.Done()
		sem <- struct{}{}
		files, subs, err := w.scan(ctx, j)
		<-sem
		mu.Lock()
		if err != nil && firstErr == nil {
			firstErr = err
		}
		for _, f := range files {
			w.tree.Files[f.path] = f.entry
			if f.hash {
				w.todo = append(w.todo, f.path)
			}
		}
		mu.Unlock()
		for _, s := range subs {
			wg.Add(1)
			go visit(s)
		}
	}
	wg.Add(1)
	visit(dirJob{rel: "."})
	wg.Wait()
	slices.Sort(w.todo)
	return firstErr
}

// A dirJob is a directory to scan, with the ignore lists that apply to it.
type dirJob struct {
	rel     string
	ignores []ignoreList
}

// A found file is one entry a scan found; hash says it must be read.
type found struct {
	path  string
	entry Entry
	hash  bool
}

// scan reads directory j.rel: its files, and the directories to scan next.
func (w *walker) scan(ctx context.Context, j dirJob) ([]found, []dirJob, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	rel, ignores := j.rel, j.ignores
	f, err := w.root.Open(rel)
	if err != nil {
		if rel == "." {
			return nil, nil, fmt.Errorf("snapshot: %w", err)
		}
		return nil, nil, nil // gone meanwhile, or unreadable: not part of the snapshot
	}
	entries, err := f.ReadDir(-1)
	_ = f.Close()
	if err != nil && rel == "." {
		return nil, nil, fmt.Errorf("snapshot: %w", err)
	}
	join := func(name string) string {
		if rel == "." {
			return name
		}
		return rel + "/" + name
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if data, err := w.root.ReadFile(join(e.Name())); err == nil {
				base := rel
				if base == "." {
					base = ""
				}
				ignores = append(slices.Clip(ignores), parseIgnore(string(data), base))
			}
		}
	}
	var (
		files []found
		subs  []dirJob
	)
	for _, e := range entries {
		name := e.Name()
		p := join(name)
		isDir := e.IsDir()
		if rel == "." && w.s.Only != nil && !slices.Contains(w.s.Only, name) {
			continue
		}
		if isDir && w.skipDir(name) {
			continue
		}
		if ignored(ignores, p, name, isDir) {
			continue
		}
		if isDir {
			subs = append(subs, dirJob{rel: p, ignores: ignores})
			continue
		}
		typ := e.Type()
		if !typ.IsRegular() && typ&iofs.ModeSymlink == 0 {
			continue // devices, sockets, pipes
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if info.Size() > w.maxSize() {
			continue
		}
		ent := Entry{Mode: info.Mode().Perm(), Size: info.Size(), MTime: info.ModTime().UnixNano()}
		if typ&iofs.ModeSymlink != 0 {
			ent.Mode = iofs.ModeSymlink
		}
		ent.Ino, ent.CTime = statKey(info)
		if w.prev != nil {
			if old, ok := w.prev.Files[p]; ok && old.Hash != "" && old.Mode == ent.Mode && old.Size == ent.Size &&
				old.MTime == ent.MTime && old.Ino == ent.Ino && old.CTime == ent.CTime {
				files = append(files, found{path: p, entry: old})
				continue
			}
		}
		files = append(files, found{path: p, entry: ent, hash: true})
	}
	return files, subs, nil
}

func ignored(lists []ignoreList, rel, name string, isDir bool) bool {
	for i := range lists {
		if lists[i].match(rel, name, isDir) {
			return true
		}
	}
	return false
}

// hashAll reads, hashes and stores the files of w.todo, concurrently.
func (w *walker) hashAll(ctx context.Context) error {
	if len(w.todo) == 0 {
		return nil
	}
	w.changed = true
	blobs := w.s.Blobs()
	n := w.s.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = min(n, len(w.todo))
	type result struct {
		path string
		hash string
		err  error
	}
	results := make([]result, len(w.todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for range n {
		wg.Go(func() {
			for i := range next {
				p := w.todo[i]
				data, err := readEntry(w.root, p, w.tree.Files[p].Mode)
				if err != nil {
					results[i] = result{path: p, err: err}
					continue
				}
				h, err := blobs.Put(ctx, data)
				results[i] = result{path: p, hash: h, err: err}
			}
		})
	}
	for i := range w.todo {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range results {
		if r.err != nil {
			if errors.Is(r.err, iofs.ErrNotExist) {
				delete(w.tree.Files, r.path) // gone meanwhile
				continue
			}
			return fmt.Errorf("snapshot %s: %w", r.path, r.err)
		}
		e := w.tree.Files[r.path]
		e.Hash = r.hash
		w.tree.Files[r.path] = e
	}
	return nil
}

// readEntry returns the content of rel: a regular file's bytes or a
// link's target.
func readEntry(root *os.Root, rel string, mode iofs.FileMode) ([]byte, error) {
	if mode&iofs.ModeSymlink != 0 {
		target, err := root.Readlink(rel)
		return []byte(target), err
	}
	return root.ReadFile(rel)
}

// Diff returns the paths whose entry differs between a and b (by content
// hash and mode), sorted.
func Diff(a, b *Tree) []string {
	var out []string
	for p, ea := range a.Files {
		if eb, ok := b.Files[p]; !ok || eb.Hash != ea.Hash || eb.Mode != ea.Mode {
			out = append(out, p)
		}
	}
	for p := range b.Files {
		if _, ok := a.Files[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// cleanRel reports whether p is a clean slash-separated relative path.
func cleanRel(p string) bool {
	return p != "" && p != "." && iofs.ValidPath(p) && path.Clean(p) == p
}
