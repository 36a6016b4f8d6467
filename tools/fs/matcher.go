package fs

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// maxAlternatives bounds the literals of a prefilter: beyond it, scanning
// for each costs more than running the regexp.
const maxAlternatives = 8

// A lineMatcher finds the lines of a text that match a pattern, the way
// grep does: a line matches if the pattern matches somewhere in it, and a
// match never spans lines. It is safe for concurrent use; each scan keeps
// its state on the stack.
//
// It is fast because it rarely runs the regexp: a literal that every match
// must contain ("Marshal" in `func \w+Marshal\w*\(`) is found with
// bytes.Index, which uses SIMD, and only the lines that contain it are
// checked with the regexp. Case-insensitive literals are found by scanning
// for both cases of their rarest byte. Patterns that are plain literals
// need no regexp at all. Patterns without a required literal run the
// regexp over the whole text, with newlines removed from what it can match.
type lineMatcher struct {
	line  *regexp.Regexp // checks a candidate line; nil when a literal hit is a match
	whole *regexp.Regexp // finds matches in a whole text when there are no literals
	lits  []literal      // any matching line contains one of these
}

// A literal is a string every match (or one alternative of it) contains.
type literal struct {
	s    []byte // lower-case if fold
	fold bool   // ASCII case-insensitive
	rare int    // index in s of the byte to scan for
	lo   byte   // s[rare] in lower case
	up   byte   // s[rare] in upper case
}

// errNewline is returned for patterns that can only match across lines.
var errNewline = errors.New(`the pattern contains a newline, but matches are searched line by line: search for one line at a time`)

// compileMatcher compiles pattern (RE2 syntax, or a literal string if
// fixed is set).
func compileMatcher(pattern string, fixed, caseSensitive bool) (*lineMatcher, error) {
	if fixed {
		if strings.Contains(pattern, "\n") {
			return nil, errNewline
		}
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl
	if !caseSensitive {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	re = re.Simplify()
	prog := pattern
	if !caseSensitive {
		prog = "(?i)" + pattern
	}
	line, err := regexp.Compile(prog)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: line}
	if lit, ok := wholeLiteral(re); ok {
		if strings.Contains(string(lit.s), "\n") {
			return nil, errNewline
		}
		m.lits = []literal{lit}
		m.line = nil
		return m, nil
	}
	if lits := required(re); lits != nil {
		m.lits = lits
		return m, nil
	}
	whole, err := regexp.Compile(singleLine(re).String())
	if err != nil {
		return nil, fmt.Errorf("compiling the line form of %q: %w", pattern, err)
	}
	m.whole = whole
	return m, nil
}

// wholeLiteral reports whether re is a plain literal that the prefilter can
// find exactly, without the regexp.
func wholeLiteral(re *syntax.Regexp) (literal, bool) {
	if re.Op != syntax.OpLiteral {
		return literal{}, false
	}
	fold := re.Flags&syntax.FoldCase != 0
	s := string(re.Rune)
	if fold && !foldable(s) {
		return literal{}, false
	}
	return newLiteral(s, fold), true
}

// foldable reports whether s folds only to ASCII: ASCII without 'k' and
// 's', which Unicode also folds to the Kelvin sign and the long s.
func foldable(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if s[i] >= utf8.RuneSelf || c == 'k' || c == 's' {
			return false
		}
	}
	return true
}

func newLiteral(s string, fold bool) literal {
	l := literal{s: []byte(s), fold: fold}
	if fold {
		l.s = []byte(strings.ToLower(s))
	}
	best := -1
	for i, c := range l.s {
		if best < 0 || byteRank(c) < byteRank(l.s[best]) {
			best = i
		}
	}
	l.rare = best
	l.lo, l.up = l.s[best], l.s[best]
	if fold && l.lo >= 'a' && l.lo <= 'z' {
		l.up = l.lo - 'a' + 'A'
	}
	return l
}

// byteRank ranks how common a byte is in source code and prose: lower is
// rarer. Only the order matters.
func byteRank(c byte) int {
	const common = " etaoinsrlhdcu\n\tmpfgyw.,b_v()k;=\"/x-:'"
	if i := strings.IndexByte(common, c); i >= 0 {
		return 100 + len(common) - i
	}
	if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return 50
	}
	return 10
}

// required returns literals such that every match of re contains one of
// them, or nil if it knows none.
func required(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return []literal{newLiteral(s, false)}
		}
		// Only the ASCII stretches without k and s fold predictably.
		best := ""
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return !foldable(string(r)) }) {
			if len(part) > len(best) {
				best = part
			}
		}
		if best == "" {
			return nil
		}
		return []literal{newLiteral(best, true)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		for _, sub := range re.Sub {
			if r := required(sub); r != nil && (best == nil || score(r) > score(best)) {
				best = r
			}
		}
		return best
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			r := required(sub)
			if r == nil {
				return nil
			}
			all = append(all, r...)
		}
		if len(all) > maxAlternatives {
			return nil
		}
		return all
	}
	return nil
}

// score rates a set of alternative literals as a prefilter: by its weakest
// member, and fewer members are better.
func score(lits []literal) int {
	low := -1
	for _, l := range lits {
		w := 0
		for _, c := range l.s {
			w += 200 - byteRank(c)
		}
		if low < 0 || w < low {
			low = w
		}
	}
	return low*maxAlternatives - len(lits)
}

// singleLine rewrites re so that it cannot match a newline and its text
// anchors match at line boundaries: the same matches in a whole text as
// when it is run on each line.
func singleLine(re *syntax.Regexp) *syntax.Regexp {
	re = copyRegexp(re)
	var walk func(r *syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpAnyChar:
			r.Op = syntax.OpAnyCharNotNL
		case syntax.OpBeginText:
			r.Op = syntax.OpBeginLine
		case syntax.OpEndText:
			r.Op = syntax.OpEndLine
		case syntax.OpLiteral:
			for _, c := range r.Rune {
				if c == '\n' {
					*r = syntax.Regexp{Op: syntax.OpNoMatch}
					return
				}
			}
		case syntax.OpCharClass:
			r.Rune = withoutNewline(r.Rune)
			if len(r.Rune) == 0 {
				*r = syntax.Regexp{Op: syntax.OpNoMatch}
			}
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return re
}

func copyRegexp(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = copyRegexp(s)
	}
	c.Rune = append([]rune(nil), re.Rune...)
	return &c
}

// withoutNewline removes '\n' from a class given as sorted rune ranges.
func withoutNewline(ranges []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// scan calls fn with the bounds of each matching line of text, in order,
// until fn returns false. A line's end excludes its newline.
func (m *lineMatcher) scan(text []byte, fn func(start, end int) bool) {
	if m.whole != nil {
		for pos := 0; pos < len(text); {
			loc := m.whole.FindIndex(text[pos:])
			if loc == nil {
				return
			}
			at := pos + loc[0]
			if at == len(text) && text[at-1] == '\n' {
				return // the empty "line" after a final newline is none
			}
			start, end := lineBounds(text, at)
			if !fn(start, end) {
				return
			}
			pos = end + 1
		}
		return
	}
	var next [maxAlternatives]int // where each literal next occurs; -1 never
	var cur [maxAlternatives]cursor
	for i := range m.lits {
		next[i] = -2 // not looked for yet
		cur[i] = cursor{-2, -2}
	}
	for pos := 0; pos < len(text); {
		best := -1
		for i := range m.lits {
			if next[i] == -1 {
				continue
			}
			if next[i] < pos {
				next[i] = m.lits[i].index(text, pos, &cur[i])
				if next[i] < 0 {
					continue
				}
			}
			if best < 0 || next[i] < best {
				best = next[i]
			}
		}
		if best < 0 {
			return
		}
		start, end := lineBounds(text, best)
		if m.line == nil || m.line.Match(text[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// lineBounds returns the bounds of the line that holds text[at].
func lineBounds(text []byte, at int) (start, end int) {
	start = bytes.LastIndexByte(text[:at], '\n') + 1
	end = bytes.IndexByte(text[at:], '\n')
	if end < 0 {
		return start, len(text)
	}
	return start, at + end
}

// A cursor remembers, during one scan, where the rare byte of a
// case-insensitive literal next occurs in each case, so that no part of
// the text is searched twice. -2 means not looked for; -1 means absent.
type cursor struct{ lo, up int }

// index returns the first position at or after from where l occurs in
// text, or -1. c must be used for one text with growing from.
func (l *literal) index(text []byte, from int, c *cursor) int {
	if !l.fold {
		i := bytes.Index(text[from:], l.s)
		if i < 0 {
			return -1
		}
		return from + i
	}
	n := len(l.s)
	limit := len(text) - (n - l.rare - 1) // the rare byte lies before it
	for at := from + l.rare; at < limit; {
		if c.lo != -1 && c.lo < at {
			c.lo = indexFrom(text[:limit], at, l.lo)
		}
		p := c.lo
		if l.up != l.lo {
			if c.up != -1 && c.up < at {
				c.up = indexFrom(text[:limit], at, l.up)
			}
			if p < 0 || (c.up >= 0 && c.up < p) {
				p = c.up
			}
		}
		if p < 0 {
			return -1
		}
		start := p - l.rare
		if equalFoldASCII(text[start:start+n], l.s) {
			return start
		}
		at = p + 1
	}
	return -1
}

// indexFrom returns the index in text of the first b at or after from, or
// -1.
func indexFrom(text []byte, from int, b byte) int {
	i := bytes.IndexByte(text[from:], b)
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFoldASCII reports whether s equals lower (which is in lower case)
// ignoring ASCII case.
func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
