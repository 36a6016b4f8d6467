package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/workspace"
)

// SyncMode says when a [Session] forces its journal to disk.
type SyncMode int

// The sync modes.
const (
	// SyncCommit fsyncs when a transaction closes and after changes that
	// are not part of one (todos, references, compression): a crash loses
	// at most the open transaction's tail, which is repaired on open.
	SyncCommit SyncMode = iota
	// SyncAlways fsyncs after every event.
	SyncAlways
	// SyncNever leaves flushing to the operating system.
	SyncNever
)

// A Store holds the sessions of one directory. Its zero value uses the
// workspace's sessions directory ([workspace.Layout.Sessions]) relative to
// the current directory. A Store must not be copied after
// first use; it is safe for concurrent use.
type Store struct {
	// Backend keeps the journals, their locks, inboxes, backups and
	// blobs; nil means files in Dir (see [Backend]).
	Backend Backend
	// Dir holds the journals of the file backend; empty means the
	// workspace's sessions directory relative to the current directory.
	// It is not used when Backend is set.
	Dir string
	// Sync says when journals are fsynced; the zero value is SyncCommit.
	Sync SyncMode
	// Secrets are values that must never reach a journal, such as the API
	// key in use; they are replaced by [Redacted] (see the package
	// documentation, "Secrets"): wherever they appear when they are
	// [MinSecretLen] bytes or more, only as whole tokens when shorter. A
	// shorter value gets one warning to Logger, and a value that is not
	// valid UTF-8 or that [Redacted] holds is ignored with one; neither
	// shows the value. A host that knows where its secrets come from can
	// put them in Live instead ([SecretSet.AddKnown]) and warn naming
	// them.
	// Built-in patterns catch common key formats and Authorization headers.
	// Secrets is read when the store is first used.
	Secrets []string
	// Live holds the host's secrets: those it knows at start (its API
	// keys, of any length) and those it learns while it runs (a value the
	// user typed for a tool); the journals hide them, by the rule of
	// Secrets, from the moment they are added. Nil means none.
	Live *SecretSet
	// Logger receives warnings such as a repaired journal; a nil Logger
	// discards them.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu   sync.Mutex
	open map[string]*Session

	redactOnce sync.Once
	red        redactor
}

// ErrNotFound is wrapped by the errors of [Store.Open], [Store.Load],
// [Store.Delete] and the other methods that name a session id that has no
// journal. Its message says nothing of how to list sessions: that is the
// host's to add (wield's command line suggests "wield session ls").
var ErrNotFound = errors.New("session not found")

// BusyError reports a session another process is writing: [Store.Open],
// [Store.Create] and [Store.Delete] return it, unwrapped, when the
// session's writer lock is taken.
// Its message names the session and the writer; what to do about it
// (wait, or fork the session) is the host's to add, in its own commands.
type BusyError struct {
	// ID is the session's id.
	ID string
	// PID is the writer's process id, when known.
	PID int
	// Host is the writer's host name, when the backend is shared by
	// several machines and knows it.
	Host string
}

func (e *BusyError) Error() string {
	switch {
	case e.PID > 0 && e.Host != "":
		return fmt.Sprintf("session %s is in use by another wield process (pid %d on %s)", e.ID, e.PID, e.Host)
	case e.PID > 0:
		return fmt.Sprintf("session %s is in use by another wield process (pid %d)", e.ID, e.PID)
	}
	return fmt.Sprintf("session %s is in use by another wield process", e.ID)
}

func (s *Store) dir() string {
	if s.Dir == "" {
		return workspace.Layout{}.Sessions()
	}
	return s.Dir
}

// backend returns s.Backend, or the file backend of s.Dir.
func (s *Store) backend() Backend {
	if s.Backend != nil {
		return s.Backend
	}
	return fileBackend{dir: s.dir(), now: s.now}
}

// notFound turns a backend's error for a missing journal into one
// wrapping ErrNotFound; others are wrapped with what failed.
func notFound(id, what string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return fmt.Errorf("%s session %s: %w", what, id, err)
}

func (s *Store) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// redactor returns the redactor of s.Secrets, made on first use, when it
// warns about values it ignores or can hide only as whole tokens.
func (s *Store) redactor() redactor {
	s.redactOnce.Do(func() {
		var ignored, short int
		s.red, ignored, short = newRedactor(s.Secrets)
		s.red.live = s.Live
		if ignored > 0 {
			s.logger().Warn("a secret to keep out of session journals looks wrong (not UTF-8, or part of the redaction marker), so it is not redacted; check the API key",
				"ignored", ignored)
		}
		if short > 0 {
			s.logger().Warn("a secret to keep out of session journals is too short to redact reliably: it is hidden only where it stands alone as a word, not inside longer words",
				"short", short, "min_bytes", MinSecretLen)
		}
	})
	return s.red
}

func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// checkID refuses ids that are not plain file names.
func checkID(id string) error {
	if !idPattern().MatchString(id) || strings.Contains(id, "..") {
		return fmt.Errorf("invalid session id %q: use letters, digits, '.', '_' and '-' (up to 128): %w", id, ErrNotFound)
	}
	return nil
}

// Path returns the journal file of session id in the file backend; with
// another [Store.Backend] it names no file (see [Store.Stat]).
func (s *Store) Path(id string) string { return filepath.Join(s.dir(), id+".jsonl") }

// BackupDir returns where the file backend puts backups of deleted and
// compressed sessions.
func (s *Store) BackupDir() string { return filepath.Join(s.dir(), "backups") }

// Stat describes the journal of session id (its size and when it was
// last written), whichever backend keeps it: a reader that caches what it
// read compares the size.
func (s *Store) Stat(ctx context.Context, id string) (JournalInfo, error) {
	if err := checkID(id); err != nil {
		return JournalInfo{}, err
	}
	info, err := s.backend().Stat(ctx, id)
	if err != nil {
		return JournalInfo{}, notFound(id, "stat", err)
	}
	return info, nil
}

// NewID returns a fresh session id: the UTC time and a random suffix, so
// ids sort by creation.
func (s *Store) NewID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return s.now().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Create starts a new session described by h and returns it open for
// writing. An empty h.ID gets a fresh id; CreatedAt and Version are set.
func (s *Store) Create(ctx context.Context, h Header) (*Session, error) {
	if h.ID == "" {
		h.ID = s.NewID()
	}
	if err := checkID(h.ID); err != nil {
		return nil, err
	}
	h.Version = JournalVersion
	red := s.redactor()
	h.Purpose, h.Background = red.text(h.Purpose), red.text(h.Background)
	if h.CreatedAt.IsZero() {
		h.CreatedAt = s.now()
	}
	return s.create(ctx, h, nil)
}

// create writes a journal with header h followed by events, locked for
// writing.
func (s *Store) create(ctx context.Context, h Header, events []event) (*Session, error) {
	var buf bytes.Buffer
	if err := writeLine(&buf, h); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	for i := range events {
		if err := writeLine(&buf, &events[i]); err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
	}
	st, _, err := readJournal(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	lock, err := s.backend().Lock(ctx, h.ID)
	if err != nil {
		return nil, err
	}
	// A child agent's journal is made durable when it first commits,
	// which keeps the fsyncs off the path to its first model call; a
	// crash before that leaves its parent's call interrupted, as it would
	// anyway.
	child := h.Child != nil && s.Sync != SyncAlways
	f, err := lock.Create(ctx, buf.Bytes(), !child)
	if err != nil {
		_ = lock.Unlock()
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("session %s already exists", h.ID)
		}
		return nil, fmt.Errorf("create session %s: %w", h.ID, err)
	}
	return s.register(&Session{store: s, file: f, lock: lock, size: int64(buf.Len()), st: *st, red: s.redactor(),
		dirSync: child && s.Backend == nil})
}

func (s *Store) register(ss *Session) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[string]*Session{}
	}
	s.open[ss.st.Header.ID] = ss
	return ss, nil
}

func (s *Store) unregister(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, id)
}

// Writer returns the session that this Store has open for writing under
// id, and reports whether there is one. A session another process writes
// is not reported; [Store.Open] finds it by its lock.
func (s *Store) Writer(id string) (*Session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.open[id]
	return ss, ok
}

// TopWriter returns the top-level session of session id, open for
// writing here: id's own session when it is no child agent's, else its
// parent's, and so up, as far as this Store has them open. It reports
// false when id itself is not open here. What a child agent changes is
// recorded in the session the person runs, which undoes it.
func (s *Store) TopWriter(id string) (*Session, bool) {
	ss, ok := s.Writer(id)
	if !ok {
		return nil, false
	}
	for range 8 { // children nest a few levels at most
		h := ss.st.Header.Child
		if h == nil {
			break
		}
		parent, ok := s.Writer(h.Session)
		if !ok {
			break
		}
		ss = parent
	}
	return ss, true
}

// Open opens session id for writing: it takes the writer lock (failing
// at once with a *[BusyError] if another process holds it), cuts off a torn
// last line with a warning, and closes a transaction left open by a crash
// as aborted, giving every call without a result an interrupted one. A
// transaction paused for approval ([Session.Pause]) stays open, to be
// resumed, and so does one a durable run owns ([MetaRunOwner]), which
// its runner closes.
func (s *Store) Open(ctx context.Context, id string) (*Session, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if _, ok := s.Writer(id); ok {
		return nil, &BusyError{ID: id, PID: os.Getpid()}
	}
	be := s.backend()
	if _, err := be.Stat(ctx, id); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	lock, err := be.Lock(ctx, id)
	if err != nil {
		return nil, err
	}
	f, err := lock.Open(ctx)
	if err != nil {
		_ = lock.Unlock()
		return nil, notFound(id, "open", err)
	}
	fail := func(err error) (*Session, error) {
		_ = f.Close()
		_ = lock.Unlock()
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	r, err := be.Read(ctx, id)
	if err != nil {
		return fail(err)
	}
	st, rr, err := readJournal(r)
	_ = r.Close()
	if err != nil {
		return fail(err)
	}
	if st.Header.ID != id {
		return fail(fmt.Errorf("the journal belongs to session %q", st.Header.ID))
	}
	if rr.torn > 0 {
		s.logger().Warn("session journal ended with an incomplete line; cut it off", "session", id, "bytes", rr.torn)
		if err := f.Truncate(rr.good); err != nil {
			return fail(fmt.Errorf("cut off torn line: %w", err))
		}
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("sync: %w", err))
		}
	}
	ss := &Session{store: s, file: f, lock: lock, size: rr.good, st: *st, red: s.redactor()}
	if st.Open() && st.Paused == nil && len(st.Meta[MetaRunOwner]) == 0 {
		s.logger().Warn("session had an open transaction; closing it as aborted", "session", id, "turns", len(st.Pool))
		if err := ss.abort("repaired on open: the previous run ended without closing its transaction"); err != nil {
			return fail(err)
		}
	}
	if err := ss.drainInbox(ctx); err != nil {
		return fail(err)
	}
	return s.register(ss)
}

// Load reads session id without taking the lock, as a reader. A torn last
// line, which a writer may be appending, is left out.
func (s *Store) Load(ctx context.Context, id string) (*State, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	f, err := s.backend().Read(ctx, id)
	if err != nil {
		return nil, notFound(id, "load", err)
	}
	defer f.Close()
	st, _, err := readJournal(f)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	return st, nil
}

// A Summary describes a session for listings.
type Summary struct {
	Header
	Turns    int       `json:"turns"`
	Open     bool      `json:"open"`
	Todos    int       `json:"todos"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	// Err is set when the journal could not be read.
	Err string `json:"error,omitempty"`
}

// List summarises every session, newest first. Unreadable journals are
// listed with Err set rather than failing the listing.
func (s *Store) List(ctx context.Context) ([]Summary, error) {
	infos, err := s.backend().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Summary
	for _, info := range infos {
		sum := Summary{Header: Header{ID: info.ID}, Size: info.Size, Modified: info.Modified}
		st, err := s.Load(ctx, info.ID)
		if err != nil {
			sum.Err = err.Error()
		} else {
			sum.Header, sum.Turns, sum.Open, sum.Todos = st.Header, len(st.Turns), st.Open(), len(st.Todos)
		}
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Backup copies session id's journal where backups go (BackupDir for the
// file backend) and returns where the copy is.
func (s *Store) Backup(ctx context.Context, id string) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	dst, err := s.backend().Backup(ctx, id)
	if err != nil {
		return "", notFound(id, "back up", err)
	}
	return dst, nil
}

// Delete moves session id where backups go (BackupDir for the file
// backend). A session that is being written,
// by this process or another, is refused.
func (s *Store) Delete(ctx context.Context, id string) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	if _, ok := s.Writer(id); ok {
		return "", fmt.Errorf("session %s is running here; it cannot be deleted while in use", id)
	}
	be := s.backend()
	if _, err := be.Stat(ctx, id); err != nil {
		return "", notFound(id, "delete", err)
	}
	lock, err := be.Lock(ctx, id)
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	dst, err := lock.Delete(ctx)
	if err != nil {
		return "", notFound(id, "delete", err)
	}
	return dst, nil
}

// Fork copies session id up to and including turn at into a new session
// whose header names id as its parent, and returns the new session's id.
// Calls cut off from their results get interrupted results. References
// and todos are copied; the fork is not left open.
func (s *Store) Fork(ctx context.Context, id string, at int) (string, error) {
	st, err := s.Load(ctx, id)
	if err != nil {
		return "", err
	}
	if at < 0 || at > len(st.Turns) {
		return "", fmt.Errorf("fork %s at turn %d: out of bounds; the session has %d committed turns", id, at, len(st.Turns))
	}
	now := s.now()
	h := st.Header
	h.ID, h.ParentID, h.CreatedAt, h.Version = s.NewID(), id, now, JournalVersion
	turns := slices.Clone(st.Turns[:at])
	turns = append(turns, interruptedResults(turns, now)...)
	events := []event{{Op: opFork, Time: now, Origin: &ForkOrigin{Session: id, Turn: at}}}
	if len(turns) > 0 {
		events = append(events, event{Op: opTurns, Time: now, Turns: turns})
	}
	if len(st.References) > 0 {
		events = append(events, event{Op: opReferences, Time: now, References: st.References})
	}
	if len(st.Todos) > 0 {
		events = append(events, event{Op: opTodos, Time: now, Todos: st.Todos})
	}
	ss, err := s.create(ctx, h, events)
	if err != nil {
		return "", fmt.Errorf("fork %s: %w", id, err)
	}
	if err := copyImages(ctx, s.Blobs(id), ss.Blobs(), turns); err != nil {
		return "", errors.Join(fmt.Errorf("fork %s: copy the pictures of its turns: %w", id, err), ss.Close())
	}
	return h.ID, ss.Close()
}

// writeLine appends v as one JSON line to buf.
func writeLine(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode journal line: %w", err)
	}
	return nil
}

// syncDir makes a directory's entries durable; failures are ignored, as
// some file systems do not support it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
