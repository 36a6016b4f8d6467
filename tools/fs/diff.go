package fs

import (
	"fmt"
	"strings"
)

// Limits of the diffs the editing tools show.
const (
	diffContext  = 2    // unchanged lines around a change
	maxDiffLines = 40   // lines of diff shown
	maxDiffEdits = 1000 // beyond this many edits, a change is shown as one block
)

// splitLines splits text into lines without their "\n"; a final line
// break does not start another line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// An edit is one line of a line diff: ' ' kept, '-' removed, '+' added.
type edit struct {
	kind byte
	a, b int // line indexes in the old and new text
}

// diffLines returns a shortest edit script from a to b (Myers' algorithm)
// after trimming their common start and end. Past maxDiffEdits edits it
// gives up and replaces the whole differing middle.
func diffLines(a, b []string) []edit {
	pre, suf := commonAffix(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
	var out []edit
	for i := range pre {
		out = append(out, edit{' ', i, i})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := range suf {
		out = append(out, edit{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return out
}

// commonAffix returns the length of the longest common prefix of two
// sequences of lengths n and m, and of their longest common suffix in what
// follows it; same reports whether element i of the first equals element j
// of the second.
func commonAffix(n, m int, same func(i, j int) bool) (pre, suf int) {
	k := min(n, m)
	for pre < k && same(pre, pre) {
		pre++
	}
	for suf < k-pre && same(n-1-suf, m-1-suf) {
		suf++
	}
	return pre, suf
}

func myers(a, b []string, off int) []edit {
	n, m := len(a), len(b)
	block := func() []edit {
		var out []edit
		for i := range n {
			out = append(out, edit{'-', off + i, off})
		}
		for j := range m {
			out = append(out, edit{'+', off + n, off + j})
		}
		return out
	}
	if n == 0 || m == 0 {
		return block()
	}
	// v[k+total] is the furthest x on diagonal k. trace[d] keeps the part
	// of v that step d read: diagonals -d-1 to d+1.
	total := n + m
	v := make([]int, 2*total+3)
	at := func(w []int, d, k int) int { return w[k+d+1] }
	var trace [][]int
	found := false
	for d := 0; d <= total && d <= maxDiffEdits && !found; d++ {
		trace = append(trace, append([]int(nil), v[total-d:total+d+3]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[total+k-1+1] < v[total+k+1+1]) {
				x = v[total+k+1+1]
			} else {
				x = v[total+k-1+1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[total+k+1] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return block()
	}
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		w := trace[d]
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && at(w, d, k-1) < at(w, d, k+1)) {
			prevK = k + 1
		}
		prevX := at(w, d, prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, edit{' ', off + x, off + y})
		}
		if d > 0 {
			if x == prevX {
				y--
				rev = append(rev, edit{'+', off + x, off + y})
			} else {
				x--
				rev = append(rev, edit{'-', off + x, off + y})
			}
		}
	}
	out := make([]edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// diffStats counts the added and removed lines of a diff.
func diffStats(es []edit) (added, removed int) {
	for _, e := range es {
		switch e.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	return added, removed
}

// unified renders the changes of es as unified-diff hunks, with
// diffContext lines around each, at most maxLines lines in all; lines
// longer than maxLineChars characters are cut.
func unified(a, b []string, es []edit, maxLines int) string {
	var sb strings.Builder
	shown := 0
	i := 0
	for i < len(es) {
		for i < len(es) && es[i].kind == ' ' {
			i++
		}
		if i == len(es) {
			break
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(es) {
			if es[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(es) && es[run].kind == ' ' {
				run++
			}
			if run == len(es) || run-end > 2*diffContext {
				end = min(len(es), end+diffContext)
				break
			}
			end = run
		}
		hunk := es[start:end]
		aStart, bStart, aLen, bLen := hunk[0].a, hunk[0].b, 0, 0
		for _, e := range hunk {
			if e.kind != '+' {
				aLen++
			}
			if e.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", aStart+1, aLen, bStart+1, bLen)
		for _, e := range hunk {
			if shown == maxLines {
				left := 0
				for _, r := range es[i:] {
					if r.kind != ' ' {
						left++
					}
				}
				fmt.Fprintf(&sb, "[diff cut: %s not shown]\n", plural(left, "more changed line"))
				return sb.String()
			}
			line := ""
			switch e.kind {
			case '-':
				line = a[e.a]
			default:
				line = b[e.b]
			}
			s, _ := cutLine([]byte(line), maxLineChars)
			sb.WriteByte(e.kind)
			sb.WriteString(s)
			sb.WriteByte('\n')
			shown++
		}
		i = end
	}
	return sb.String()
}
