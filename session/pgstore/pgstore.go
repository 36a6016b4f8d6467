// Package pgstore keeps wield's sessions in PostgreSQL: a
// [session.Backend] for workers on several machines that open, append to
// and close the same sessions in turn.
//
//	be, err := pgstore.New(ctx, "postgres://wield@db.internal/wield", nil)
//	if err != nil { … }
//	defer be.Close()
//	store := &session.Store{Backend: be}
//
// # Tables
//
// New creates its tables when they are missing, in the schema
// [Options.Schema] ("wield" by default), and leaves them alone when they
// are there:
//
//   - sessions (id, size, modified): one row per journal.
//   - journal (session_id, off, data): the journal's bytes, one row per
//     append, data starting at byte off. A journal's rows, in order of
//     off, are exactly the JSON Lines file the file backend writes, so
//     [session.Store.Load] reads the same [session.State] from either.
//   - writers (session_id, host, pid, since): who last took each writer
//     lock, for the message of a [session.BusyError].
//   - inbox (seq, session_id, data): what other processes recorded while
//     one wrote the session.
//   - backups (name, session_id, data, created): deleted and compressed
//     sessions' journals.
//   - blobs (session_id, hash, data): the sessions' blobs, by SHA-256.
//
// # Writers and crashes
//
// The writer lock of a session is a session-level advisory lock
// (pg_try_advisory_lock) held by a connection of its own, which the
// session's appends also use. The lock lives as long as that connection:
// a process killed with SIGKILL closes it, the server ends the backend,
// and the next worker takes the lock at once. A writer that closes its
// session releases the lock and leaves the connection to the next writer
// of the process (a few are kept), since the server takes tens of
// milliseconds to make one. Every append is one
// statement, so one transaction: a crash never leaves part of one, and
// the torn-tail repair of [session.Store.Open] finds nothing to cut. An
// append also checks that the journal still has the length its writer
// knows, so a writer whose lock was lost (its connection dropped) fails
// instead of writing after another.
//
// A machine that vanishes without closing its connections (power loss,
// a partition) keeps its locks until the server notices the connection
// is dead: set the server's tcp_keepalives_idle, tcp_keepalives_interval
// and tcp_keepalives_count to bound that.
//
// # Contexts
//
// Each call of a [session.Backend], [session.WriterLock] or
// [session.BlobBackend] method given a ctx runs its queries under that
// ctx, bounded by [Options.Timeout] as well: when ctx is done the call
// returns at once with an error wrapping ctx's error, and a query it
// cuts short closes its connection (the server then drops what the query
// had not committed). A writer lock's connection holds the lock, so a
// Lock, Create, Open or Delete cut short ends the lock, and the Store
// reports the error. Unlock and the journal's Write, Sync and Truncate
// are given no ctx: they finish what the lock's holder has begun, and
// Options.Timeout alone bounds each, as it bounds the goodbyes of
// [Backend.Close]. [Backend.DrainInbox] finishes deleting the rows it handed
// over, within Options.Timeout, whatever ctx's state.
//
// # Durability
//
// Appends follow [session.Store.Sync] as the file backend's do. Each is
// committed at once, visible to every reader, without waiting for the
// server's disk (synchronous_commit off, on the writer's connection
// only); a sync, at the end of a transaction under [session.SyncCommit],
// waits until everything before it is on disk. A killed writer loses
// nothing it appended; a crash of the server may lose the appends since
// the last sync, as a crash of the machine may lose a file's unsynced
// writes, but never part of one. Creating and deleting a session are
// synchronous.
package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/wieldhq/wield/session"
)

// Options configure a [Backend]. A nil *Options, or its zero value, means
// the defaults.
type Options struct {
	// Schema holds the tables; empty means "wield". It must be a plain
	// lower-case SQL name: letters, digits and '_'.
	Schema string
	// Timeout bounds each call to the server; zero means 30 seconds. A
	// call given a ctx ends at ctx's deadline too, if it comes first;
	// the calls that take no ctx (see the package documentation,
	// "Contexts") have Timeout alone. A call that times out, or whose
	// ctx ends while it runs, closes its connection; for a writer that
	// is the end of its lock.
	Timeout time.Duration
}

// A Backend is a [session.Backend] in one PostgreSQL database. It is safe
// for concurrent use.
type Backend struct {
	pool    *pgxpool.Pool   // nil, after Open, until the first call makes it
	cfg     *pgxpool.Config // Open's: the configuration of that pool
	ownPool bool
	schema  string
	ident   string // schema, quoted
	timeout time.Duration
	host    string

	mu    sync.Mutex // guards pool (until ready), ready and err
	ready bool       // the tables exist
	err   error      // a configuration error, returned by every call

	spareMu sync.Mutex
	spare   []*pgx.Conn // writer connections given back, holding no lock
}

// maxSpare bounds the writer connections kept for the next [Backend.Lock]:
// making one costs the server a process, tens of milliseconds.
const maxSpare = 4

var _ session.Backend = (*Backend)(nil)

var schemaPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`) })

// New connects to the database connString names (a postgres:// URL or a
// "key=value" string, as libpq takes them), creates the tables if they
// are missing and returns the backend. Close it when done.
func New(ctx context.Context, connString string, opts *Options) (*Backend, error) {
	b := Open(connString, opts)
	if err := b.setup(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// NewFromPool is [New] on a pool the caller owns: [Backend.Close] leaves
// it open. Writer locks take connections of their own, made with the
// pool's connection settings.
func NewFromPool(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*Backend, error) {
	b := newBackend(opts)
	b.pool = pool
	if err := b.setup(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// Open is [New] without waiting for the server: it returns at once, and
// the first call connects and creates the tables. A connection string it
// cannot parse, or a server it cannot reach, is reported by the calls,
// each of which tries again. It suits a command line, which builds its
// store before it knows whether it will use it.
func Open(connString string, opts *Options) *Backend {
	b := newBackend(opts)
	if b.err != nil {
		return b
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		b.err = fmt.Errorf("session store: %w", err)
		return b
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "wield"
	}
	b.cfg, b.ownPool = cfg, true
	return b
}

func newBackend(opts *Options) *Backend {
	var o Options
	if opts != nil {
		o = *opts
	}
	b := &Backend{schema: o.Schema, timeout: o.Timeout}
	if b.schema == "" {
		b.schema = "wield"
	}
	if b.timeout <= 0 {
		b.timeout = 30 * time.Second
	}
	if !schemaPattern().MatchString(b.schema) {
		b.err = fmt.Errorf("session store: schema %q: use lower-case letters, digits and '_'", b.schema)
	}
	b.ident = pgx.Identifier{b.schema}.Sanitize()
	b.host, _ = os.Hostname()
	return b
}

// Schema returns the schema that holds the tables.
func (b *Backend) Schema() string { return b.schema }

// Close closes the backend's pool, if [New] or [Open] made it, and the
// writer connections it keeps for reuse. Sessions still open for writing
// keep their own connections until they close.
func (b *Backend) Close() {
	b.spareMu.Lock()
	spare := b.spare
	b.spare = nil
	b.spareMu.Unlock()
	// Close takes no ctx: saying goodbye to the server is bounded by
	// Options.Timeout.
	ctx, cancel := b.bounded()
	defer cancel()
	for _, c := range spare {
		_ = c.Close(ctx)
	}
	b.mu.Lock()
	pool := b.pool
	b.mu.Unlock()
	if b.ownPool && pool != nil {
		pool.Close()
	}
}

// writerConn returns a connection for a writer lock: a spare one, or a
// new one.
func (b *Backend) writerConn(ctx context.Context) (conn *pgx.Conn, spare bool, err error) {
	b.spareMu.Lock()
	for len(b.spare) > 0 && conn == nil {
		conn = b.spare[len(b.spare)-1]
		b.spare = b.spare[:len(b.spare)-1]
		if conn.IsClosed() {
			conn = nil
		}
	}
	b.spareMu.Unlock()
	if conn != nil {
		return conn, true, nil
	}
	conn, err = pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig)
	return conn, false, err
}

// keep puts conn, which holds no lock, aside for the next writer, and
// reports whether it did.
func (b *Backend) keep(conn *pgx.Conn) bool {
	b.spareMu.Lock()
	defer b.spareMu.Unlock()
	if len(b.spare) >= maxSpare || conn.IsClosed() {
		return false
	}
	b.spare = append(b.spare, conn)
	return true
}

// q returns sql with {s} replaced by the quoted schema.
func (b *Backend) q(sql string) string { return strings.ReplaceAll(sql, "{s}", b.ident) }

// bounded returns the context of a call that is given none: Unlock, the
// journal's methods and Close, which finish what was begun and are
// bounded by Options.Timeout alone.
func (b *Backend) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), b.timeout)
}

// call returns the context of a call given ctx: ctx, bounded by
// Options.Timeout too.
func (b *Backend) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.timeout)
}

var schemaSQL = []string{
	`CREATE SCHEMA IF NOT EXISTS {s}`,
	`CREATE TABLE IF NOT EXISTS {s}.sessions (id text PRIMARY KEY, size bigint NOT NULL, modified timestamptz NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS {s}.journal (session_id text NOT NULL, off bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (session_id, off))`,
	`CREATE TABLE IF NOT EXISTS {s}.writers (session_id text PRIMARY KEY, host text NOT NULL, pid integer NOT NULL, since timestamptz NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS {s}.inbox (seq bigserial PRIMARY KEY, session_id text NOT NULL, data bytea NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS inbox_session ON {s}.inbox (session_id)`,
	`CREATE TABLE IF NOT EXISTS {s}.backups (name text PRIMARY KEY, session_id text NOT NULL, data bytea NOT NULL, created timestamptz NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS {s}.blobs (session_id text NOT NULL, hash text NOT NULL, data bytea NOT NULL, PRIMARY KEY (session_id, hash))`,
}

// setup creates the tables once; a failure is tried again by the next
// call.
func (b *Backend) setup(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	if b.ready {
		return nil
	}
	if b.pool == nil {
		// The pool connects when a query needs a connection; its
		// making uses ctx's values but not its deadline.
		pool, err := pgxpool.NewWithConfig(ctx, b.cfg)
		if err != nil {
			return fmt.Errorf("session store: %w", err)
		}
		b.pool = pool
	}
	// Two processes creating the same tables at once would collide in
	// the catalog: a transaction-level advisory lock orders them.
	err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "wield schema "+b.schema); err != nil {
			return err
		}
		for _, sql := range schemaSQL {
			if _, err := tx.Exec(ctx, b.q(sql)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("session store: create the tables in schema %s: %w", b.schema, err)
	}
	b.ready = true
	return nil
}

// begin starts a call given ctx: it bounds it in time as well and makes
// sure the tables exist.
func (b *Backend) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ctx, cancel := b.call(ctx)
	if err := b.setup(ctx); err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, cancel, nil
}

// lockKey is the advisory lock key of session id, hashed by the server.
func (b *Backend) lockKey(id string) string { return "wield session " + b.schema + "/" + id }

// Lock takes the writer lock of session id on a connection of its own,
// kept from an earlier writer or new. When ctx ends while it works, the
// connection is closed, and the lock with it if it was taken.
func (b *Backend) Lock(ctx context.Context, id string) (session.WriterLock, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	var (
		conn  *pgx.Conn
		spare = true
		ok    bool
	)
	// A spare connection the server has ended since fails its first
	// query; a new one is made then.
	for spare {
		if conn, spare, err = b.writerConn(ctx); err != nil {
			return nil, fmt.Errorf("lock session %s: connect: %w", id, err)
		}
		err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, b.lockKey(id)).Scan(&ok)
		if err == nil {
			break
		}
		_ = conn.Close(ctx)
		if !spare || ctx.Err() != nil {
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
	}
	if !ok {
		if !b.keep(conn) {
			_ = conn.Close(ctx)
		}
		busy := &session.BusyError{ID: id}
		_ = b.pool.QueryRow(ctx, b.q(`SELECT host, pid FROM {s}.writers WHERE session_id = $1`), id).Scan(&busy.Host, &busy.PID)
		return nil, busy
	}
	_, err = conn.Exec(ctx, b.q(`INSERT INTO {s}.writers (session_id, host, pid, since) VALUES ($1, $2, $3, now())
		ON CONFLICT (session_id) DO UPDATE SET host = excluded.host, pid = excluded.pid, since = excluded.since`),
		id, b.host, os.Getpid())
	if err == nil {
		// Appends are committed without waiting for the disk; Sync waits
		// for it (see the package documentation, "Durability").
		_, err = conn.Exec(ctx, `SET synchronous_commit = off`)
	}
	if err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	return &writerLock{b: b, id: id, conn: conn}, nil
}

// Read returns the journal of session id, read in one statement.
func (b *Backend) Read(ctx context.Context, id string) (io.ReadCloser, error) {
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(ctx, b.q(`SELECT off, data FROM {s}.journal WHERE session_id = $1 ORDER BY off`), id)
	if err != nil {
		return nil, err
	}
	var (
		buf  bytes.Buffer
		off  int64
		data []byte
		n    int
	)
	_, err = pgx.ForEachRow(rows, []any{&off, &data}, func() error {
		if off != int64(buf.Len()) {
			return fmt.Errorf("the journal of session %s has no bytes %d to %d", id, buf.Len(), off)
		}
		buf.Write(data)
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if _, err := b.Stat(ctx, id); err != nil {
			return nil, err
		}
	}
	return io.NopCloser(&buf), nil
}

// Stat describes the journal of session id.
func (b *Backend) Stat(ctx context.Context, id string) (session.JournalInfo, error) {
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return session.JournalInfo{}, err
	}
	defer cancel()
	info := session.JournalInfo{ID: id}
	err = b.pool.QueryRow(ctx, b.q(`SELECT size, modified FROM {s}.sessions WHERE id = $1`), id).Scan(&info.Size, &info.Modified)
	if errors.Is(err, pgx.ErrNoRows) {
		return info, fmt.Errorf("session %s: %w", id, fs.ErrNotExist)
	}
	info.Modified = info.Modified.UTC()
	return info, err
}

// List describes every journal.
func (b *Backend) List(ctx context.Context) ([]session.JournalInfo, error) {
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rows, err := b.pool.Query(ctx, b.q(`SELECT id, size, modified FROM {s}.sessions`))
	if err != nil {
		return nil, err
	}
	var (
		out  []session.JournalInfo
		info session.JournalInfo
	)
	_, err = pgx.ForEachRow(rows, []any{&info.ID, &info.Size, &info.Modified}, func() error {
		info.Modified = info.Modified.UTC()
		out = append(out, info)
		return nil
	})
	return out, err
}

// Backup copies the journal of session id into the backups table and
// returns "SCHEMA.backups/NAME", NAME being the id and the time.
func (b *Backend) Backup(ctx context.Context, id string) (string, error) {
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return "", err
	}
	defer cancel()
	return b.backup(ctx, b.pool, id)
}

// querier is what backup needs of a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (b *Backend) backup(ctx context.Context, db querier, id string) (string, error) {
	base := id + "." + time.Now().UTC().Format("20060102T150405.000000000")
	name := base
	for i := 2; ; i++ {
		tag, err := db.Exec(ctx, b.q(`INSERT INTO {s}.backups (name, session_id, data, created)
			SELECT $1::text, $2::text, string_agg(data, ''::bytea ORDER BY off), now() FROM {s}.journal WHERE session_id = $2
			HAVING count(*) > 0
			ON CONFLICT (name) DO NOTHING`), name, id)
		if err != nil {
			return "", err
		}
		if tag.RowsAffected() == 1 {
			return b.schema + ".backups/" + name, nil
		}
		var found bool
		// A name taken (two backups in one nanosecond), or no journal?
		if err := db.QueryRow(ctx, b.q(`SELECT EXISTS (SELECT 1 FROM {s}.backups WHERE name = $1)`), name).Scan(&found); err != nil {
			return "", err
		}
		if !found {
			return "", fmt.Errorf("session %s: %w", id, fs.ErrNotExist)
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// AppendInbox adds data to the inbox of session id.
func (b *Backend) AppendInbox(ctx context.Context, id string, data []byte) error {
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = b.pool.Exec(ctx, b.q(`INSERT INTO {s}.inbox (session_id, data) VALUES ($1, $2)`), id, data)
	return err
}

// DrainInbox hands the inbox of session id to fn in one transaction that
// locks its rows and deletes them when fn succeeds. An error of fn is
// returned as it is. Once fn has succeeded, the rows are deleted whatever
// ctx's state, within Options.Timeout: fn has put them in the journal,
// and rows left in the inbox would be merged twice.
func (b *Backend) DrainInbox(ctx context.Context, id string, fn func([]byte) error) error {
	ctx, cancel, err := b.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	// finish bounds what must end whatever ctx's state: the deletion and
	// the commit after fn, or the rollback.
	finish, cancelFinish := context.WithTimeout(context.WithoutCancel(ctx), b.timeout)
	defer cancelFinish()
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(finish) // after Commit, a no-op
	rows, err := tx.Query(ctx, b.q(`SELECT seq, data FROM {s}.inbox WHERE session_id = $1 ORDER BY seq FOR UPDATE`), id)
	if err != nil {
		return err
	}
	var (
		seqs []int64
		buf  bytes.Buffer
		seq  int64
		data []byte
	)
	if _, err := pgx.ForEachRow(rows, []any{&seq, &data}, func() error {
		seqs = append(seqs, seq)
		buf.Write(data)
		return nil
	}); err != nil {
		return err
	}
	if len(seqs) == 0 {
		return nil
	}
	if err := fn(buf.Bytes()); err != nil {
		return err
	}
	if _, err := tx.Exec(finish, b.q(`DELETE FROM {s}.inbox WHERE seq = ANY($1)`), seqs); err != nil {
		return err
	}
	return tx.Commit(finish)
}

// Blobs returns the blob store of session id.
func (b *Backend) Blobs(id string) session.BlobBackend { return &blobs{b: b, id: id} }

// writerLock is a held advisory lock and its connection.
type writerLock struct {
	b    *Backend
	id   string
	conn *pgx.Conn
}

func (l *writerLock) Create(ctx context.Context, data []byte, sync bool) (session.Journal, error) {
	ctx, cancel := l.b.call(ctx)
	defer cancel()
	err := pgx.BeginFunc(ctx, l.conn, func(tx pgx.Tx) error {
		if sync {
			if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on`); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, l.b.q(`INSERT INTO {s}.sessions (id, size, modified) VALUES ($1, $2, now())`), l.id, int64(len(data)))
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "23505" { // unique_violation
			return fmt.Errorf("session %s: %w", l.id, fs.ErrExist)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, l.b.q(`INSERT INTO {s}.journal (session_id, off, data) VALUES ($1, 0, $2)`), l.id, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &journal{l: l, size: int64(len(data))}, nil
}

func (l *writerLock) Open(ctx context.Context) (session.Journal, error) {
	ctx, cancel := l.b.call(ctx)
	defer cancel()
	var size int64
	err := l.conn.QueryRow(ctx, l.b.q(`SELECT size FROM {s}.sessions WHERE id = $1`), l.id).Scan(&size)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", l.id, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	return &journal{l: l, size: size}, nil
}

// Delete moves the journal into the backups table, in one transaction.
// The session's inbox and blobs stay, as the file backend's do.
func (l *writerLock) Delete(ctx context.Context) (string, error) {
	ctx, cancel := l.b.call(ctx)
	defer cancel()
	var name string
	err := pgx.BeginFunc(ctx, l.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on`); err != nil {
			return err
		}
		var err error
		if name, err = l.b.backup(ctx, tx, l.id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, l.b.q(`DELETE FROM {s}.journal WHERE session_id = $1`), l.id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, l.b.q(`DELETE FROM {s}.sessions WHERE id = $1`), l.id)
		return err
	})
	return name, err
}

// Unlock releases the advisory lock and keeps the connection for the next
// writer, or closes it, which ends the lock as surely. It is given no
// ctx ([session.WriterLock]): Options.Timeout bounds it.
func (l *writerLock) Unlock() error {
	ctx, cancel := l.b.bounded()
	defer cancel()
	var released bool
	err := l.conn.QueryRow(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, l.b.lockKey(l.id)).Scan(&released)
	if err == nil && released {
		_, err = l.conn.Exec(ctx, `SET synchronous_commit = DEFAULT`)
	}
	if err == nil && released && l.b.keep(l.conn) {
		return nil
	}
	if cerr := l.conn.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// journal appends to a session's journal on its lock's connection.
type journal struct {
	l      *writerLock
	size   int64 // the journal's length as this writer knows it
	closed bool
}

// Write appends p as one row, in one statement that also checks the
// journal's length: a writer that lost its lock cannot write after
// another. It is given no ctx ([session.Journal]): Options.Timeout bounds
// it, and one that times out ends the lock, after which the session
// refuses further writes.
func (j *journal) Write(p []byte) (int, error) {
	if j.closed {
		return 0, os.ErrClosed
	}
	l := j.l
	ctx, cancel := l.b.bounded()
	defer cancel()
	tag, err := l.conn.Exec(ctx, l.b.q(`WITH u AS (
			UPDATE {s}.sessions SET size = size + $3, modified = now() WHERE id = $1 AND size = $2 RETURNING id)
		INSERT INTO {s}.journal (session_id, off, data) SELECT id, $2::bigint, $4::bytea FROM u`),
		l.id, j.size, int64(len(p)), p)
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() != 1 {
		return 0, fmt.Errorf("the journal of session %s is no longer %d bytes long: another process wrote it, so this one no longer holds its lock", l.id, j.size)
	}
	j.size += int64(len(p))
	return len(p), nil
}

// Sync waits until the writes so far are on the server's disk: it
// commits a transaction of its own with synchronous_commit on, whose
// commit record is flushed with all the WAL before it, the asynchronous
// commits of the writes included. Options.Timeout bounds it, as it does
// Write.
func (j *journal) Sync() error {
	if j.closed {
		return os.ErrClosed
	}
	ctx, cancel := j.l.b.bounded()
	defer cancel()
	_, err := j.l.conn.Exec(ctx, `SELECT set_config('synchronous_commit', 'on', true), txid_current()`)
	return err
}

// Truncate cuts the journal to size bytes in one transaction.
// Options.Timeout bounds it, as it does Write.
func (j *journal) Truncate(size int64) error {
	if j.closed {
		return os.ErrClosed
	}
	l := j.l
	ctx, cancel := l.b.bounded()
	defer cancel()
	err := pgx.BeginFunc(ctx, l.conn, func(tx pgx.Tx) error {
		// Only what this writer wrote is cut: the journal must still have
		// the length it knows, as for a write.
		tag, err := tx.Exec(ctx, l.b.q(`UPDATE {s}.sessions SET size = $2, modified = now() WHERE id = $1 AND size = $3 AND $2 <= $3`),
			l.id, size, j.size)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("cannot cut the journal of session %s to %d bytes: it is not %d bytes long as its writer knows it", l.id, size, j.size)
		}
		if _, err := tx.Exec(ctx, l.b.q(`DELETE FROM {s}.journal WHERE session_id = $1 AND off >= $2`), l.id, size); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, l.b.q(`UPDATE {s}.journal SET data = substring(data FROM 1 FOR ($2 - off)::integer)
			WHERE session_id = $1 AND off < $2 AND off + length(data) > $2`), l.id, size)
		return err
	})
	if err != nil {
		return err
	}
	j.size = size
	return nil
}

func (j *journal) Close() error {
	j.closed = true
	return nil
}

// blobs is the blob store of one session.
type blobs struct {
	b  *Backend
	id string
}

func (s *blobs) Put(ctx context.Context, hash string, data []byte) error {
	ctx, cancel, err := s.b.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = s.b.pool.Exec(ctx, s.b.q(`INSERT INTO {s}.blobs (session_id, hash, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`), s.id, hash, data)
	return err
}

func (s *blobs) Get(ctx context.Context, hash string) ([]byte, error) {
	ctx, cancel, err := s.b.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	var data []byte
	err = s.b.pool.QueryRow(ctx, s.b.q(`SELECT data FROM {s}.blobs WHERE session_id = $1 AND hash = $2`), s.id, hash).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fs.ErrNotExist
	}
	return data, err
}

func (s *blobs) Size(ctx context.Context, hash string) (int64, error) {
	ctx, cancel, err := s.b.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	var n int64
	err = s.b.pool.QueryRow(ctx, s.b.q(`SELECT length(data) FROM {s}.blobs WHERE session_id = $1 AND hash = $2`), s.id, hash).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fs.ErrNotExist
	}
	return n, err
}

func (s *blobs) Remove(ctx context.Context, hash string) error {
	ctx, cancel, err := s.b.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	_, err = s.b.pool.Exec(ctx, s.b.q(`DELETE FROM {s}.blobs WHERE session_id = $1 AND hash = $2`), s.id, hash)
	return err
}

func (s *blobs) Usage(ctx context.Context) (int64, int, error) {
	ctx, cancel, err := s.b.begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer cancel()
	var (
		bytes int64
		n     int
	)
	err = s.b.pool.QueryRow(ctx, s.b.q(`SELECT coalesce(sum(length(data)), 0), count(*) FROM {s}.blobs WHERE session_id = $1`), s.id).Scan(&bytes, &n)
	return bytes, n, err
}
