package retrieval

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchChunks is the size of the benchmark index.
const benchChunks = 10_000

// benchText returns benchChunks pieces of 1,500 bytes of real text: the
// Go source files of GOROOT, in order, cut every 1,500 bytes. (The same
// pieces measured bleve for the package documentation.)
func benchText(b *testing.B) []string {
	b.Helper()
	var pieces []string
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if len(pieces) >= benchChunks || err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for s := strings.ToValidUTF8(string(data), "?"); s != "" && len(pieces) < benchChunks; {
			n := min(len(s), 1500)
			pieces = append(pieces, s[:n])
			s = s[n:]
		}
		return nil
	})
	if len(pieces) < benchChunks {
		b.Skipf("GOROOT has text for %d chunks, want %d", len(pieces), benchChunks)
	}
	return pieces
}

// funcEmbedder adapts a function to an Embedder.
type funcEmbedder func(ctx context.Context, texts []string) ([][]float32, error)

func (f funcEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

// benchDim is the length of the benchmark's vectors, as small embedding
// models have.
const benchDim = 768

var trigrams = funcEmbedder(func(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = trigramVector(t, benchDim)
	}
	return out, nil
})

// fillStore puts the pieces into a local store at path, ten chunks a
// document, with vectors when vectors is set.
func fillStore(b *testing.B, path string, pieces []string, vectors bool) Store {
	b.Helper()
	st, err := OpenLocal(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	for d := 0; d < len(pieces); d += 10 {
		doc := Document{Path: fmt.Sprintf("doc%05d.txt", d/10), Kind: KindText}
		var chunks []Chunk
		for i, p := range pieces[d:min(len(pieces), d+10)] {
			c := Chunk{Path: doc.Path, N: i + 1, Text: p, StartLine: 1, EndLine: 1}
			if vectors {
				c.Vector = trigramVector(p, benchDim)
			}
			chunks = append(chunks, c)
		}
		if err := st.Put(ctx, doc, chunks); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkStorePut stores 10,000 chunks (BM25 only) and writes the
// index file; it reports chunks/s and the file's size.
func BenchmarkStorePut(b *testing.B) {
	pieces := benchText(b)
	dir := b.TempDir()
	var size int64
	for b.Loop() {
		path := filepath.Join(dir, "bench.idx")
		os.Remove(path)
		fillStore(b, path, pieces, false)
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = fi.Size()
	}
	b.ReportMetric(float64(benchChunks*b.N)/b.Elapsed().Seconds(), "chunks/s")
	b.ReportMetric(float64(size), "index-bytes")
	raw := 0
	for _, p := range pieces {
		raw += len(p)
	}
	b.ReportMetric(float64(raw), "text-bytes")
}

// BenchmarkStoreOpen measures reading the 10,000-chunk index file and
// building the search index from it: the first search of a process.
func BenchmarkStoreOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.idx")
	fillStore(b, path, benchText(b), false)
	for b.Loop() {
		st, err := OpenLocal(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.SearchText(b.Context(), "func", 1, Filter{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLibraryIndex indexes documents from files (1,000 text files
// of 10 pieces each: 10,000 pieces, cut into chunks with overlap) through
// the whole pipeline (walk, read, hash, extract, chunk, store, write);
// with an embedder the vectors are computed in process. It reports
// documents/s.
func BenchmarkLibraryIndex(b *testing.B) {
	pieces := benchText(b)
	files := map[string]string{}
	for d := 0; d < len(pieces); d += 10 {
		files[fmt.Sprintf("docs/doc%05d.txt", d/10)] = strings.Join(pieces[d:min(len(pieces), d+10)], "\n")
	}
	for _, tc := range []struct {
		name     string
		embedder Embedder
	}{{"bm25", nil}, {"hybrid", trigrams}} {
		b.Run(tc.name, func(b *testing.B) {
			root, lib := openWorkspace(b, files, Config{Embedder: tc.embedder})
			chunks := 0
			for b.Loop() {
				os.RemoveAll(lib.cfg.Dir)
				lib.Close()
				rep, err := lib.Index(b.Context(), root, "bench", []string{"docs"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				chunks = rep.Chunks
			}
			b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(chunks), "chunks")
		})
	}
}

// BenchmarkSearch searches the 10,000-chunk index with queries of the
// first three words of a random chunk, as in the bleve comparison, by
// BM25 alone and hybrid (BM25 and 768-dimensional vectors searched by
// brute force, fused by reciprocal rank; the query vector is computed in
// process). It reports the 50th and 99th percentiles per search.
func BenchmarkSearch(b *testing.B) {
	pieces := benchText(b)
	for _, tc := range []struct {
		name     string
		embedder Embedder
	}{{"bm25", nil}, {"hybrid", trigrams}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			st := fillStore(b, filepath.Join(dir, "bench.idx"), pieces, tc.embedder != nil)
			lib, err := New(Config{Dir: dir, Embedder: tc.embedder, OpenStore: func(string) (Store, error) { return st, nil }})
			if err != nil {
				b.Fatal(err)
			}
			// The first search builds the in-memory index
			// (BenchmarkStoreOpen measures that); it is not timed.
			if _, err := lib.Search(b.Context(), Query{Text: "func", Collection: "bench"}); err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewSource(1))
			var times []time.Duration
			for b.Loop() {
				words := strings.Fields(pieces[r.Intn(len(pieces))])
				q := strings.Join(words[:min(3, len(words))], " ")
				start := time.Now()
				if _, err := lib.Search(b.Context(), Query{Text: q + " x", Collection: "bench", K: 10}); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			pct := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))].Nanoseconds()) }
			b.ReportMetric(pct(0.50), "p50-ns")
			b.ReportMetric(pct(0.99), "p99-ns")
		})
	}
}
