package memory

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchNotes is the corpus size the latency target is set for.
const benchNotes = 10_000

// benchCorpus writes n generated notes into a new project directory and
// returns the directory and queries over the same vocabulary. Words follow
// a Zipf distribution over 5,000 words, as words in text do; notes have
// 8 to 60 words and up to three of 40 tags.
func benchCorpus(b *testing.B, n int) (Config, []string) {
	b.Helper()
	cfg := Config{ProjectDir: filepath.Join(b.TempDir(), "memory")}
	if err := os.MkdirAll(cfg.ProjectDir, 0o755); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.1, 2, 4999)
	word := func() string { return fmt.Sprintf("w%d", zipf.Uint64()) }
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		var body strings.Builder
		for j := range 8 + r.IntN(53) {
			if j == 6 {
				body.WriteString("\n")
			}
			body.WriteString(word() + " ")
		}
		var tags []string
		for range r.IntN(4) {
			tags = append(tags, fmt.Sprintf("tag%d", r.IntN(40)))
		}
		note := Note{ID: fmt.Sprintf("n%05d", i), Scope: ScopeProject, Tags: tags, Created: at, Modified: at.Add(time.Duration(i) * time.Minute), Body: body.String()}
		if err := os.WriteFile(filepath.Join(cfg.ProjectDir, note.ID+".md"), note.Markdown(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]string, 200)
	for i := range queries {
		var q []string
		for range 1 + r.IntN(4) {
			q = append(q, word())
		}
		queries[i] = strings.Join(q, " ")
	}
	return cfg, queries
}

// BenchmarkSearch measures one search among 10,000 notes (queries of one
// to four words) and reports the 50th and 99th percentiles of the time
// per search; bench/memory.sh prints them.
func BenchmarkSearch(b *testing.B) {
	cfg, queries := benchCorpus(b, benchNotes)
	s := New(cfg)
	if err := s.Reload(); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := Query{Text: queries[i%len(queries)]}
		if i%4 == 3 {
			q.Tags = []string{"tag7"}
		}
		start := time.Now()
		if _, err := s.Search(b.Context(), q); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		i++
	}
	slices.Sort(times)
	pct := func(p float64) float64 { return float64(times[int(p*float64(len(times)-1))].Nanoseconds()) }
	b.ReportMetric(pct(0.50), "p50-ns")
	b.ReportMetric(pct(0.99), "p99-ns")
}

// BenchmarkLoad measures reading and indexing 10,000 notes, what the
// first use of a store costs.
func BenchmarkLoad(b *testing.B) {
	cfg, _ := benchCorpus(b, benchNotes)
	b.ReportAllocs()
	for b.Loop() {
		if err := New(cfg).Reload(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSave measures saving one note into a store of 10,000, index
// file included.
func BenchmarkSave(b *testing.B) {
	cfg, _ := benchCorpus(b, benchNotes)
	s := New(cfg)
	if err := s.Reload(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Save(Note{ID: "bench", Body: fmt.Sprintf("benchmark note %d", i)}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
