package retrieval

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// BM25 parameters of the local store, as in Lucene.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// localVersion is the version of the local store's file format; a file of
// another version is rebuilt from the documents.
const localVersion = 1

// A localStore is the [Store] that [OpenLocal] returns.
type localStore struct {
	file string

	mu    sync.Mutex
	docs  map[string]*localDoc
	terms map[string]uint32 // term → id
	dirty bool              // changed since loaded or flushed
	stamp fileStamp         // of the file when loaded or flushed

	// The search index, rebuilt on the first search after a change.
	built    bool
	flat     []*localChunk
	postings [][]posting // by term id
	avgLen   float64
	// vecs holds the chunks' unit vectors one after another, dim
	// floats each (zeros for a chunk without one), for a scan that
	// reads memory in order.
	vecs []float32
	dim  int
}

// A localDoc is a document with its chunks.
type localDoc struct {
	Doc    Document
	Chunks []*localChunk
}

// A localChunk is a chunk with its terms (ids, ascending) and their
// counts, its length in terms and its unit vector.
type localChunk struct {
	Chunk  Chunk
	Terms  []uint32
	Counts []uint16
	Len    int
	Vector []float32
}

type posting struct {
	chunk uint32 // index into flat
	count uint16
}

// fileStamp tells whether a file changed.
type fileStamp struct {
	size    int64
	modTime time.Time
}

// localFile is what the store's file holds, in gob.
type localFile struct {
	Version int
	Terms   []string
	Docs    []*localDoc
}

// OpenLocal opens the local store in the file at path, creating neither
// the file nor its directory until the first [Store.Flush]. It keeps the
// whole index in memory: BM25 over the chunks' words (with the document
// title and headings), and the chunks' unit vectors, searched by brute
// force. It notices when another process rewrote the file and reads it
// again before the next call. Writes replace the file atomically (a
// temporary file renamed over it), so a reader sees the old index or the
// new one; two processes that write at once should take turns, as
// [Library.Index] does with a lock file.
func OpenLocal(path string) (Store, error) {
	s := &localStore{file: path, docs: map[string]*localDoc{}, terms: map[string]uint32{}}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// stampOf returns the stamp of the file, zero when it does not exist.
func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.Size(), fi.ModTime()}, nil
}

// load reads the file into s.
func (s *localStore) load() error {
	stamp, err := stampOf(s.file)
	if err != nil {
		return fmt.Errorf("index %s: %w", s.file, err)
	}
	s.docs, s.terms, s.built, s.dirty = map[string]*localDoc{}, map[string]uint32{}, false, false
	s.stamp = stamp
	if stamp == (fileStamp{}) {
		return nil
	}
	f, err := os.Open(s.file)
	if err != nil {
		return fmt.Errorf("index %s: %w", s.file, err)
	}
	defer f.Close()
	var lf localFile
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<16)).Decode(&lf); err != nil {
		return fmt.Errorf("index %s is damaged (%w): remove it and index the documents again", s.file, err)
	}
	if lf.Version != localVersion {
		return nil // an index of another version is rebuilt
	}
	for i, t := range lf.Terms {
		s.terms[t] = uint32(i)
	}
	for _, d := range lf.Docs {
		for _, c := range d.Chunks {
			for _, id := range c.Terms {
				if int(id) >= len(lf.Terms) {
					return fmt.Errorf("index %s is damaged (term %d of %d): remove it and index the documents again", s.file, id, len(lf.Terms))
				}
			}
		}
		s.docs[d.Doc.Path] = d
	}
	return nil
}

// refresh reads the file again if another process changed it and this
// store has no changes of its own. The caller holds s.mu.
func (s *localStore) refresh() error {
	if s.dirty {
		return nil
	}
	stamp, err := stampOf(s.file)
	if err != nil {
		return fmt.Errorf("index %s: %w", s.file, err)
	}
	if stamp == s.stamp {
		return nil
	}
	return s.load()
}

func (s *localStore) Documents(ctx context.Context) ([]Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	docs := make([]Document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d.Doc)
	}
	slices.SortFunc(docs, func(a, b Document) int { return strings.Compare(a.Path, b.Path) })
	return docs, nil
}

func (s *localStore) Chunks(ctx context.Context, path string) ([]Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	d := s.docs[path]
	if d == nil {
		return nil, nil
	}
	out := make([]Chunk, len(d.Chunks))
	for i, c := range d.Chunks {
		out[i] = c.Chunk
		out[i].Vector = slices.Clone(c.Vector)
	}
	return out, nil
}

func (s *localStore) Put(ctx context.Context, doc Document, chunks []Chunk) error {
	// Words are counted before the lock is taken, and given ids under it.
	lcs := make([]*localChunk, len(chunks))
	counts := make([]map[string]int, len(chunks))
	for i, c := range chunks {
		m := map[string]int{}
		n := 0
		count := func(t string) { m[t]++; n++ }
		eachTerm(doc.Title, count)
		eachTerm(c.Heading, count)
		eachTerm(c.Text, count)
		lc := &localChunk{Chunk: c, Len: n, Vector: unit(c.Vector)}
		lc.Chunk.Vector = nil
		lcs[i], counts[i] = lc, m
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, lc := range lcs {
		for t, k := range counts[i] {
			id, ok := s.terms[t]
			if !ok {
				id = uint32(len(s.terms))
				s.terms[t] = id
			}
			lc.Terms = append(lc.Terms, id)
			lc.Counts = append(lc.Counts, uint16(min(k, math.MaxUint16)))
		}
		sortTerms(lc)
	}
	doc.Chunks = len(chunks)
	s.docs[doc.Path] = &localDoc{Doc: doc, Chunks: lcs}
	s.dirty, s.built = true, false
	return nil
}

// sortTerms sorts a chunk's terms by id, keeping their counts beside them.
func sortTerms(c *localChunk) {
	sort.Sort(termsByID{c})
}

type termsByID struct{ c *localChunk }

func (t termsByID) Len() int           { return len(t.c.Terms) }
func (t termsByID) Less(i, j int) bool { return t.c.Terms[i] < t.c.Terms[j] }
func (t termsByID) Swap(i, j int) {
	t.c.Terms[i], t.c.Terms[j] = t.c.Terms[j], t.c.Terms[i]
	t.c.Counts[i], t.c.Counts[j] = t.c.Counts[j], t.c.Counts[i]
}

// dot returns the dot product of a and b, which have the same length.
func dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// unit returns v scaled to length 1, or nil for an empty or zero v.
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return nil
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

func (s *localStore) Delete(ctx context.Context, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.docs[path]; ok {
		delete(s.docs, path)
		s.dirty, s.built = true, false
	}
	return nil
}

// build makes the search index. The caller holds s.mu.
func (s *localStore) build() {
	if s.built {
		return
	}
	paths := make([]string, 0, len(s.docs))
	for p := range s.docs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	s.flat = s.flat[:0]
	// Postings are sized first: appending to them would copy them as
	// they grow.
	df := make([]int, len(s.terms))
	for _, d := range s.docs {
		for _, c := range d.Chunks {
			for _, t := range c.Terms {
				df[t]++
			}
		}
	}
	s.postings = make([][]posting, len(s.terms))
	for t, n := range df {
		s.postings[t] = make([]posting, 0, n)
	}
	total := 0
	for _, p := range paths {
		for _, c := range s.docs[p].Chunks {
			i := uint32(len(s.flat))
			s.flat = append(s.flat, c)
			total += c.Len
			for j, t := range c.Terms {
				s.postings[t] = append(s.postings[t], posting{i, c.Counts[j]})
			}
		}
	}
	s.avgLen = float64(total) / float64(max(1, len(s.flat)))
	s.dim = 0
	for _, c := range s.flat {
		if len(c.Vector) > 0 {
			s.dim = len(c.Vector)
			break
		}
	}
	s.vecs = nil
	if s.dim > 0 {
		s.vecs = make([]float32, len(s.flat)*s.dim)
		for i, c := range s.flat {
			if len(c.Vector) == s.dim {
				copy(s.vecs[i*s.dim:], c.Vector)
			}
		}
	}
	s.built = true
}

func (s *localStore) SearchText(ctx context.Context, query string, k int, filter Filter) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	s.build()
	qterms := map[uint32]int{}
	eachTerm(query, func(t string) {
		if id, ok := s.terms[t]; ok {
			qterms[id]++
		}
	})
	if len(qterms) == 0 || len(s.flat) == 0 {
		return nil, nil
	}
	scores := make([]float64, len(s.flat))
	n := float64(len(s.flat))
	for id, qn := range qterms {
		ps := s.postings[id]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.count)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(s.flat[p.chunk].Len)/s.avgLen)
			scores[p.chunk] += float64(qn) * idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	return s.top(scores, k, filter), nil
}

func (s *localStore) SearchVector(ctx context.Context, vec []float32, k int, filter Filter) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return nil, err
	}
	s.build()
	q := unit(vec)
	if q == nil || len(q) != s.dim {
		return nil, nil
	}
	scores := make([]float64, len(s.flat))
	for i := range s.flat {
		v := s.vecs[i*s.dim : (i+1)*s.dim]
		if len(s.flat[i].Vector) != s.dim {
			continue
		}
		scores[i] = float64(dot(v, q))
		if scores[i] == 0 {
			scores[i] = math.SmallestNonzeroFloat64 // still a candidate
		}
	}
	return s.top(scores, k, filter), nil
}

// top returns the k chunks with the highest non-zero scores that filter
// keeps, best first; ties go to the earlier chunk. It keeps the best k in
// a heap rather than sorting every scored chunk.
func (s *localStore) top(scores []float64, k int, filter Filter) []Hit {
	// better reports whether chunk i ranks above chunk j.
	better := func(i, j int) bool {
		return scores[i] > scores[j] || scores[i] == scores[j] && i < j
	}
	// h is a min-heap of chunk indexes: the worst of the best k on top.
	var h []int
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(h) && better(h[m], h[l]) {
				m = l
			}
			if r := l + 1; r < len(h) && better(h[m], h[r]) {
				m = r
			}
			if m == i {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i, sc := range scores {
		if sc == 0 || filter.Paths != "" && !filter.Match(s.flat[i].Chunk.Path) {
			continue
		}
		if len(h) < k {
			h = append(h, i)
			for c := len(h) - 1; c > 0; {
				p := (c - 1) / 2
				if !better(h[p], h[c]) {
					break
				}
				h[p], h[c] = h[c], h[p]
				c = p
			}
			continue
		}
		if better(i, h[0]) {
			h[0] = i
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	hits := make([]Hit, len(h))
	for j, i := range h {
		hits[j] = Hit{Chunk: s.flat[i].Chunk, Score: scores[i]}
	}
	return hits
}

func (s *localStore) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return nil
	}
	// Only the terms still used are written, renumbered.
	lf := localFile{Version: localVersion}
	renum := map[uint32]uint32{}
	byID := make([]string, len(s.terms))
	for t, id := range s.terms {
		byID[id] = t
	}
	paths := make([]string, 0, len(s.docs))
	for p := range s.docs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		d := s.docs[p]
		for _, c := range d.Chunks {
			for j, id := range c.Terms {
				nid, ok := renum[id]
				if !ok {
					nid = uint32(len(lf.Terms))
					renum[id] = nid
					lf.Terms = append(lf.Terms, byID[id])
				}
				c.Terms[j] = nid
			}
			sortTerms(c)
		}
		lf.Docs = append(lf.Docs, d)
	}
	s.terms = make(map[string]uint32, len(lf.Terms))
	for i, t := range lf.Terms {
		s.terms[t] = uint32(i)
	}
	s.built = false
	if err := writeAtomic(s.file, func(w *bufio.Writer) error { return gob.NewEncoder(w).Encode(&lf) }); err != nil {
		return fmt.Errorf("index %s: %w", s.file, err)
	}
	stamp, err := stampOf(s.file)
	if err != nil {
		return fmt.Errorf("index %s: %w", s.file, err)
	}
	s.stamp, s.dirty = stamp, false
	return nil
}

// writeAtomic writes a file through a synced temporary file renamed over
// it, creating its directory.
func writeAtomic(path string, write func(*bufio.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing to remove
	w := bufio.NewWriterSize(f, 1<<16)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func (s *localStore) Close() error { return nil }
