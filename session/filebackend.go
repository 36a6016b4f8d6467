package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// fileBackend is the Backend of a Store whose Backend is nil: the
// journals are files in dir. Each call checks its ctx when it starts;
// the file system calls it makes take no context.
type fileBackend struct {
	dir string
	now func() time.Time
}

func (b fileBackend) path(id string) string      { return filepath.Join(b.dir, id+".jsonl") }
func (b fileBackend) lockPath(id string) string  { return filepath.Join(b.dir, id+".lock") }
func (b fileBackend) inboxPath(id string) string { return filepath.Join(b.dir, id+".inbox.jsonl") }
func (b fileBackend) backupDir() string          { return filepath.Join(b.dir, "backups") }

// Lock takes the session's flock without waiting; the kernel releases it
// when its holder dies.
func (b fileBackend) Lock(ctx context.Context, id string) (WriterLock, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, fmt.Errorf("create session directory: %w", err)
	}
	l := flock.New(b.lockPath(id))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if !ok {
		pid, _ := strconv.Atoi(strings.TrimSpace(readSmall(b.lockPath(id))))
		return nil, &BusyError{ID: id, PID: pid}
	}
	// Record who holds it, for the next one's message.
	if f, err := os.OpenFile(b.lockPath(id), os.O_WRONLY|os.O_TRUNC, 0o644); err == nil {
		_, _ = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
		_ = f.Close()
	}
	return &fileLock{b: b, id: id, l: l}, nil
}

func readSmall(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64))
	return string(b)
}

func (b fileBackend) Read(ctx context.Context, id string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return os.Open(b.path(id))
}

func (b fileBackend) Stat(ctx context.Context, id string) (JournalInfo, error) {
	if err := ctx.Err(); err != nil {
		return JournalInfo{}, err
	}
	info, err := os.Stat(b.path(id))
	if err != nil {
		return JournalInfo{}, err
	}
	return JournalInfo{ID: id, Size: info.Size(), Modified: info.ModTime().UTC()}, nil
}

func (b fileBackend) List(ctx context.Context) ([]JournalInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(b.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []JournalInfo
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || checkID(id) != nil {
			continue
		}
		ji := JournalInfo{ID: id}
		if info, err := e.Info(); err == nil {
			ji.Size, ji.Modified = info.Size(), info.ModTime().UTC()
		}
		out = append(out, ji)
	}
	return out, nil
}

func (b fileBackend) Backup(ctx context.Context, id string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	src, err := os.Open(b.path(id))
	if err != nil {
		return "", err
	}
	defer src.Close()
	if err := os.MkdirAll(b.backupDir(), 0o755); err != nil {
		return "", err
	}
	dst := b.backupPath(id)
	tmp, err := os.CreateTemp(b.backupDir(), id+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(tmp, src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	syncDir(b.backupDir())
	return dst, nil
}

func (b fileBackend) backupPath(id string) string {
	base := filepath.Join(b.backupDir(), id+"."+b.now().Format("20060102T150405.000000000"))
	path := base + ".jsonl"
	for i := 2; ; i++ {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return path
		}
		path = fmt.Sprintf("%s-%d.jsonl", base, i)
	}
}

// AppendInbox appends under the inbox's own flock, held only for the
// append.
func (b fileBackend) AppendInbox(ctx context.Context, id string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return err
	}
	l := flock.New(b.inboxPath(id) + ".lock")
	if err := l.Lock(); err != nil {
		return err
	}
	defer l.Unlock()
	f, err := os.OpenFile(b.inboxPath(id), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (b fileBackend) DrainInbox(ctx context.Context, id string, fn func([]byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path := b.inboxPath(id)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	l := flock.New(path + ".lock")
	if err := l.Lock(); err != nil {
		return err
	}
	defer l.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if err := fn(data); err != nil {
		return err
	}
	return os.Remove(path)
}

// Blobs is not used: Store.Blobs keeps the file blob store it always had.
func (b fileBackend) Blobs(id string) BlobBackend { return nil }

// fileLock is a held flock of a session in a fileBackend.
type fileLock struct {
	b  fileBackend
	id string
	l  *flock.Flock
}

func (l *fileLock) Create(ctx context.Context, data []byte, sync bool) (Journal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := l.b.path(l.id)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (Journal, error) {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("sync: %w", err))
		}
		syncDir(l.b.dir)
	}
	return f, nil
}

func (l *fileLock) Open(ctx context.Context) (Journal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return os.OpenFile(l.b.path(l.id), os.O_RDWR|os.O_APPEND, 0)
}

func (l *fileLock) Delete(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(l.b.backupDir(), 0o755); err != nil {
		return "", err
	}
	dst := l.b.backupPath(l.id)
	if err := os.Rename(l.b.path(l.id), dst); err != nil {
		return "", err
	}
	_ = os.Remove(l.b.lockPath(l.id))
	syncDir(l.b.dir)
	return dst, nil
}

func (l *fileLock) Unlock() error { return l.l.Unlock() }
