package session

import (
	"context"
	"io"
	"time"
)

// A Backend keeps the bytes of a [Store]'s sessions: their journals and
// writer locks, inboxes, backups and blobs. Everything else happens above
// it, in the Store: ids, redaction of secrets, the journal format,
// folding, repair. Every backend therefore holds the same JSON Lines
// bytes, and [Store.Load] reads the same [State] from any of them.
//
// A nil [Store.Backend] is the file backend: one directory ([Store.Dir])
// with <id>.jsonl journals, <id>.lock files locked with flock, inboxes
// and a backups directory beside them, and blobs in <id>/blobs. Package
// session/pgstore keeps them in PostgreSQL, for workers on several
// machines.
//
// A Backend's methods may be called concurrently, and by several
// processes at once, which is the point: its writer lock keeps one writer
// per session among them all. Errors about a session that has no journal
// wrap [io/fs.ErrNotExist]; the Store turns them into [ErrNotFound].
//
// Every method but Blobs takes the context of the [Store] call it serves.
// A call given a ctx that is already done fails with an error wrapping
// ctx's error and changes nothing; one whose ctx ends while it runs
// stops as soon as the backend can, with the same error, and may have
// done part of its work, as a call that fails for any other reason may.
// The file backend checks ctx as each call starts; session/pgstore
// cancels the call's queries. [WriterLock.Unlock] and the [Journal]'s
// methods take no context: they finish what the lock's holder has begun,
// and a backend that talks to a server bounds each of them in time
// itself, saying how in its documentation.
type Backend interface {
	// Lock takes the writer lock of session id without waiting, whether
	// or not the session exists yet. When another holder has it, Lock
	// returns a *[BusyError] naming the holder as well as it can. The
	// lock must end with its holder, however that holder ends: a process
	// killed with SIGKILL must not keep it.
	Lock(ctx context.Context, id string) (WriterLock, error)
	// Read returns the journal of session id as a reader sees it: every
	// complete write, in order, and nothing of a write in progress but a
	// torn tail the Store leaves out.
	Read(ctx context.Context, id string) (io.ReadCloser, error)
	// Stat describes the journal of session id.
	Stat(ctx context.Context, id string) (JournalInfo, error)
	// List describes every journal, in no particular order.
	List(ctx context.Context) ([]JournalInfo, error)
	// Backup copies the journal of session id where deleted and
	// compressed sessions go, and returns where the copy is: a path, or
	// the backend's name for it.
	Backup(ctx context.Context, id string) (string, error)
	// AppendInbox appends data, whole JSON lines, to the inbox of session
	// id: what other processes record while one writes the session.
	AppendInbox(ctx context.Context, id string, data []byte) error
	// DrainInbox calls fn with the inbox of session id, if it has one,
	// and empties the inbox when fn succeeds. Appends that come while fn
	// runs either reach fn or stay in the inbox; none is lost.
	DrainInbox(ctx context.Context, id string, fn func(data []byte) error) error
	// Blobs returns the content-addressed store of session id. It does
	// no I/O: the BlobBackend's methods do.
	Blobs(id string) BlobBackend
}

// A WriterLock is a held writer lock of one session: what only the
// session's one writer may do. Create, Open and Delete take the context
// of the [Store] call they serve, as a [Backend]'s methods do; Unlock
// takes none (see [Backend]). A backend whose lock lives in a connection
// may lose the lock when a ctx ends a call mid-way, as it would when the
// call times out: the [Store] then unlocks and returns the error.
type WriterLock interface {
	// Create makes the session's journal with its first bytes and returns
	// it open for appending. It fails with an error wrapping
	// [io/fs.ErrExist] when the session has a journal, and leaves nothing
	// behind when it fails. With sync set the journal is durable when
	// Create returns.
	Create(ctx context.Context, data []byte, sync bool) (Journal, error)
	// Open opens the session's journal for appending.
	Open(ctx context.Context) (Journal, error)
	// Delete moves the session's journal where [Backend.Backup] puts
	// copies and returns where it went.
	Delete(ctx context.Context) (string, error)
	// Unlock releases the lock. A Journal from the lock is closed first.
	Unlock() error
}

// A Journal is one session's journal open for appending, by the holder
// of its writer lock. *[os.File] is one. Its methods take no context, as
// an [io.Writer]'s do: the [Session] above calls them with its lock held,
// to finish what it has begun (an append, the cut of a failed one), and a
// backend that talks to a server bounds each call in time itself.
type Journal interface {
	// Write appends p. A backend that can make a write atomic should: a
	// crash then never leaves part of one.
	Write(p []byte) (int, error)
	// Sync makes the writes so far durable.
	Sync() error
	// Truncate cuts the journal back to size bytes: the Store cuts off a
	// torn last line, and undoes a write that failed part way.
	Truncate(size int64) error
	// Close closes the journal; the lock stays held.
	Close() error
}

// JournalInfo describes one journal.
type JournalInfo struct {
	// ID is the session's id.
	ID string
	// Size is the journal's length in bytes.
	Size int64
	// Modified is when it was last written.
	Modified time.Time
}

// A BlobBackend keeps the blobs of one session, by their SHA-256 hash
// ([HashBytes]); [Blobs] checks hashes and sizes above it. Errors for a
// blob it does not hold wrap [io/fs.ErrNotExist]. Its methods take the
// context of the [Blobs] call they serve, as a [Backend]'s do.
type BlobBackend interface {
	// Put stores data as blob hash; storing a blob that is there already
	// is not an error. A blob that exists is whole.
	Put(ctx context.Context, hash string, data []byte) error
	// Get returns the content of blob hash.
	Get(ctx context.Context, hash string) ([]byte, error)
	// Size returns the length of blob hash.
	Size(ctx context.Context, hash string) (int64, error)
	// Remove deletes blob hash; a missing blob is not an error.
	Remove(ctx context.Context, hash string) error
	// Usage returns the bytes and the number of blobs held.
	Usage(ctx context.Context) (bytes int64, n int, err error)
}
