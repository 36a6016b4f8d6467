package fs

import (
	"fmt"
	"strings"

	"github.com/wieldhq/wield/internal/diff"
)

// Limits of the diffs the editing tools show.
const (
	diffContext  = 2  // unchanged lines around a change
	maxDiffLines = 40 // lines of diff shown
)

// unified renders hunks as in a unified diff, at most maxLines lines in
// all; lines longer than maxLineChars characters are cut. A hunk of no
// old (or new) lines is headed with the line after it, not before it as
// in diff -u.
func unified(hunks []diff.Hunk, maxLines int) string {
	var sb strings.Builder
	shown := 0
	for k, h := range hunks {
		oldStart, newStart := h.OldStart, h.NewStart
		if h.OldLines == 0 {
			oldStart++
		}
		if h.NewLines == 0 {
			newStart++
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", oldStart, h.OldLines, newStart, h.NewLines)
		for _, l := range h.Lines {
			if shown == maxLines {
				left := 0
				for _, r := range hunks[k:] {
					for _, rl := range r.Lines {
						if rl.Kind != ' ' {
							left++
						}
					}
				}
				fmt.Fprintf(&sb, "[diff cut: %s not shown]\n", plural(left, "more changed line"))
				return sb.String()
			}
			s, _ := cutLine([]byte(l.Text), maxLineChars)
			sb.WriteByte(l.Kind)
			sb.WriteString(s)
			sb.WriteByte('\n')
			shown++
		}
	}
	return sb.String()
}
