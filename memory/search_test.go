package memory

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSearch_BM25HandComputed checks scores worked out by hand on a
// corpus of titles only (no text, no tags), so one field counts:
//
//	a: "apple banana"        (length 2)
//	b: "apple cherry cherry" (length 3)
//	c: "date"                (length 1)
//
// N = 3, the average title length is 2, the title's weight is 2,
// k1 = 1.2, b = 0.75, idf(n) = ln(1 + (N − n + 0.5)/(n + 0.5)).
//
//	cherry: idf(1) = ln(1 + 2.5/1.5) = 0.980829
//	  b: tf~ = 2·2 / (0.25 + 0.75·3/2) = 4/1.375 = 2.909091
//	     score = 0.980829 · 2.909091/(1.2 + 2.909091) = 0.694392
//	apple: idf(2) = ln(1 + 1.5/2.5) = 0.470004
//	  a: tf~ = 2·1 / 1 = 2;          score = 0.470004 · 2/3.2        = 0.293752
//	  b: tf~ = 2·1 / 1.375 = 1.4545; score = 0.470004 · 1.4545/2.6545 = 0.257536
func TestSearch_BM25HandComputed(t *testing.T) {
	s := newStore(t, dirs(t))
	for _, n := range []Note{{ID: "a", Body: "apple banana"}, {ID: "b", Body: "apple cherry cherry"}, {ID: "c", Body: "date"}} {
		mustSave(t, s, n)
	}
	tests := []struct {
		query string
		want  map[string]float64
		order []string
	}{
		{"cherry", map[string]float64{"b": 0.694392}, []string{"project:b"}},
		{"apple", map[string]float64{"a": 0.293752, "b": 0.257536}, []string{"project:a", "project:b"}},
		{"Apple, cherry!", map[string]float64{"a": 0.293752, "b": 0.257536 + 0.694392}, []string{"project:b", "project:a"}},
		{"the apple of", map[string]float64{"a": 0.293752, "b": 0.257536}, []string{"project:a", "project:b"}}, // stopwords do not count
		{"elderberry", map[string]float64{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits, err := s.Search(t.Context(), Query{Text: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.order, ids(hits)); diff != "" {
				t.Errorf("Search(%q) order (-want +got):\n%s", tt.query, diff)
			}
			for _, h := range hits {
				if want := tt.want[h.Note.ID]; math.Abs(h.Score-want) > 1e-6 {
					t.Errorf("Search(%q): %s scores %.6f, want %.6f", tt.query, h.Note.ID, h.Score, want)
				}
			}
		})
	}
}

// TestSearch_Ranking checks the order on a small corpus of realistic
// notes: a word in the title or the tags counts twice a word in the text,
// rarer words weigh more, and the filters keep what they should.
func TestSearch_Ranking(t *testing.T) {
	cfg := dirs(t)
	s := newStore(t, cfg)
	notes := []Note{
		{ID: "toolchain", Tags: []string{"build"}, Body: "Go toolchain\nThe module builds with Go 1.26; go.mod pins the toolchain."},
		{ID: "race", Tags: []string{"testing"}, Body: "Run the tests with -race\nEvery package's tests must pass under the race detector before a commit."},
		{ID: "release", Tags: []string{"release", "build"}, Body: "Releases\nA release is tagged by scripts/release.sh after the tests pass."},
		{ID: "style", Tags: []string{"style"}, Body: "Errors\nError messages are lower case, with no final period, and wrap with %w."},
		{ID: "editor", Scope: ScopeUser, Tags: []string{"preferences"}, Body: "The user prefers tabs in Go code and short commit messages."},
	}
	for _, n := range notes {
		mustSave(t, s, n)
	}
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		// "tests" is in race's title and text, and in release's text.
		{"title beats text", Query{Text: "tests"}, []string{"project:race", "project:release"}},
		// build is a tag of both (toolchain's text says "builds": no
		// stemming); toolchain has no other tag, so its tag field is
		// shorter and the match weighs more.
		{"tags count, shorter fields more", Query{Text: "build"}, []string{"project:toolchain", "project:release"}},
		{"rare word first", Query{Text: "race commit"}, []string{"project:race", "user:editor"}},
		{"tag filter", Query{Text: "tests", Tags: []string{"RELEASE"}}, []string{"project:release"}},
		{"two tags must both match", Query{Tags: []string{"build", "release"}}, []string{"project:release"}},
		{"scope filter", Query{Text: "commit", Scope: ScopeUser}, []string{"user:editor"}},
		{"empty query lists newest first", Query{Limit: 3}, []string{"user:editor", "project:style", "project:release"}},
		{"since", Query{Since: time.Date(2026, 5, 1, 10, 4, 0, 0, time.UTC)}, []string{"user:editor", "project:style"}},
		{"until", Query{Until: time.Date(2026, 5, 1, 10, 2, 0, 0, time.UTC)}, []string{"project:toolchain"}},
		{"limit", Query{Text: "go tests build commit", Limit: 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if len(hits) != tt.q.Limit {
					t.Errorf("Search(%+v) = %d hits, want %d", tt.q, len(hits), tt.q.Limit)
				}
				return
			}
			if diff := cmp.Diff(tt.want, ids(hits)); diff != "" {
				t.Errorf("Search(%+v) (-want +got):\n%s", tt.q, diff)
			}
		})
	}
}
