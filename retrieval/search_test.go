package retrieval

import (
	"math"
	"testing"
)

func TestFuse(t *testing.T) {
	h := func(path string, n int) Hit { return Hit{Chunk: Chunk{Path: path, N: n}} }
	lexical := []Hit{h("a", 1), h("b", 1), h("c", 1)}
	semantic := []Hit{h("c", 1), h("a", 1), h("d", 1)}
	got := Fuse(lexical, semantic)
	// a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62; d: 1/63.
	want := []struct {
		id    string
		score float64
	}{
		{"a#1", 1.0/61 + 1.0/62},
		{"c#1", 1.0/63 + 1.0/61},
		{"b#1", 1.0 / 62},
		{"d#1", 1.0 / 63},
	}
	if len(got) != len(want) {
		t.Fatalf("Fuse returned %d hits, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].ID() != w.id || math.Abs(got[i].Score-w.score) > 1e-12 {
			t.Errorf("Fuse[%d] = %s %.6f, want %s %.6f", i, got[i].ID(), got[i].Score, w.id, w.score)
		}
	}
}
