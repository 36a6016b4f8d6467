package memory

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config configures a [Store]. Its zero value is a store with no
// directories, whose every write fails.
type Config struct {
	// ProjectDir is the directory of project notes, such as
	// workspace.Layout.Memory(); empty means no project scope.
	ProjectDir string
	// UserDir is the directory of user notes, such as
	// workspace.UserLayout.Memory(); empty means no user scope.
	UserDir string
	// Embedder, if not nil, adds semantic similarity to searches.
	Embedder Embedder
	// EmbedWeight is the similarity's share of a blended score, from 0
	// to 1; zero means DefaultEmbedWeight.
	EmbedWeight float64
	// MinSimilarity is the cosine similarity a note without any query
	// word needs to be found; zero means DefaultMinSimilarity.
	MinSimilarity float64
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// Logger receives warnings (a note that cannot be read, an embedder
	// that failed); nil discards them.
	Logger *slog.Logger
}

// The defaults of [Config].
const (
	DefaultEmbedWeight   = 0.3
	DefaultMinSimilarity = 0.3
)

// MaxNoteBytes is the largest note [Store.Save] writes; longer files
// written by other programs are skipped when the store loads.
const MaxNoteBytes = 64 << 10

// maxReadBytes is the largest note file the store reads.
const maxReadBytes = 1 << 20

// ErrNotFound is returned when a note does not exist.
var ErrNotFound = errors.New("memory note not found")

// ErrNoScope is returned for a scope the store has no directory for.
var ErrNoScope = errors.New("memory scope has no directory")

// A DuplicateError is returned by [Store.Save] when another note of the
// scope has the same words in the same order.
type DuplicateError struct {
	Scope Scope
	ID    string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("the same text is already saved as %s note %s", e.Scope, e.ID)
}

// SaveResult is what [Store.Save] did.
type SaveResult struct {
	// Note is the note as written.
	Note Note
	// Replaced reports whether a note with the id existed and was
	// replaced.
	Replaced bool
	// Similar lists the near duplicates, most similar first.
	Similar []Similar
}

// A Store holds the notes of a project and of its user. It reads the
// directories on first use and again when one of them changes. It keeps
// no file open. A Store is safe for concurrent use.
type Store struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	loaded bool
	ix     invIndex
	// dirs maps each scope's directories (relative, "." for the root)
	// to the modification time seen when they were last read.
	dirs map[Scope]map[string]time.Time
	// vecs caches embeddings by the hash of the embedded text.
	vecs map[string][]float32
	// syncFile syncs a written file before it is renamed into place;
	// tests replace it to fail a write halfway.
	syncFile func(*os.File) error
}

// New returns a store over the directories of cfg. Nothing is read until
// the store is first used.
func New(cfg Config) *Store {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.EmbedWeight == 0 {
		cfg.EmbedWeight = DefaultEmbedWeight
	}
	if cfg.MinSimilarity == 0 {
		cfg.MinSimilarity = DefaultMinSimilarity
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{cfg: cfg, log: log, dirs: map[Scope]map[string]time.Time{},
		vecs: map[string][]float32{}, syncFile: (*os.File).Sync}
}

// Dir returns the directory of scope's notes, or "" if the store has
// none.
func (s *Store) Dir(scope Scope) string {
	switch scope {
	case ScopeProject:
		return s.cfg.ProjectDir
	case ScopeUser:
		return s.cfg.UserDir
	}
	return ""
}

// scopes returns the scopes the store has directories for.
func (s *Store) scopes() []Scope {
	var out []Scope
	for _, sc := range []Scope{ScopeProject, ScopeUser} {
		if s.Dir(sc) != "" {
			out = append(out, sc)
		}
	}
	return out
}

func (s *Store) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Second) }

// Reload reads every note again.
func (s *Store) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = false
	return s.refresh()
}

// refresh reads the scopes whose directories changed since they were
// read (all of them the first time).
func (s *Store) refresh() error {
	var errs []error
	for _, sc := range s.scopes() {
		if !s.loaded || s.changed(sc) {
			errs = append(errs, s.load(sc))
		}
	}
	s.loaded = true
	return errors.Join(errs...)
}

// changed reports whether a directory of scope changed since it was read.
func (s *Store) changed(scope Scope) bool {
	dir := s.Dir(scope)
	seen := s.dirs[scope]
	if len(seen) == 0 {
		_, err := os.Stat(dir)
		return err == nil // it appeared
	}
	for rel, mt := range seen {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !fi.ModTime().Equal(mt) {
			return true
		}
	}
	return false
}

// openRoot opens scope's directory, creating it when create is set. It
// returns nil and no error when the directory does not exist.
func (s *Store) openRoot(scope Scope, create bool) (*os.Root, error) {
	dir := s.Dir(scope)
	if dir == "" {
		return nil, fmt.Errorf("%s memory: %w", scope, ErrNoScope)
	}
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s memory: %w", scope, err)
		}
	}
	r, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s memory: %w", scope, err)
	}
	return r, nil
}

// load reads every note of scope into the index.
func (s *Store) load(scope Scope) error {
	s.ix.removeScope(scope)
	seen := map[string]time.Time{}
	s.dirs[scope] = seen
	root, err := s.openRoot(scope, false)
	if root == nil {
		return err
	}
	defer root.Close()
	fsys := root.FS()
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return fmt.Errorf("%s memory: %w", scope, err)
			}
			s.log.Warn("memory: unreadable entry skipped", "scope", scope, "path", p, "err", err)
			return nil
		}
		name := d.Name()
		if p != "." && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil // a temporary file, or hidden
		}
		if d.IsDir() {
			if fi, err := d.Info(); err == nil {
				seen[p] = fi.ModTime()
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".md") || p == IndexName {
			return nil
		}
		id := strings.TrimSuffix(p, ".md")
		if err := ValidID(id); err != nil {
			s.log.Warn("memory: note skipped", "scope", scope, "path", p, "err", err)
			return nil
		}
		n, err := readNote(root, scope, id)
		if err != nil {
			s.log.Warn("memory: note skipped", "scope", scope, "path", p, "err", err)
			return nil
		}
		s.ix.add(*n)
		return nil
	})
}

// readNote reads the note id of scope from root, a scope's directory.
func readNote(root *os.Root, scope Scope, id string) (*Note, error) {
	name := id + ".md"
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if fi.Size() > maxReadBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, maxReadBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes))
	if err != nil {
		return nil, err
	}
	n, err := ParseNote(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n.ID, n.Scope = id, scope
	if n.Modified.IsZero() {
		n.Modified = normalTime(fi.ModTime())
	}
	if n.Created.IsZero() {
		n.Created = n.Modified
	}
	return n, nil
}

// Get reads the note id of scope from its file. An empty scope looks in
// the project's notes, then the user's. It returns an error wrapping
// [ErrNotFound] when there is no such note.
func (s *Store) Get(scope Scope, id string) (*Note, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	scopes := []Scope{scope}
	if scope == "" {
		scopes = s.scopes()
	}
	for _, sc := range scopes {
		root, err := s.openRoot(sc, false)
		if err != nil {
			return nil, err
		}
		if root == nil {
			continue
		}
		n, err := readNote(root, sc, id)
		root.Close()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s memory: %w", sc, err)
		}
		return n, nil
	}
	return nil, fmt.Errorf("note %s: %w", id, ErrNotFound)
}

// Save writes n, replacing the note of its scope with its id if there
// is one (keeping that note's creation time unless n has one). An empty
// Scope means ScopeProject; an empty ID is made from the note's first
// words. Modified is set to now. The body is trimmed and ends with a
// newline. Save refuses, with a [*DuplicateError], a note whose text
// another note of the scope already has, and reports near duplicates in
// the result.
func (s *Store) Save(n Note) (*SaveResult, error) {
	if n.Scope == "" {
		n.Scope = ScopeProject
	}
	if s.Dir(n.Scope) == "" {
		return nil, fmt.Errorf("%s memory: %w", n.Scope, ErrNoScope)
	}
	n.Body = strings.TrimSpace(n.Body) + "\n"
	norm := normalText(n.Body)
	if norm == "" {
		return nil, errors.New("the note has no words")
	}
	if len(n.Body) > MaxNoteBytes {
		return nil, fmt.Errorf("the note has %d bytes, more than %d: keep notes short, one fact or procedure each", len(n.Body), MaxNoteBytes)
	}
	n.Tags = normalTags(n.Tags)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	if n.ID == "" {
		n.ID = s.newID(n.Scope, n.Body)
	} else if err := ValidID(n.ID); err != nil {
		return nil, err
	}
	res := &SaveResult{}
	if old, ok := s.ix.get(n.Scope, n.ID); ok {
		res.Replaced = true
		if n.Created.IsZero() {
			n.Created = old.note.Created
		}
	}
	n.Modified = s.now()
	if n.Created.IsZero() {
		n.Created = n.Modified
	}
	n.Created = normalTime(n.Created)
	for i := range s.ix.docs {
		d := &s.ix.docs[i]
		if d.live && d.note.Scope == n.Scope && d.note.ID != n.ID && d.normal == norm {
			return nil, &DuplicateError{Scope: n.Scope, ID: d.note.ID}
		}
	}
	res.Similar = s.ix.similar(distinct(&n), key{n.Scope, n.ID})
	if err := s.write(n.Scope, n.ID+".md", n.Markdown()); err != nil {
		return nil, err
	}
	s.ix.add(n)
	res.Note = n
	return res, s.afterWrite(n.Scope, n.ID)
}

// maxSlug is the longest id Save makes, before a counter.
const maxSlug = 48

// newID makes an id for a new note of scope from its first words.
func (s *Store) newID(scope Scope, body string) string {
	title, _ := split(body)
	var b strings.Builder
	for _, w := range terms(title) {
		w = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, w)
		if w == "" {
			continue
		}
		if b.Len() > 0 && b.Len()+1+len(w) > maxSlug {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w[:min(len(w), maxSlug)])
	}
	base := cmp.Or(b.String(), "note")
	id := base
	for i := 2; ; i++ {
		if _, ok := s.ix.get(scope, id); !ok && ValidID(id) == nil {
			return id
		}
		id = base + "-" + strconv.Itoa(i)
	}
}

// Delete removes the note id of scope. It returns an error wrapping
// [ErrNotFound] when there is no such note.
func (s *Store) Delete(scope Scope, id string) error {
	if err := ValidID(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return err
	}
	root, err := s.openRoot(scope, false)
	if err != nil {
		return err
	}
	if root == nil {
		return fmt.Errorf("%s note %s: %w", scope, id, ErrNotFound)
	}
	defer root.Close()
	if err := root.Remove(id + ".md"); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s note %s: %w", scope, id, ErrNotFound)
		}
		return fmt.Errorf("%s memory: delete %s: %w", scope, id, err)
	}
	syncDir(root, path.Dir(id))
	s.ix.remove(scope, id)
	return s.afterWrite(scope, id)
}

// Rename moves the note from of scope to the id to, which must be free.
// The note's times stay as they were.
func (s *Store) Rename(scope Scope, from, to string) error {
	for _, id := range []string{from, to} {
		if err := ValidID(id); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return err
	}
	old, ok := s.ix.get(scope, from)
	if !ok {
		return fmt.Errorf("%s note %s: %w", scope, from, ErrNotFound)
	}
	if _, ok := s.ix.get(scope, to); ok {
		return fmt.Errorf("%s note %s already exists: delete it first, or choose another name", scope, to)
	}
	n := old.note
	root, err := s.openRoot(scope, false)
	if err != nil {
		return err
	}
	if root == nil {
		return fmt.Errorf("%s note %s: %w", scope, from, ErrNotFound)
	}
	defer root.Close()
	if dir := path.Dir(to); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s memory: rename %s: %w", scope, from, err)
		}
	}
	// Renaming first is atomic; the frontmatter's id is then brought up
	// to date (the path decides the id, so a crash in between is
	// harmless).
	if err := root.Rename(from+".md", to+".md"); err != nil {
		return fmt.Errorf("%s memory: rename %s: %w", scope, from, err)
	}
	syncDir(root, path.Dir(from))
	s.ix.remove(scope, from)
	n.ID = to
	if err := s.write(scope, to+".md", n.Markdown()); err != nil {
		return err
	}
	s.ix.add(n)
	return s.afterWrite(scope, to)
}

// List returns the notes of scope (both scopes when it is empty), newest
// first.
func (s *Store) List(scope Scope) ([]Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	return s.list(scope), nil
}

func (s *Store) list(scope Scope) []Note {
	var out []Note
	for i := range s.ix.docs {
		d := &s.ix.docs[i]
		if d.live && (scope == "" || d.note.Scope == scope) {
			out = append(out, d.note)
		}
	}
	slices.SortFunc(out, newestFirst)
	return out
}

func newestFirst(a, b Note) int {
	if c := b.Modified.Compare(a.Modified); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Scope, b.Scope); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// write writes data to the file rel of scope's directory: to a temporary
// file beside it, synced, then renamed over it.
func (s *Store) write(scope Scope, rel string, data []byte) error {
	root, err := s.openRoot(scope, true)
	if err != nil {
		return err
	}
	defer root.Close()
	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s memory: write %s: %w", scope, rel, err)
		}
	}
	tmp := path.Join(dir, "."+path.Base(rel)+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("%s memory: write %s: %w", scope, rel, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = s.syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("%s memory: write %s: %w", scope, rel, err)
	}
	syncDir(root, dir)
	return nil
}

// syncDir makes a rename or removal in dir durable, where the platform
// can; failure is not reported, as the file itself is already written.
func syncDir(root *os.Root, dir string) {
	if d, err := root.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// afterWrite rewrites scope's MEMORY.md and records the times of the
// directories the write touched, so the store's own writes do not make
// it read everything again.
func (s *Store) afterWrite(scope Scope, id string) error {
	err := s.writeIndex(scope)
	seen := s.dirs[scope]
	if seen == nil {
		seen = map[string]time.Time{}
		s.dirs[scope] = seen
	}
	base := s.Dir(scope)
	for dir := path.Dir(id); ; dir = path.Dir(dir) {
		if fi, err := os.Stat(filepath.Join(base, filepath.FromSlash(dir))); err == nil {
			seen[dir] = fi.ModTime()
		} else {
			delete(seen, dir)
		}
		if dir == "." {
			break
		}
	}
	return err
}
