package fs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wieldhq/wield/tools/fs/internal/ignore"
	layout "github.com/wieldhq/wield/workspace"
)

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
		return nil, fmt.Errorf("%s: larger than %s", name, formatSize(int64(limit)))
	}
	return data, nil
}

// A fileEntry is a file the walk found. Symbolic links are files too (as
// in git); callers decide whether to follow them.
type fileEntry struct {
	rel   string // slash path from the workspace root
	name  string
	dir   *dirNode // nil for a file given on its own
	link  bool
	size  int64     // with walkOptions.stat
	mtime time.Time // with walkOptions.stat
}

// open opens the file for reading. Plain files are opened through their
// directory; links through the workspace, which allows targets anywhere
// inside it.
func (f *fileEntry) open(w *workspace) (fileReader, error) {
	if f.link || f.dir == nil {
		return w.open(f.rel)
	}
	return f.dir.h.open(f.name)
}

// walkOptions says what to walk and what to report.
type walkOptions struct {
	// start is the directory to walk, relative to the root ("." for it).
	// Rules never hide start itself: asking for a path shows it.
	start string
	// maxDepth is the number of directory levels below start to enter;
	// negative means no limit.
	maxDepth int
	// want, if set, filters files by their path before they are visited.
	want func(rel, name string) bool
	// stat asks for each wanted file's size and modification time.
	stat bool
	// inline visits files on the worker that lists their directory,
	// instead of handing them out in batches: for cheap visits.
	inline bool
}

// walkStats counts what a walk hid or could not read.
type walkStats struct {
	hidden atomic.Int64 // entries hidden by ignore rules
	failed atomic.Int64 // directories or files that could not be read
	mu     sync.Mutex
	notes  []string
}

// fail records that rel could not be read.
func (s *walkStats) fail(rel string, err error) {
	s.failed.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notes) < maxWalkNotes {
		s.notes = append(s.notes, describePathError(display(rel), err))
	}
}

// summary describes the failures, or returns "".
func (s *walkStats) summary() string {
	n := s.failed.Load()
	if n == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := fmt.Sprintf("%s could not be read: %s", plural(int(n), "entry"), strings.Join(s.notes, "; "))
	if int(n) > len(s.notes) {
		msg += "; …"
	}
	return msg
}

// A walker holds the ignore rules of one walk: those of the repository
// (.git/info/exclude, the index's tracked files) and the caller's.
type walker struct {
	w       *workspace
	workers int
	global  []*ignore.List // lowest precedence last
	stats   walkStats
	scratch [][]byte // per worker, for reading directories

	// The tracked files are read from the index only when some rule hides
	// something, since only then can they make a difference.
	trackedOnce sync.Once
	tracked     map[string]bool // path → true for files, false for directories
}

// newWalker prepares a walk of w's tree.
func newWalker(w *workspace, cfg Config) *walker {
	wk := &walker{w: w, workers: max(1, cfg.Workers)}
	wk.scratch = make([][]byte, wk.workers)
	if data, err := w.root.ReadFile(gitDir + "/info/exclude"); err == nil {
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
func (wk *walker) loadTracked() {
	wk.trackedOnce.Do(func() {
		data, err := wk.w.root.ReadFile(gitDir + "/index")
		if err != nil {
			return
		}
		hashSize := 20
		if cfg, err := wk.w.root.ReadFile(gitDir + "/config"); err == nil && usesSHA256(cfg) {
			hashSize = 32
		}
		paths, err := ignore.ParseIndex(data, hashSize)
		if err != nil {
			return // a damaged index only loses the tracked-file exception
		}
		t := make(map[string]bool, len(paths)*5/4)
		for _, p := range paths {
			t[p] = true
			for d := parentOf(p); d != ""; d = parentOf(d) {
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

func (wk *walker) isTrackedFile(rel string) bool {
	wk.loadTracked()
	return wk.tracked[rel]
}

func (wk *walker) hasTrackedBelow(rel string) bool {
	wk.loadTracked()
	isFile, ok := wk.tracked[rel]
	return ok && !isFile
}

// gitExcluded applies the .gitignore files from n up to the root, then the
// global lists: the first list with a matching pattern decides.
func (wk *walker) gitExcluded(n *dirNode, rel, name string, isDir bool) bool {
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
func (wk *walker) wieldVerdict(n *dirNode, rel, name string, isDir bool) ignore.Result {
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
func (wk *walker) reincludedBelow(n *dirNode, rel string) bool {
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
			lit := joinRel(d.rel, p.LiteralPrefix())
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
func (wk *walker) decide(n *dirNode, rel, name string, isDir bool) decision {
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
	files []fileEntry
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

// walk visits the files below opts.start that the ignore rules show, on
// wk.workers goroutines at once; visit must be safe for concurrent use and
// gets the worker's number (0 ≤ worker < wk.workers) for per-worker state.
// An error from visit stops the walk and is returned, as is ctx's error.
// Directories that cannot be read are counted in wk.stats and skipped.
func (wk *walker) walk(ctx context.Context, opts walkOptions, visit func(worker int, f *fileEntry) error) error {
	start, err := wk.startNode(opts.start)
	if err != nil {
		return err
	}
	q := &workQueue{}
	q.cond.L = &q.mu
	var (
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
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
	if firstErr != nil && !errors.Is(firstErr, errStop) {
		return firstErr
	}
	return ctx.Err()
}

// run performs one task and releases its reference.
func (wk *walker) run(t task, opts walkOptions, q *workQueue, worker int, visit func(int, *fileEntry) error) error {
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
			wk.stats.fail(n.rel, err)
			return nil
		}
		n.h = h
		n.refs.Add(1)
	}
	defer n.release()
	return wk.readDir(n, opts, q, worker, visit)
}

// readDir lists n, reads its ignore files and queues what it shows.
func (wk *walker) readDir(n *dirNode, opts walkOptions, q *workQueue, worker int, visit func(int, *fileEntry) error) error {
	entries, err := wk.entries(n, worker)
	if err != nil {
		wk.stats.fail(n.rel, err)
		if entries == nil {
			return nil
		}
		// Show what could be read.
	}
	// Subdirectories first, then files: the stack is LIFO, so this worker
	// goes on with the files while idle ones take the directories.
	var dirs, files []task
	var batch []fileEntry
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
		rel := joinRel(n.rel, name)
		d := wk.decide(n, rel, name, isDir)
		if d.counts {
			wk.stats.hidden.Add(1)
		}
		if !d.show {
			continue
		}
		if isDir {
			if opts.maxDepth >= 0 && n.depth >= opts.maxDepth {
				continue
			}
			child := &dirNode{parent: n, rel: rel, depth: n.depth + 1, hidden: d.hidden}
			n.refs.Add(1)
			dirs = append(dirs, task{dir: child, name: name, owner: n})
			continue
		}
		if opts.want != nil && !opts.want(rel, name) {
			continue
		}
		fe := fileEntry{rel: rel, name: name, dir: n, link: typ&iofs.ModeSymlink != 0}
		if opts.stat {
			size, mtime, err := n.h.lstat(name)
			if err != nil {
				wk.stats.fail(rel, err)
				continue
			}
			fe.size, fe.mtime = size, mtime
		}
		if opts.inline {
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
func (wk *walker) entries(n *dirNode, worker int) ([]dirent, error) {
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

// A listedEntry is an entry of a directory listed on its own.
type listedEntry struct {
	name string
	typ  iofs.FileMode
}

// list reads the single directory rel and returns the entries the rules
// show; wk.stats counts those they hide. The caller closes nothing: the
// directory is closed before list returns.
func (wk *walker) list(rel string) ([]listedEntry, error) {
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
		wk.stats.fail(n.rel, err)
	}
	var shown []listedEntry
	for _, e := range entries {
		name := e.name
		if name == gitDir {
			continue
		}
		rel := joinRel(n.rel, name)
		d := wk.decide(n, rel, name, e.typ.IsDir())
		// An excluded directory with tracked files shows, as those files
		// do in git ls-files; one entered only in case a .wieldignore
		// re-includes something does not.
		if d.show && (d.hidden == visible || d.hidden == byGit && wk.hasTrackedBelow(rel)) {
			shown = append(shown, listedEntry{name: name, typ: e.typ})
		} else if d.counts {
			wk.stats.hidden.Add(1)
		}
	}
	return shown, nil
}

// readIgnore reads and parses one ignore file of n.
func (wk *walker) readIgnore(n *dirNode, name string) *ignore.List {
	data, err := readFile(n.h, name, maxIgnoreBytes)
	if err != nil {
		wk.stats.fail(joinRel(n.rel, name), err)
		return nil
	}
	l := ignore.Parse(data, n.rel)
	if len(l.Patterns) == 0 {
		return nil
	}
	return &l
}

// startNode opens the directory a walk starts from and loads the ignore
// files of the directories above it.
func (wk *walker) startNode(start string) (*dirNode, error) {
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
	h, err := openStart(wk.w.root, display(rel))
	if err != nil {
		return nil, err
	}
	node.h = h
	return node, nil
}

func (wk *walker) readAncestorIgnore(dir, name string) *ignore.List {
	p := joinRel(dir, name)
	fi, err := wk.w.root.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := wk.w.root.ReadFile(p)
	if err != nil {
		return nil
	}
	l := ignore.Parse(data, dir)
	return &l
}

// errStop is returned by a visit function to end a walk early without an
// error.
var errStop = errors.New("stop walking")
