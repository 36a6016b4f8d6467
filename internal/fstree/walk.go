package fstree

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wieldhq/wield/internal/fstree/ignore"
	layout "github.com/wieldhq/wield/workspace"
)

// Config configures a walk. The zero Config is ready to use.
type Config struct {
	// ExcludePatterns are ignore patterns with the lowest precedence, as in
	// git's core.excludesFile. Nil means none.
	ExcludePatterns []string
	// Workers is the number of goroutines that walk at once; zero means
	// GOMAXPROCS.
	Workers int
}

// File names with a meaning to the walker.
const (
	gitDir       = ".git"
	gitIgnore    = ".gitignore"
	wieldIgnore  = ".wieldignore"
	stateDir     = layout.Dir // wield's own state, hidden unless re-included
	maxWalkNotes = 5          // errors quoted in a walk's notes; the rest are counted
	batchSize    = 64         // files handed to a worker at once
)

// A hiddenKind says why a directory the walker descends into is excluded:
// it descends only to find what may show through.
type hiddenKind int8

const (
	visible hiddenKind = iota
	// byGit: a .gitignore rule excludes it; tracked files and .wieldignore
	// re-inclusions inside still show.
	byGit
	// byWield: a .wieldignore rule excludes it; only .wieldignore
	// re-inclusions inside still show.
	byWield
)

// A dirNode is a directory being walked: its ignore files, and an open
// os.Root for it while tasks still need one.
type dirNode struct {
	parent *dirNode
	rel    string // "" for the workspace root
	depth  int    // levels below the walk's start
	git    *ignore.List
	wield  *ignore.List
	hidden hiddenKind

	h    dirHandle // open while tasks need it
	refs atomic.Int32
}

// release drops one reference and closes the directory after the last.
func (n *dirNode) release() {
	if n.refs.Add(-1) == 0 && n.h != nil {
		n.h.close()
	}
}

// A dirHandle is an open directory. Its methods take single names of its
// entries and never follow a symbolic link in them. See dir_linux.go and
// dir_other.go.
type dirHandle interface {
	// entries lists the directory, using buf as scratch space.
	entries(buf []byte) ([]dirent, error)
	// sub opens the subdirectory name.
	sub(name string) (dirHandle, error)
	// open opens the regular file name for reading.
	open(name string) (fileReader, error)
	// lstat returns the size and modification time of name.
	lstat(name string) (size int64, mtime time.Time, err error)
	close() error
}

// A dirent is one entry of a directory.
type dirent struct {
	name string
	typ  iofs.FileMode // ModeDir, ModeSymlink, ModeIrregular or 0 for a file
}

// A fileReader is a file open for reading.
type fileReader interface {
	io.Reader
	io.Closer
}

// maxIgnoreBytes bounds the ignore files read.
const maxIgnoreBytes = 1 << 20

// readFile reads the regular file name of directory d, at most limit
// bytes.
func readFile(d dirHandle, name string, limit int) ([]byte, error) {
	f, err := d.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("%s: larger than %.1f MiB", name, float64(limit)/(1<<20))
	}
	return data, nil
}

// An Entry is a file the walk found. Symbolic links are files too (as in
// git); callers decide whether to follow them.
type Entry struct {
	// Path is the file's slash path from the root.
	Path string
	// Name is the last element of Path.
	Name string
	// Link reports whether the file is a symbolic link.
	Link bool
	// Size and ModTime are the file's (a link's own), with [Options].Stat.
	Size    int64
	ModTime time.Time

	dir *dirNode // nil for an entry made by the caller
}

// Open opens the file for reading. A file the walk found is opened
// through its directory; a link, and an entry made by the caller, through
// t, which allows targets anywhere inside it.
func (e *Entry) Open(t *Tree) (io.ReadCloser, error) {
	if e.Link || e.dir == nil {
		return t.Open(e.Path)
	}
	return e.dir.h.open(e.Name)
}

// Options says what to walk and what to report.
type Options struct {
	// Start is the directory to walk, relative to the root ("." for it).
	// Rules never hide Start itself: asking for a path shows it.
	Start string
	// MaxDepth is the number of directory levels below Start to enter;
	// negative means no limit.
	MaxDepth int
	// Want, if set, filters files by their path before they are visited.
	Want func(rel, name string) bool
	// Stat asks for each wanted file's size and modification time.
	Stat bool
	// Inline visits files on the worker that lists their directory,
	// instead of handing them out in batches: for cheap visits.
	Inline bool
}

// Stats counts what a walk hid or could not read. Its methods are safe
// for concurrent use.
type Stats struct {
	hidden atomic.Int64 // entries hidden by ignore rules
	failed atomic.Int64 // directories or files that could not be read
	mu     sync.Mutex
	notes  []string
}

// Hidden returns the number of entries the ignore rules hid.
func (s *Stats) Hidden() int64 { return s.hidden.Load() }

// Failed returns the number of directories and files that could not be
// read.
func (s *Stats) Failed() int64 { return s.failed.Load() }

// Fail records that rel could not be read; the first few errors are
// quoted in [Stats.Summary].
func (s *Stats) Fail(rel string, err error) {
	s.failed.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notes) < maxWalkNotes {
		s.notes = append(s.notes, DescribeError(rel, err))
	}
}

// Merge adds the failures of o, and the errors it quotes, to s.
func (s *Stats) Merge(o *Stats) {
	o.mu.Lock()
	notes := slices.Clone(o.notes)
	o.mu.Unlock()
	s.failed.Add(o.failed.Load())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, notes...)
}

// Summary describes the failures, or returns "".
func (s *Stats) Summary() string {
	n := s.failed.Load()
	if n == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries := "1 entry"
	if n != 1 {
		entries = fmt.Sprintf("%d entries", n)
	}
	msg := fmt.Sprintf("%s could not be read: %s", entries, strings.Join(s.notes, "; "))
	if int(n) > len(s.notes) {
		msg += "; …"
	}
	return msg
}

// A Walker holds the ignore rules of a tree: those of the repository
// (.git/info/exclude, the index's tracked files) and the caller's. It
// walks a directory at a time; its [Stats] add up over its walks.
type Walker struct {
	root    *os.Root
	workers int
	global  []*ignore.List // lowest precedence last
	stats   Stats
	scratch [][]byte // per worker, for reading directories

	// The tracked files are read from the index only when some rule hides
	// something, since only then can they make a difference.
	trackedOnce sync.Once
	tracked     map[string]bool // path → true for files, false for directories
}

// NewWalker prepares walks of root's tree with cfg.
func NewWalker(root *os.Root, cfg Config) *Walker {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	wk := &Walker{root: root, workers: workers}
	wk.scratch = make([][]byte, wk.workers)
	if data, err := root.ReadFile(gitDir + "/info/exclude"); err == nil {
		l := ignore.Parse(data, "")
		wk.global = append(wk.global, &l)
	}
	if len(cfg.ExcludePatterns) > 0 {
		l := ignore.Parse([]byte(strings.Join(cfg.ExcludePatterns, "\n")), "")
		wk.global = append(wk.global, &l)
	}
	builtin := ignore.Parse([]byte("/"+stateDir+"/"), "")
	wk.global = append(wk.global, &builtin)
	return wk
}

// loadTracked reads the index once.
func (wk *Walker) loadTracked() {
	wk.trackedOnce.Do(func() {
		data, err := wk.root.ReadFile(gitDir + "/index")
		if err != nil {
			return
		}
		hashSize := 20
		if cfg, err := wk.root.ReadFile(gitDir + "/config"); err == nil && usesSHA256(cfg) {
			hashSize = 32
		}
		paths, err := ignore.ParseIndex(data, hashSize)
		if err != nil {
			return // a damaged index only loses the tracked-file exception
		}
		t := make(map[string]bool, len(paths)*5/4)
		for _, p := range paths {
			t[p] = true
			for d := Parent(p); d != ""; d = Parent(d) {
				if _, ok := t[d]; ok {
					break
				}
				t[d] = false
			}
		}
		wk.tracked = t
	})
}

// usesSHA256 reports whether a git config sets objectFormat = sha256.
func usesSHA256(cfg []byte) bool {
	for line := range bytes.SplitSeq(cfg, []byte{'\n'}) {
		k, v, ok := bytes.Cut(bytes.TrimSpace(line), []byte{'='})
		if ok && strings.EqualFold(string(bytes.TrimSpace(k)), "objectformat") &&
			strings.EqualFold(string(bytes.TrimSpace(v)), "sha256") {
			return true
		}
	}
	return false
}

func (wk *Walker) isTrackedFile(rel string) bool {
	wk.loadTracked()
	return wk.tracked[rel]
}

func (wk *Walker) hasTrackedBelow(rel string) bool {
	wk.loadTracked()
	isFile, ok := wk.tracked[rel]
	return ok && !isFile
}

// gitExcluded applies the .gitignore files from n up to the root, then the
// global lists: the first list with a matching pattern decides.
func (wk *Walker) gitExcluded(n *dirNode, rel, name string, isDir bool) bool {
	for d := n; d != nil; d = d.parent {
		if d.git != nil {
			if r := d.git.Match(rel, name, isDir); r != ignore.None {
				return r == ignore.Exclude
			}
		}
	}
	for _, l := range wk.global {
		if r := l.Match(rel, name, isDir); r != ignore.None {
			return r == ignore.Exclude
		}
	}
	return false
}

// wieldVerdict applies the .wieldignore files from n up to the root.
func (wk *Walker) wieldVerdict(n *dirNode, rel, name string, isDir bool) ignore.Result {
	for d := n; d != nil; d = d.parent {
		if d.wield != nil {
			if r := d.wield.Match(rel, name, isDir); r != ignore.None {
				return r
			}
		}
	}
	return ignore.None
}

// reincludedBelow reports whether a "!pattern" of a .wieldignore at or
// above n could match something below the directory rel. It errs on the
// side of yes: a yes only costs a look inside.
func (wk *Walker) reincludedBelow(n *dirNode, rel string) bool {
	for d := n; d != nil; d = d.parent {
		if d.wield == nil {
			continue
		}
		for i := range d.wield.Patterns {
			p := &d.wield.Patterns[i]
			if !p.Negated() {
				continue
			}
			if p.Basename() {
				return true
			}
			lit := Join(d.rel, p.LiteralPrefix())
			dir := rel + "/"
			if strings.HasPrefix(lit, dir) || strings.HasPrefix(dir, lit[:strings.LastIndexByte(lit, '/')+1]) {
				return true
			}
		}
	}
	return false
}

// A decision is what the walker does with one directory entry.
type decision struct {
	show   bool       // list the file, or enter the directory
	hidden hiddenKind // for a directory entered: why it is excluded
	counts bool       // the entry counts as hidden by ignore rules
}

// decide applies the rules, in order: .wieldignore, then whatever hides
// the directory n, then .gitignore and the global lists, with git's
// exception for tracked files.
func (wk *Walker) decide(n *dirNode, rel, name string, isDir bool) decision {
	switch v := wk.wieldVerdict(n, rel, name, isDir); {
	case v == ignore.Include:
		return decision{show: true}
	case v == ignore.Exclude || n.hidden == byWield:
		d := decision{counts: n.hidden != byWield}
		if isDir && wk.reincludedBelow(n, rel) {
			d.show, d.hidden = true, byWield
		}
		return d
	}
	if n.hidden == byGit || wk.gitExcluded(n, rel, name, isDir) {
		d := decision{counts: n.hidden != byGit}
		switch {
		case !isDir:
			d.show = wk.isTrackedFile(rel)
			d.counts = d.counts && !d.show
		case wk.hasTrackedBelow(rel) || wk.reincludedBelow(n, rel):
			d.show, d.hidden = true, byGit
		}
		return d
	}
	return decision{show: true}
}

// A task is a directory to read or a batch of files to visit.
type task struct {
	dir   *dirNode // the directory to read; its parent holds a reference
	name  string   // its name in the parent
	files []Entry
	owner *dirNode // the directory holding a reference for this task
}

// A workQueue is a LIFO stack of tasks shared by the walk's workers. LIFO
// keeps the walk depth-first, so few directories are open at a time.
type workQueue struct {
	mu      sync.Mutex
	cond    sync.Cond
	stack   []task
	pending int // tasks pushed and not yet finished
	idle    int // workers waiting in pop
	stopped bool
}

func (q *workQueue) push(ts ...task) {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		for _, t := range ts {
			t.owner.release()
		}
		return
	}
	q.stack = append(q.stack, ts...)
	q.pending += len(ts)
	// Wake only idle workers, and no more than there are tasks: every
	// needless wake-up costs a futex call and a trip through the scheduler.
	wake := min(q.idle, len(ts))
	q.mu.Unlock()
	if wake > 1 {
		q.cond.Broadcast()
	} else if wake == 1 {
		q.cond.Signal()
	}
}

// pop waits for a task; it reports false when the walk is over.
func (q *workQueue) pop() (task, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.stack) == 0 && q.pending > 0 && !q.stopped {
		q.idle++
		q.cond.Wait()
		q.idle--
	}
	if q.stopped || len(q.stack) == 0 {
		return task{}, false
	}
	t := q.stack[len(q.stack)-1]
	q.stack[len(q.stack)-1] = task{}
	q.stack = q.stack[:len(q.stack)-1]
	return t, true
}

func (q *workQueue) done() {
	q.mu.Lock()
	q.pending--
	end := q.pending == 0
	q.mu.Unlock()
	if end {
		q.cond.Broadcast()
	}
}

// stop ends the walk early and drops the tasks not yet started.
func (q *workQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	dropped := q.stack
	q.stack = nil
	q.mu.Unlock()
	q.cond.Broadcast()
	for _, t := range dropped {
		t.owner.release()
	}
}

// Walk visits the files below opts.Start that the ignore rules show, on
// [Config].Workers goroutines at once; visit must be safe for concurrent
// use and gets the worker's number (0 ≤ worker < Workers) for per-worker
// state. An error from visit stops the walk and is returned, as is ctx's
// error. Directories that cannot be read are counted in the walker's
// [Stats] and skipped.
func (wk *Walker) Walk(ctx context.Context, opts Options, visit func(worker int, f *Entry) error) error {
	start, err := wk.startNode(opts.Start)
	if err != nil {
		return err
	}
	q := &workQueue{}
	q.cond.L = &q.mu
	// firstErr is guarded by errMu: the watch on ctx may still be setting
	// it after the workers are done.
	var (
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
		q.stop()
	}
	stopWatch := context.AfterFunc(ctx, func() { fail(ctx.Err()) })
	defer stopWatch()

	start.refs.Add(1)
	q.push(task{dir: start, owner: start})
	var wg sync.WaitGroup
	for i := range wk.workers {
		wg.Go(func() {
			for {
				t, ok := q.pop()
				if !ok {
					return
				}
				if err := wk.run(t, opts, q, i, visit); err != nil {
					fail(err)
				}
				q.done()
			}
		})
	}
	wg.Wait()
	errMu.Lock()
	err = firstErr
	errMu.Unlock()
	if err != nil {
		return err
	}
	return ctx.Err()
}

// run performs one task and releases its reference.
func (wk *Walker) run(t task, opts Options, q *workQueue, worker int, visit func(int, *Entry) error) error {
	if t.files != nil {
		defer t.owner.release()
		for i := range t.files {
			if err := visit(worker, &t.files[i]); err != nil {
				return err
			}
		}
		return nil
	}
	n := t.dir
	if n.h == nil {
		h, err := t.owner.h.sub(t.name)
		t.owner.release()
		if err != nil {
			wk.stats.Fail(n.rel, err)
			return nil
		}
		n.h = h
		n.refs.Add(1)
	}
	defer n.release()
	return wk.readDir(n, opts, q, worker, visit)
}

// readDir lists n, reads its ignore files and queues what it shows.
func (wk *Walker) readDir(n *dirNode, opts Options, q *workQueue, worker int, visit func(int, *Entry) error) error {
	entries, err := wk.entries(n, worker)
	if err != nil {
		wk.stats.Fail(n.rel, err)
		if entries == nil {
			return nil
		}
		// Show what could be read.
	}
	// Subdirectories first, then files: the stack is LIFO, so this worker
	// goes on with the files while idle ones take the directories.
	var dirs, files []task
	var batch []Entry
	flush := func() {
		if len(batch) > 0 {
			n.refs.Add(1)
			files = append(files, task{files: batch, owner: n})
			batch = nil
		}
	}
	for _, e := range entries {
		name := e.name
		if name == gitDir {
			continue // never listed, and not counted: it is not ignored
		}
		typ := e.typ
		isDir := typ.IsDir()
		if typ&iofs.ModeIrregular != 0 {
			continue // devices, sockets, pipes: not files to read or list
		}
		rel := Join(n.rel, name)
		d := wk.decide(n, rel, name, isDir)
		if d.counts {
			wk.stats.hidden.Add(1)
		}
		if !d.show {
			continue
		}
		if isDir {
			if opts.MaxDepth >= 0 && n.depth >= opts.MaxDepth {
				continue
			}
			child := &dirNode{parent: n, rel: rel, depth: n.depth + 1, hidden: d.hidden}
			n.refs.Add(1)
			dirs = append(dirs, task{dir: child, name: name, owner: n})
			continue
		}
		if opts.Want != nil && !opts.Want(rel, name) {
			continue
		}
		fe := Entry{Path: rel, Name: name, dir: n, Link: typ&iofs.ModeSymlink != 0}
		if opts.Stat {
			size, mtime, err := n.h.lstat(name)
			if err != nil {
				wk.stats.Fail(rel, err)
				continue
			}
			fe.Size, fe.ModTime = size, mtime
		}
		if opts.Inline {
			if err := visit(worker, &fe); err != nil {
				q.push(dirs...)
				return err
			}
			continue
		}
		batch = append(batch, fe)
		if len(batch) == batchSize {
			flush()
		}
	}
	flush()
	q.push(append(dirs, files...)...)
	return nil
}

// entries lists the directory n and reads its ignore files. On an error it
// returns what it could read, if anything, with the error.
func (wk *Walker) entries(n *dirNode, worker int) ([]dirent, error) {
	if wk.scratch[worker] == nil {
		wk.scratch[worker] = make([]byte, 32<<10)
	}
	entries, err := n.h.entries(wk.scratch[worker])
	if n.hidden == visible {
		// git reads no ignore file inside an excluded directory, and
		// neither do we; it also ignores ignore files that are links.
		for _, e := range entries {
			if e.typ != 0 {
				continue
			}
			switch e.name {
			case gitIgnore:
				n.git = wk.readIgnore(n, gitIgnore)
			case wieldIgnore:
				n.wield = wk.readIgnore(n, wieldIgnore)
			}
		}
	}
	return entries, err
}

// A DirEntry is an entry of a directory listed on its own.
type DirEntry struct {
	Name string
	// Type is the entry's type bits: ModeDir, ModeSymlink, ModeIrregular,
	// or 0 for a file.
	Type iofs.FileMode
}

// List reads the single directory rel and returns the entries the rules
// show; the walker's [Stats] count those they hide. The directory is
// closed before List returns.
func (wk *Walker) List(rel string) ([]DirEntry, error) {
	n, err := wk.startNode(rel)
	if err != nil {
		return nil, err
	}
	n.refs.Add(1)
	defer n.release()
	entries, err := wk.entries(n, 0)
	if err != nil && entries == nil {
		return nil, err
	}
	if err != nil {
		wk.stats.Fail(n.rel, err)
	}
	var shown []DirEntry
	for _, e := range entries {
		name := e.name
		if name == gitDir {
			continue
		}
		rel := Join(n.rel, name)
		d := wk.decide(n, rel, name, e.typ.IsDir())
		// An excluded directory with tracked files shows, as those files
		// do in git ls-files; one entered only in case a .wieldignore
		// re-includes something does not.
		if d.show && (d.hidden == visible || d.hidden == byGit && wk.hasTrackedBelow(rel)) {
			shown = append(shown, DirEntry{Name: name, Type: e.typ})
		} else if d.counts {
			wk.stats.hidden.Add(1)
		}
	}
	return shown, nil
}

// readIgnore reads and parses one ignore file of n.
func (wk *Walker) readIgnore(n *dirNode, name string) *ignore.List {
	data, err := readFile(n.h, name, maxIgnoreBytes)
	if err != nil {
		wk.stats.Fail(Join(n.rel, name), err)
		return nil
	}
	l := ignore.Parse(data, n.rel)
	if len(l.Patterns) == 0 {
		return nil
	}
	return &l
}

// Stats returns what the walker's walks and lists hid or could not read.
func (wk *Walker) Stats() *Stats { return &wk.stats }

// startNode opens the directory a walk starts from and loads the ignore
// files of the directories above it.
func (wk *Walker) startNode(start string) (*dirNode, error) {
	var node *dirNode
	dirs := []string{""}
	if start != "." && start != "" {
		parts := splitPath(start)
		for i := range parts {
			dirs = append(dirs, strings.Join(parts[:i+1], "/"))
		}
	}
	for _, d := range dirs[:len(dirs)-1] {
		node = &dirNode{parent: node, rel: d}
		node.git = wk.readAncestorIgnore(d, gitIgnore)
		node.wield = wk.readAncestorIgnore(d, wieldIgnore)
	}
	rel := dirs[len(dirs)-1]
	node = &dirNode{parent: node, rel: rel}
	h, err := openStart(wk.root, cmp.Or(rel, "."))
	if err != nil {
		return nil, err
	}
	node.h = h
	return node, nil
}

func (wk *Walker) readAncestorIgnore(dir, name string) *ignore.List {
	p := Join(dir, name)
	fi, err := wk.root.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := wk.root.ReadFile(p)
	if err != nil {
		return nil
	}
	l := ignore.Parse(data, dir)
	return &l
}
