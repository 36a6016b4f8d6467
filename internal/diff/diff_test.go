package diff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
		a, b := SplitLines(tt.a), SplitLines(tt.b)
		es := Edits(a, b)
		checkScript(t, a, b, es)
		if added, del := Count(es); added != tt.added || del != tt.del {
			t.Errorf("diff(%q, %q): +%d -%d, want +%d -%d", tt.a, tt.b, added, del, tt.added, tt.del)
		}
	}
}

// checkScript checks that es turns a into b.
func checkScript(t *testing.T, a, b []string, es []Edit) {
	t.Helper()
	var gotA, gotB []string
	for _, e := range es {
		switch e.Kind {
		case ' ':
			if a[e.A] != b[e.B] {
				t.Fatalf("kept line %d/%d differs: %q vs %q", e.A, e.B, a[e.A], b[e.B])
			}
			gotA, gotB = append(gotA, a[e.A]), append(gotB, b[e.B])
		case '-':
			gotA = append(gotA, a[e.A])
		case '+':
			gotB = append(gotB, b[e.B])
		}
	}
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || strings.Join(gotB, "\n") != strings.Join(b, "\n") || len(gotA) != len(a) || len(gotB) != len(b) {
		t.Fatalf("script does not turn %q into %q", a, b)
	}
}

// FuzzDiff checks that every diff is a correct edit script and that its
// hunks, applied to the old text, give the new one.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("x\n\n\ny\n", "\ny\nx\n")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := SplitLines(x), SplitLines(y)
		es := Edits(a, b)
		checkScript(t, a, b, es)
		if got := apply(a, Hunks(x, y, 2)); !slices.Equal(got, b) {
			t.Fatalf("the hunks turn %q into %q, want %q", a, got, b)
		}
	})
}

func TestDiffGivesUp(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, "a"+strings.Repeat("x", i%7))
		b = append(b, "b"+strings.Repeat("y", i%5))
	}
	es := Edits(a, b)
	checkScript(t, a, b, es)
	if added, del := Count(es); added != 3000 || del != 3000 {
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
		pre, suf := CommonAffix(len(tt.a), len(tt.b), func(i, j int) bool { return tt.a[i] == tt.b[j] })
		if pre != tt.pre || suf != tt.suf {
			t.Errorf("CommonAffix(%q, %q) = %d, %d; want %d, %d", tt.a, tt.b, pre, suf, tt.pre, tt.suf)
		}
		if pre+suf > min(len(tt.a), len(tt.b)) {
			t.Errorf("CommonAffix(%q, %q): prefix and suffix overlap", tt.a, tt.b)
		}
	}
}

// unifiedText writes hunks in diff -u's form, without file headers.
func unifiedText(hunks []Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		for _, l := range h.Lines {
			fmt.Fprintf(&b, "%c%s\n", l.Kind, l.Text)
		}
	}
	return b.String()
}

// TestDiffMatchesDiffU: on a change diff -u has one answer for, the
// hunks are diff -u's, line for line (diff writes ",1" counts the short
// way, so both are compared in the long form).
func TestDiffMatchesDiffU(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Fatal("diff is needed as the oracle")
	}
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old"), []byte(old), 0o644)
	os.WriteFile(filepath.Join(dir, "new"), []byte(new), 0o644)
	out, _ := exec.Command("diff", "-U2", filepath.Join(dir, "old"), filepath.Join(dir, "new")).Output()
	lines := strings.SplitAfter(string(out), "\n")[2:] // drop the file headers
	want := strings.Join(lines, "")
	if diff := cmp.Diff(want, unifiedText(Hunks(old, new, 2))); diff != "" {
		t.Errorf("Hunks differs from diff -U2 (-want +got):\n%s", diff)
	}
}

// TestDiffPatchesBack: patch(1), given Hunks', turns the old text
// into the new one, for random edits of random texts.
func TestDiffPatchesBack(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Fatal("patch is needed as the oracle")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "  d", "\te", ""}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))] + "\n")
		}
		return b.String()
	}
	for i := range 40 {
		old, new := text(rng.IntN(30)), text(rng.IntN(30))
		if old == new {
			continue
		}
		dir := t.TempDir()
		f := filepath.Join(dir, "f")
		os.WriteFile(f, []byte(old), 0o644)
		p := "--- f\n+++ f\n" + unifiedText(Hunks(old, new, 3))
		cmd := exec.Command("patch", "-s", "-p0", f)
		cmd.Stdin = strings.NewReader(p)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch: %v\n%s\npatch:\n%s", i, err, out, p)
		}
		got, _ := os.ReadFile(f)
		if string(got) != new {
			t.Fatalf("case %d: patched = %q, want %q", i, got, new)
		}
	}
}

// apply applies hunks to the lines a.
func apply(a []string, hunks []Hunk) []string {
	var out []string
	i := 0
	for _, h := range hunks {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		out = append(out, a[i:start]...)
		i = start
		for _, l := range h.Lines {
			switch l.Kind {
			case ' ':
				out = append(out, a[i])
				i++
			case '-':
				i++
			case '+':
				out = append(out, l.Text)
			}
		}
	}
	return append(out, a[i:]...)
}
