package session

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield/tool"
)

// Blobs is a content-addressed store of file contents: each content is
// one file named by its SHA-256 ([HashBytes]), written once. A session's
// blobs live beside its journal, in <sessions>/<id>/blobs. The zero value
// is not usable; get one from [Session.Blobs] or [Store.Blobs]. It is safe
// for concurrent use, by several processes too: a blob is written to a
// temporary file, synced and renamed into place, so a blob that exists is
// whole. Its methods that read or write blobs take a ctx: when ctx is done
// before the call, the call fails with an error wrapping ctx's error and
// changes nothing ([Blobs.Has] reports false), and a [Store.Backend] that
// talks to a server stops the call when ctx is done mid-way.
type Blobs struct {
	dir    string
	noSync bool
	be     BlobBackend // when not nil, holds the blobs instead of dir
}

// Blobs returns the blob store of the session.
func (s *Session) Blobs() *Blobs { return s.store.Blobs(s.ID()) }

// Blobs returns the blob store of session id. Its blobs are forced to disk
// as the journal's records are: under SyncAlways at once, otherwise by the
// operating system, as the journal's records are between commits; a blob
// a crash cut short is found by its size and written again.
func (s *Store) Blobs(id string) *Blobs {
	if s.Backend != nil {
		return &Blobs{be: s.Backend.Blobs(id)}
	}
	return &Blobs{dir: filepath.Join(s.dir(), id, "blobs"), noSync: s.Sync != SyncAlways}
}

// NewBlobs returns a blob store in dir, created on first write. With sync
// false, blobs are not forced to disk: a crash may lose recent ones (a
// lost blob is missing, never corrupt, as [Blobs.Get] checks every hash).
func NewBlobs(dir string, sync bool) *Blobs { return &Blobs{dir: dir, noSync: !sync} }

// Image returns the bytes of the tool image hash from the session's blob
// store; a tool_response turn's [Turn.Images] carry only the hashes. The
// error wraps [ErrBlobMissing] when the store does not hold it.
func (s *Session) Image(ctx context.Context, hash string) ([]byte, error) {
	return s.Blobs().Get(ctx, hash)
}

// putImages stores the bytes of imgs and returns them as the journal
// keeps them: hash, type and size, without the bytes. An image without
// bytes is kept as it is (it was stored before).
func (b *Blobs) putImages(ctx context.Context, imgs []tool.Image) ([]tool.Image, error) {
	if len(imgs) == 0 {
		return nil, nil
	}
	out := make([]tool.Image, len(imgs))
	for i, img := range imgs {
		if len(img.Data) > 0 {
			h, err := b.Put(ctx, img.Data)
			if err != nil {
				return nil, fmt.Errorf("image %d of the result: %w", i+1, err)
			}
			img.Hash = h
		}
		img.Data = nil
		out[i] = img
	}
	return out, nil
}

// copyImages puts into dst the pictures turns name that src holds, so
// that a fork sees the pictures of the turns it keeps; one src lacks
// (retention dropped it) is left out, as it was before.
func copyImages(ctx context.Context, src, dst *Blobs, turns []Turn) error {
	for _, t := range turns {
		for _, img := range t.Images {
			if img.Hash == "" || dst.Has(ctx, img.Hash) {
				continue
			}
			data, err := src.Get(ctx, img.Hash)
			if errors.Is(err, ErrBlobMissing) {
				continue
			}
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

// Dir returns the store's directory; "" when a [Store.Backend] other
// than files holds the blobs.
func (b *Blobs) Dir() string { return b.dir }

// size returns the length of blob hash.
func (b *Blobs) size(ctx context.Context, hash string) (int64, error) {
	if b.be != nil {
		return b.be.Size(ctx, hash)
	}
	info, err := os.Lstat(b.path(hash))
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

func (b *Blobs) path(hash string) string { return filepath.Join(b.dir, hash) }

// Has reports whether the store holds the blob hash; it reports false
// too when it cannot tell, as when ctx is done.
func (b *Blobs) Has(ctx context.Context, hash string) bool {
	if !validHash(hash) || ctx.Err() != nil {
		return false
	}
	_, err := b.size(ctx, hash)
	return err == nil
}

// Put stores data, unless a blob of the same content is there already,
// and returns its hash.
func (b *Blobs) Put(ctx context.Context, data []byte) (string, error) {
	h := HashBytes(data)
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("blob store: write %s: %w", h[:12], err)
	}
	if n, err := b.size(ctx, h); err == nil && n == int64(len(data)) {
		return h, nil
	}
	if b.be != nil {
		if err := b.be.Put(ctx, h, data); err != nil {
			return "", fmt.Errorf("blob store: write %s: %w", h[:12], err)
		}
		return h, nil
	}
	tmp, err := os.CreateTemp(b.dir, ".tmp-*")
	if errors.Is(err, iofs.ErrNotExist) { // the first blob
		if err := os.MkdirAll(b.dir, 0o755); err != nil {
			return "", fmt.Errorf("blob store: %w", err)
		}
		tmp, err = os.CreateTemp(b.dir, ".tmp-*")
	}
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
func (b *Blobs) Get(ctx context.Context, hash string) ([]byte, error) {
	if !validHash(hash) {
		return nil, fmt.Errorf("blob %q: not a sha256 hash: %w", hash, ErrBlobMissing)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("blob %s: %w", hash[:12], err)
	}
	var data []byte
	var err error
	if b.be != nil {
		data, err = b.be.Get(ctx, hash)
	} else {
		data, err = os.ReadFile(b.path(hash))
	}
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
func (b *Blobs) Remove(ctx context.Context, hash string) error {
	if !validHash(hash) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("blob store: remove %s: %w", hash[:12], err)
	}
	if b.be != nil {
		if err := b.be.Remove(ctx, hash); err != nil {
			return fmt.Errorf("blob store: %w", err)
		}
		return nil
	}
	if err := os.Remove(b.path(hash)); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("blob store: %w", err)
	}
	return nil
}

// Usage returns the bytes and the number of blobs the store holds.
func (b *Blobs) Usage(ctx context.Context) (bytes int64, n int, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, fmt.Errorf("blob store: %w", err)
	}
	if b.be != nil {
		bytes, n, err = b.be.Usage(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("blob store: %w", err)
		}
		return bytes, n, nil
	}
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

// DefaultBlobLimit is the default cap on the bytes of a session's blob
// store (see [Session.PruneBlobs]).
const DefaultBlobLimit = 512 << 20

// A PruneReport says what [Session.PruneBlobs] dropped.
type PruneReport struct {
	// Before and After are the store's bytes before and after.
	Before, After int64
	// Dropped counts the blobs removed.
	Dropped int
}

// PruneKeepImages is the number of the newest tool images that
// [Session.PruneBlobs] never drops: more than a prompt keeps.
const PruneKeepImages = 16

// PruneBlobs keeps the session's blob store under limit bytes (zero means
// DefaultBlobLimit): when it is over, it removes first the pictures of
// old tool results (all but the newest PruneKeepImages; prompts show
// older ones as a note anyway), then the contents of the oldest changes,
// those found by snapshots (shell changes) before those the tools
// reported, and never the contents of the newest version of a file.
// Undoing a change whose content was dropped skips that file and says
// why. The ledger's records and the turns' image hashes stay.
func (s *Session) PruneBlobs(ctx context.Context, limit int64) (PruneReport, error) {
	if limit <= 0 {
		limit = DefaultBlobLimit
	}
	blobs := s.Blobs()
	used, _, err := blobs.Usage(ctx)
	if err != nil || used <= limit {
		return PruneReport{Before: used, After: used}, err
	}
	st := s.State()
	// The newest version of each file is kept: it is what the files are
	// now, and what a conflict check needs.
	keep := map[string]bool{}
	seen := map[[2]string]bool{}
	for i := len(st.Files) - 1; i >= 0; i-- {
		r := &st.Files[i]
		k := [2]string{r.Root, r.Path}
		if !seen[k] {
			seen[k] = true
			keep[r.AfterHash] = true
		}
	}
	var order []string
	listed := map[string]bool{}
	// Pictures that are also file contents are left to the file order.
	files := map[string]bool{}
	for i := range st.Files {
		files[st.Files[i].BeforeHash], files[st.Files[i].AfterHash] = true, true
	}
	var images []string
	for _, turns := range [][]Turn{st.Turns, st.Pool} {
		for i := range turns {
			for _, img := range turns[i].Images {
				if img.Hash != "" && !files[img.Hash] && !listed[img.Hash] {
					listed[img.Hash] = true
					images = append(images, img.Hash)
				}
			}
		}
	}
	order = append(order, images[:max(len(images)-PruneKeepImages, 0)]...)
	for _, shellFirst := range []bool{true, false} {
		for i := range st.Files {
			r := &st.Files[i]
			if (r.Source == SourceShell) != shellFirst {
				continue
			}
			for _, h := range []string{r.BeforeHash, r.AfterHash} {
				if h != "" && !keep[h] && !listed[h] {
					listed[h] = true
					order = append(order, h)
				}
			}
		}
	}
	rep := PruneReport{Before: used, After: used}
	for _, h := range order {
		if rep.After <= limit {
			break
		}
		size, err := blobs.size(ctx, h)
		if err != nil {
			continue
		}
		if err := blobs.Remove(ctx, h); err != nil {
			return rep, err
		}
		rep.After -= size
		rep.Dropped++
	}
	return rep, nil
}
