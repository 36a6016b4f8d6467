package diff_test

import (
	"fmt"

	"github.com/wieldhq/wield/internal/diff"
)

// Hunks gives the hunks an approval shows before an edit runs, with both
// line numbers of every line.
func ExampleHunks() {
	for _, h := range diff.Hunks("a\nb\nc\n", "a\nB\nc\n", 1) {
		fmt.Printf("@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		for _, l := range h.Lines {
			fmt.Printf("%2d %2d %c%s\n", l.Old, l.New, l.Kind, l.Text)
		}
	}
	// Output:
	// @@ -1,3 +1,3 @@
	//  1  1  a
	//  2  0 -b
	//  0  2 +B
	//  3  3  c
}
