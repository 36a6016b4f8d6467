package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/wieldhq/wield/internal/fstree"
)

// Progress says how far [Library.Index] has got.
type Progress struct {
	// Done of Total documents have been looked at; Path is the last.
	Done, Total int
	Path        string
}

// An IndexReport says what [Library.Index] did.
type IndexReport struct {
	Collection string `json:"collection"`
	// Added, Updated, Unchanged and Removed count documents.
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
	// Chunks counts the chunks written for the added and updated ones.
	Chunks int `json:"chunks"`
	// Ignored counts the files that are not documents retrieval reads.
	Ignored int `json:"ignored"`
	// Skipped lists the documents that could not be indexed, and why.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Documents is the number of documents in the collection after the run.
	Documents int           `json:"documents"`
	Duration  time.Duration `json:"duration"`
}

// Skipped is a document that was not indexed.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// A scope is one path given to Index: the files found below it, and the
// slash path whose documents it may remove.
type scope struct {
	rel   string
	files []fstree.File
}

// Index brings a collection up to date with the documents at or below
// paths (relative to root, or absolute inside it): documents that are new
// or whose content changed (by SHA-256) are extracted, chunked, embedded
// when the library has an [Embedder], and stored; documents that no
// longer exist below a path are removed from the collection. Files are
// found with the file tools' ignore rules; files of other kinds are
// counted as ignored, and documents that cannot be read are reported as
// skipped. progress, if not nil, is called after each document, from one
// goroutine at a time.
//
// Index fails for a path outside root or one that does not exist (unless
// the collection has documents there, which are removed), for a failing
// embedder, and when the index cannot be written; the documents done
// before a failure are kept. One process at a time indexes a collection:
// the others wait for a lock file beside the index.
func (l *Library) Index(ctx context.Context, root *os.Root, collection string, paths []string, progress func(Progress)) (*IndexReport, error) {
	start := l.cfg.Now()
	if len(paths) == 0 {
		return nil, errors.New("no paths to index: give files or directories")
	}
	st, err := l.store(collection)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(l.cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("retrieval: %w", err)
	}
	ignoreSelf(l.cfg.Dir)
	lock := flock.New(filepath.Join(l.cfg.Dir, collection+".lock"))
	if _, err := lock.TryLockContext(ctx, 50*time.Millisecond); err != nil {
		return nil, fmt.Errorf("collection %s: lock: %w", collection, err)
	}
	defer lock.Unlock()

	existing, err := st.Documents(ctx)
	if err != nil {
		return nil, err
	}
	known := make(map[string]Document, len(existing))
	for _, d := range existing {
		known[d.Path] = d
	}
	rep := &IndexReport{Collection: collection}
	var scopes []scope
	for _, p := range paths {
		sc, err := l.find(ctx, root, p, known)
		if err != nil {
			return nil, err
		}
		scopes = append(scopes, sc)
	}
	// The documents to look at, once each, and those to remove.
	seen := map[string]bool{}
	var todo []fstree.File
	for _, sc := range scopes {
		for _, f := range sc.files {
			if KindOf(f.Path) == "" {
				rep.Ignored++
				continue
			}
			if !seen[f.Path] {
				seen[f.Path] = true
				todo = append(todo, f)
			}
		}
	}
	for _, d := range existing {
		if seen[d.Path] {
			continue
		}
		for _, sc := range scopes {
			if within(d.Path, sc.rel) {
				if err := st.Delete(ctx, d.Path); err != nil {
					return nil, err
				}
				rep.Removed++
				break
			}
		}
	}

	err = l.update(ctx, root, st, todo, known, rep, progress)
	if ferr := st.Flush(ctx); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	docs, err := st.Documents(ctx)
	if err != nil {
		return nil, err
	}
	rep.Documents = len(docs)
	rep.Duration = l.cfg.Now().Sub(start)
	return rep, nil
}

// within reports whether the slash path p is dir or lies below it.
func within(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// find lists the files below one path given to Index.
func (l *Library) find(ctx context.Context, root *os.Root, p string, known map[string]Document) (scope, error) {
	rel, err := relPath(root, p)
	if err != nil {
		return scope{}, err
	}
	files, err := fstree.Files(ctx, root, rel, fstree.Config{ExcludePatterns: l.cfg.ExcludePatterns, Workers: l.cfg.Workers})
	if errors.Is(err, fs.ErrNotExist) {
		for d := range known {
			if within(d, rel) {
				return scope{rel: rel}, nil // it was indexed: remove it
			}
		}
		return scope{}, fmt.Errorf("%s does not exist: give a file or directory in the workspace", p)
	}
	if err != nil {
		return scope{}, fmt.Errorf("%s: %w", p, err)
	}
	return scope{rel: rel, files: files}, nil
}

// relPath turns a path argument into a clean slash path relative to
// root, refusing paths that lead out of it.
func relPath(root *os.Root, p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		base, err := filepath.Abs(root.Name())
		if err != nil {
			return "", err
		}
		r, err := filepath.Rel(base, p)
		if err != nil {
			return "", fmt.Errorf("%s is outside the workspace", p)
		}
		p = r
	}
	r := path.Clean(filepath.ToSlash(p))
	if r == ".." || strings.HasPrefix(r, "../") || path.IsAbs(r) {
		return "", fmt.Errorf("%s is outside the workspace: give a path inside it", p)
	}
	return r, nil
}

// update looks at each file of todo on the library's workers.
func (l *Library) update(ctx context.Context, root *os.Root, st Store, todo []fstree.File, known map[string]Document, rep *IndexReport, progress func(Progress)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan fstree.File)
	var (
		mu   sync.Mutex // guards rep, done and progress calls
		done int
		wg   sync.WaitGroup
	)
	for range min(l.cfg.Workers, max(1, len(todo))) {
		wg.Go(func() {
			for f := range jobs {
				outcome, chunks, err := l.indexFile(ctx, root, st, f, known)
				mu.Lock()
				switch {
				case err != nil && errors.Is(err, errSkip):
					rep.Skipped = append(rep.Skipped, Skipped{Path: f.Path, Reason: strings.TrimPrefix(err.Error(), errSkip.Error()+": ")})
					l.cfg.Logger.Warn("document not indexed", "path", f.Path, "err", err)
				case err != nil:
					cancel(err)
				case outcome == added:
					rep.Added++
				case outcome == updated:
					rep.Updated++
				default:
					rep.Unchanged++
				}
				rep.Chunks += chunks
				done++
				if progress != nil && (err == nil || errors.Is(err, errSkip)) {
					progress(Progress{Done: done, Total: len(todo), Path: f.Path})
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, f := range todo {
		select {
		case jobs <- f:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// errSkip marks the failures that skip one document.
var errSkip = errors.New("skip")

type outcome int

const (
	unchanged outcome = iota
	added
	updated
)

// indexFile brings one document up to date and returns what it did and
// the chunks it wrote.
func (l *Library) indexFile(ctx context.Context, root *os.Root, st Store, f fstree.File, known map[string]Document) (outcome, int, error) {
	old, had := known[f.Path]
	wantVectors := l.cfg.Embedder != nil
	vectorsOK := !wantVectors || old.Embedded && old.Model == l.cfg.EmbeddingModel
	if had && old.Size == f.Size && old.ModTime.Equal(f.ModTime) && vectorsOK {
		return unchanged, 0, nil
	}
	if f.Size > l.cfg.MaxFileBytes {
		return 0, 0, fmt.Errorf("%w: larger than %d bytes (the limit)", errSkip, l.cfg.MaxFileBytes)
	}
	data, err := readFile(root, f.Path, l.cfg.MaxFileBytes)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errSkip, err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if had && old.Hash == hash && vectorsOK {
		// The same content, touched: only the stamp changes.
		chunks, err := st.Chunks(ctx, f.Path)
		if err != nil {
			return 0, 0, err
		}
		old.Size, old.ModTime = f.Size, f.ModTime
		return unchanged, 0, st.Put(ctx, old, chunks)
	}
	text, err := Extract(ctx, f.Path, data)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errSkip, err)
	}
	doc := Document{Path: f.Path, Kind: text.Kind, Title: text.Title, Hash: hash, Size: f.Size, ModTime: f.ModTime,
		Lines: text.Lines(), Pages: len(text.Pages), Indexed: l.cfg.Now().UTC()}
	chunks := MakeChunks(f.Path, text, l.cfg.Chunking)
	if wantVectors && len(chunks) > 0 {
		if err := l.embed(ctx, &doc, chunks); err != nil {
			return 0, 0, err
		}
		doc.Embedded, doc.Model = true, l.cfg.EmbeddingModel
	}
	if err := st.Put(ctx, doc, chunks); err != nil {
		return 0, 0, err
	}
	if had {
		return updated, len(chunks), nil
	}
	return added, len(chunks), nil
}

// MakeChunks cuts a document's text into the chunks a store keeps, with
// their lines and (for a PDF) pages.
func MakeChunks(path string, text *Text, opts ChunkOptions) []Chunk {
	spans := Split(text, opts)
	chunks := make([]Chunk, len(spans))
	for i, sp := range spans {
		chunks[i] = Chunk{Path: path, N: i + 1, Heading: sp.Heading, Text: text.Body[sp.Start:sp.End],
			StartLine: sp.StartLine, EndLine: sp.EndLine, StartPage: text.PageOf(sp.StartLine), EndPage: text.PageOf(sp.EndLine)}
	}
	return chunks
}

// embed gives chunks their vectors, in batches.
func (l *Library) embed(ctx context.Context, doc *Document, chunks []Chunk) error {
	for i := 0; i < len(chunks); i += embedBatch {
		batch := chunks[i:min(len(chunks), i+embedBatch)]
		texts := make([]string, len(batch))
		for j, c := range batch {
			texts[j] = embedText(doc.Title, &c)
		}
		vecs, err := l.cfg.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embedding %s: %w", doc.Path, err)
		}
		if len(vecs) != len(batch) {
			return fmt.Errorf("embedding %s: the embedder returned %d vectors for %d texts", doc.Path, len(vecs), len(batch))
		}
		for j := range batch {
			batch[j].Vector = vecs[j]
		}
	}
	return nil
}

// embedText is what is embedded for a chunk: its document's title and
// its headings give it context.
func embedText(title string, c *Chunk) string {
	var b strings.Builder
	if title != "" {
		b.WriteString(title + "\n")
	}
	if c.Heading != "" && c.Heading != title {
		b.WriteString(c.Heading + "\n")
	}
	b.WriteString(c.Text)
	return b.String()
}

// readFile reads a file through root, at most limit bytes.
func readFile(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes (the limit)", limit)
	}
	return data, nil
}

// ignoreSelf writes a .gitignore into the index directory that keeps it
// out of git, as build caches do, unless it has one. Failing to is
// harmless.
func ignoreSelf(dir string) {
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, _ = f.WriteString("# wield's document index, rebuilt by wield index\n*\n")
		_ = f.Close()
	}
}
