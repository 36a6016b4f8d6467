package fs

import (
	"strings"
	"testing"

	"github.com/wieldhq/wield/internal/diff"
)

// FuzzUnified checks that rendering any change shows at most the lines it
// is allowed, and does not panic.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("x\n\n\ny\n", "\ny\nx\n")
	f.Fuzz(func(t *testing.T, x, y string) {
		out := unified(diff.Hunks(x, y, diffContext), maxDiffLines)
		shown := 0
		for l := range strings.Lines(out) {
			if l[0] == ' ' || l[0] == '-' || l[0] == '+' {
				shown++
			}
		}
		if shown > maxDiffLines {
			t.Fatalf("unified showed %d lines, more than %d:\n%s", shown, maxDiffLines, out)
		}
	})
}
