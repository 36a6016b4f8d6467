// Package diff computes line diffs: the shortest edit script between two
// texts (Myers' algorithm, with a bound past which a change is one block)
// and its hunks with context, as in a unified diff. The file tools show
// their changes with it, and the CLI and the session viewer render the
// hunks of a change.
package diff

import "strings"

// maxEdits bounds the edit script: beyond this many edits, a change is
// shown as one block.
const maxEdits = 1000

// SplitLines splits text into lines without their "\n"; a final line
// break does not start another line.
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// An Edit is one line of a line diff.
type Edit struct {
	// Kind is ' ' for a kept line, '-' for a removed one, '+' for an added
	// one.
	Kind byte
	// A and B are the line's 0-based indexes in the old and new text; on
	// the side a line is not in, the position it falls at.
	A, B int
}

// Edits returns a shortest edit script from a to b (Myers' algorithm)
// after trimming their common start and end. Past 1,000 edits it gives up
// and replaces the whole differing middle.
func Edits(a, b []string) []Edit {
	pre, suf := CommonAffix(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
	var out []Edit
	for i := range pre {
		out = append(out, Edit{' ', i, i})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := range suf {
		out = append(out, Edit{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return out
}

// CommonAffix returns the length of the longest common prefix of two
// sequences of lengths n and m, and of their longest common suffix in what
// follows it; same reports whether element i of the first equals element j
// of the second.
func CommonAffix(n, m int, same func(i, j int) bool) (pre, suf int) {
	k := min(n, m)
	for pre < k && same(pre, pre) {
		pre++
	}
	for suf < k-pre && same(n-1-suf, m-1-suf) {
		suf++
	}
	return pre, suf
}

func myers(a, b []string, off int) []Edit {
	n, m := len(a), len(b)
	block := func() []Edit {
		var out []Edit
		for i := range n {
			out = append(out, Edit{'-', off + i, off})
		}
		for j := range m {
			out = append(out, Edit{'+', off + n, off + j})
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
	for d := 0; d <= total && d <= maxEdits && !found; d++ {
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
	var rev []Edit
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
			rev = append(rev, Edit{' ', off + x, off + y})
		}
		if d > 0 {
			if x == prevX {
				y--
				rev = append(rev, Edit{'+', off + x, off + y})
			} else {
				x--
				rev = append(rev, Edit{'-', off + x, off + y})
			}
		}
	}
	out := make([]Edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// A Line is one line of a [Hunk]: Kind is ' ' (kept), '-' (removed)
// or '+' (added); Old and New are its 1-based line numbers in the old and
// new text, zero on the side it is not in.
type Line struct {
	Kind     byte
	Old, New int
	Text     string
}

// A Hunk is a run of changed lines with their context, as in a unified
// diff: it covers OldLines lines from OldStart in the old text and
// NewLines from NewStart in the new (1-based; a start is the line before
// when its count is zero, as diff -u writes it).
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// Hunks returns the hunks that turn old into new, each change with up to
// context unchanged lines around it; hunks closer than twice context are
// merged. Texts are split at "\n"; a final line break starts no line.
// Equal texts give no hunks.
func Hunks(old, new string, context int) []Hunk {
	a, b := SplitLines(old), SplitLines(new)
	return HunksOf(a, b, Edits(a, b), context)
}

// HunksOf is [Hunks] for the lines a and b and their edit script es, as
// [Edits] returns it.
func HunksOf(a, b []string, es []Edit, context int) []Hunk {
	var hunks []Hunk
	for i := 0; i < len(es); {
		for i < len(es) && es[i].Kind == ' ' {
			i++
		}
		if i == len(es) {
			break
		}
		start, end := max(0, i-context), i
		for end < len(es) {
			if es[end].Kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(es) && es[run].Kind == ' ' {
				run++
			}
			if run == len(es) || run-end > 2*context {
				end = min(len(es), end+context)
				break
			}
			end = run
		}
		h := Hunk{OldStart: es[start].A + 1, NewStart: es[start].B + 1}
		for _, e := range es[start:end] {
			l := Line{Kind: e.Kind}
			switch e.Kind {
			case ' ':
				l.Old, l.New, l.Text = e.A+1, e.B+1, a[e.A]
				h.OldLines++
				h.NewLines++
			case '-':
				l.Old, l.Text = e.A+1, a[e.A]
				h.OldLines++
			case '+':
				l.New, l.Text = e.B+1, b[e.B]
				h.NewLines++
			}
			h.Lines = append(h.Lines, l)
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}

// Count counts the added and removed lines of an edit script.
func Count(es []Edit) (added, removed int) {
	for _, e := range es {
		switch e.Kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	return added, removed
}
