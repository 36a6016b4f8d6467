package fs

import (
	"strings"
	"testing"
)

func TestDiffLines(t *testing.T) {
	tests := []struct {
		a, b       string
		added, del int
	}{
		{"", "", 0, 0},
		{"a\nb\nc\n", "a\nb\nc\n", 0, 0},
		{"a\nb\nc\n", "a\nc\n", 0, 1},
		{"a\nc\n", "a\nb\nc\n", 1, 0},
		{"a\nb\nc\nd\ne\n", "x\nb\nc\nd\ny\n", 2, 2},
		{"a\nb\na\nb\n", "b\na\nb\na\n", 1, 1},
		{"", "a\nb\n", 2, 0},
	}
	for _, tt := range tests {
		a, b := splitLines(tt.a), splitLines(tt.b)
		es := diffLines(a, b)
		checkScript(t, a, b, es)
		if added, del := diffStats(es); added != tt.added || del != tt.del {
			t.Errorf("diff(%q, %q): +%d -%d, want +%d -%d", tt.a, tt.b, added, del, tt.added, tt.del)
		}
	}
}

// checkScript checks that es turns a into b.
func checkScript(t *testing.T, a, b []string, es []edit) {
	t.Helper()
	var gotA, gotB []string
	for _, e := range es {
		switch e.kind {
		case ' ':
			if a[e.a] != b[e.b] {
				t.Fatalf("kept line %d/%d differs: %q vs %q", e.a, e.b, a[e.a], b[e.b])
			}
			gotA, gotB = append(gotA, a[e.a]), append(gotB, b[e.b])
		case '-':
			gotA = append(gotA, a[e.a])
		case '+':
			gotB = append(gotB, b[e.b])
		}
	}
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || strings.Join(gotB, "\n") != strings.Join(b, "\n") || len(gotA) != len(a) || len(gotB) != len(b) {
		t.Fatalf("script does not turn %q into %q", a, b)
	}
}

// FuzzDiff checks that every diff is a correct edit script and that
// rendering it does not panic.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("x\n\n\ny\n", "\ny\nx\n")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := splitLines(x), splitLines(y)
		es := diffLines(a, b)
		checkScript(t, a, b, es)
		unified(a, b, es, maxDiffLines)
	})
}

func TestDiffGivesUp(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, "a"+strings.Repeat("x", i%7))
		b = append(b, "b"+strings.Repeat("y", i%5))
	}
	es := diffLines(a, b)
	checkScript(t, a, b, es)
	if added, del := diffStats(es); added != 3000 || del != 3000 {
		t.Errorf("+%d -%d, want the whole block replaced", added, del)
	}
}

func TestCommonAffix(t *testing.T) {
	tests := []struct {
		a, b     string
		pre, suf int
	}{
		{"", "", 0, 0},
		{"abc", "abc", 3, 0},
		{"abc", "", 0, 0},
		{"abXc", "abYc", 2, 1},
		{"xab", "yab", 0, 2},
		// The suffix is looked for only after the prefix: "aa" and "a"
		// share one byte, not two.
		{"aa", "a", 1, 0},
		{"aba", "a", 1, 0},
		{"abcab", "ab", 2, 0},
	}
	for _, tt := range tests {
		pre, suf := commonAffix(len(tt.a), len(tt.b), func(i, j int) bool { return tt.a[i] == tt.b[j] })
		if pre != tt.pre || suf != tt.suf {
			t.Errorf("commonAffix(%q, %q) = %d, %d; want %d, %d", tt.a, tt.b, pre, suf, tt.pre, tt.suf)
		}
		if pre+suf > min(len(tt.a), len(tt.b)) {
			t.Errorf("commonAffix(%q, %q): prefix and suffix overlap", tt.a, tt.b)
		}
	}
}
