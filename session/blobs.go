package session

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
)

// Blobs is a content-addressed store of file contents: each content is
// one file named by its SHA-256 ([HashBytes]), written once. A session's
// blobs live beside its journal, in <sessions>/<id>/blobs. The zero value
// is not usable; get one from [Session.Blobs] or [Store.Blobs]. It is safe
// for concurrent use, by several processes too: a blob is written to a
// temporary file, synced and renamed into place, so a blob that exists is
// whole.
type Blobs struct {
	dir    string
	noSync bool
}

// Blobs returns the blob store of the session.
func (s *Session) Blobs() *Blobs { return s.store.Blobs(s.ID()) }

// Blobs returns the blob store of session id.
func (s *Store) Blobs(id string) *Blobs { return &Blobs{dir: filepath.Join(s.dir(), id, "blobs")} }

// NewBlobs returns a blob store in dir, created on first write. With sync
// false, blobs are not forced to disk: a crash may lose recent ones (a
// lost blob is missing, never corrupt, as [Blobs.Get] checks every hash).
func NewBlobs(dir string, sync bool) *Blobs { return &Blobs{dir: dir, noSync: !sync} }

// Dir returns the store's directory.
func (b *Blobs) Dir() string { return b.dir }

func (b *Blobs) path(hash string) string { return filepath.Join(b.dir, hash) }

// Has reports whether the store holds the blob hash.
func (b *Blobs) Has(hash string) bool {
	if !validHash(hash) {
		return false
	}
	_, err := os.Lstat(b.path(hash))
	return err == nil
}

// Put stores data, unless a blob of the same content is there already,
// and returns its hash.
func (b *Blobs) Put(data []byte) (string, error) {
	h := HashBytes(data)
	if b.Has(h) {
		return h, nil
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return "", fmt.Errorf("blob store: %w", err)
	}
	tmp, err := os.CreateTemp(b.dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("blob store: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil && !b.noSync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), b.path(h))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("blob store: write %s: %w", h[:12], err)
	}
	if !b.noSync {
		syncDir(b.dir)
	}
	return h, nil
}

// ErrBlobMissing is wrapped by [Blobs.Get] when the store does not hold
// the blob: it was never written, or retention dropped it.
var ErrBlobMissing = errors.New("content not in the session's blob store")

// Get returns the content of blob hash, checked against its hash.
func (b *Blobs) Get(hash string) ([]byte, error) {
	if !validHash(hash) {
		return nil, fmt.Errorf("blob %q: not a sha256 hash: %w", hash, ErrBlobMissing)
	}
	data, err := os.ReadFile(b.path(hash))
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", hash[:12], ErrBlobMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", hash[:12], err)
	}
	if HashBytes(data) != hash {
		return nil, fmt.Errorf("blob %s is corrupt: its content has another hash", hash[:12])
	}
	return data, nil
}

// Remove deletes blob hash; a missing blob is not an error.
func (b *Blobs) Remove(hash string) error {
	if !validHash(hash) {
		return nil
	}
	if err := os.Remove(b.path(hash)); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("blob store: %w", err)
	}
	return nil
}

// Usage returns the bytes and the number of blobs the store holds.
func (b *Blobs) Usage() (bytes int64, n int, err error) {
	entries, err := os.ReadDir(b.dir)
	if errors.Is(err, iofs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("blob store: %w", err)
	}
	for _, e := range entries {
		if !validHash(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil {
			bytes += info.Size()
			n++
		}
	}
	return bytes, n, nil
}
