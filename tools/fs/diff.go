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

// unified renders the changes of es as unified-diff hunks, with
// diffContext lines around each, at most maxLines lines in all; lines
// longer than maxLineChars characters are cut.
func unified(a, b []string, es []diff.Edit, maxLines int) string {
	var sb strings.Builder
	shown := 0
	i := 0
	for i < len(es) {
		for i < len(es) && es[i].Kind == ' ' {
			i++
		}
		if i == len(es) {
			break
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(es) {
			if es[end].Kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(es) && es[run].Kind == ' ' {
				run++
			}
			if run == len(es) || run-end > 2*diffContext {
				end = min(len(es), end+diffContext)
				break
			}
			end = run
		}
		hunk := es[start:end]
		aStart, bStart, aLen, bLen := hunk[0].A, hunk[0].B, 0, 0
		for _, e := range hunk {
			if e.Kind != '+' {
				aLen++
			}
			if e.Kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", aStart+1, aLen, bStart+1, bLen)
		for _, e := range hunk {
			if shown == maxLines {
				left := 0
				for _, r := range es[i:] {
					if r.Kind != ' ' {
						left++
					}
				}
				fmt.Fprintf(&sb, "[diff cut: %s not shown]\n", plural(left, "more changed line"))
				return sb.String()
			}
			line := ""
			switch e.Kind {
			case '-':
				line = a[e.A]
			default:
				line = b[e.B]
			}
			s, _ := cutLine([]byte(line), maxLineChars)
			sb.WriteByte(e.Kind)
			sb.WriteString(s)
			sb.WriteByte('\n')
			shown++
		}
		i = end
	}
	return sb.String()
}
