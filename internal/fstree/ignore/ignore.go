// Package ignore implements git's ignore rules: the pattern syntax of
// .gitignore files, matched with git's own wildmatch algorithm, and a reader
// for the list of tracked paths in a git index.
//
// It matches single paths against single files' patterns. Combining files
// (deeper files win, .git/info/exclude loses to every .gitignore, an
// excluded directory hides its contents) is the job of the caller, which
// walks the tree; see internal/fstree.
package ignore

import (
	"bytes"
	"strings"
)

// A Result is the verdict of a [List] on one path.
type Result int8

// The verdicts. None means that no pattern of the list matched.
const (
	None Result = iota
	Exclude
	Include
)

// A Pattern is one line of an ignore file.
type Pattern struct {
	// Text is the pattern as written, after trailing spaces were trimmed.
	Text string

	glob      string // the pattern to match: no '!', trailing '/' or leading '/'
	prefix    string // the literal start of glob, for a quick rejection
	negate    bool   // "!pattern" re-includes
	mustBeDir bool   // "pattern/" matches directories only
	basename  bool   // no slash: matches the last path element at any depth
	literal   bool   // no wildcard at all
	suffix    bool   // "*literal": a suffix test suffices
}

// A List is the patterns of one ignore file, in file order, with the
// directory they apply to.
type List struct {
	// Base is the directory of the ignore file, relative to the tree's
	// root, with forward slashes: "" for the root, "a/b" otherwise.
	Base     string
	Patterns []Pattern
}

var bom = []byte("\xef\xbb\xbf")

// Parse reads the patterns of an ignore file whose directory is base (see
// [List.Base]). It follows git: a UTF-8 byte-order mark is skipped, lines
// may end in CRLF, blank lines and lines starting with '#' are skipped,
// unescaped trailing spaces are trimmed, "\#" and "\!" start patterns with
// a literal '#' or '!'.
func Parse(data []byte, base string) List {
	l := List{Base: base}
	data = bytes.TrimPrefix(data, bom)
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if p, ok := ParsePattern(trimTrailingSpaces(string(line))); ok {
			l.Patterns = append(l.Patterns, p)
		}
	}
	return l
}

// trimTrailingSpaces removes trailing spaces unless a backslash escapes them.
func trimTrailingSpaces(s string) string {
	end := -1 // start of the current run of spaces
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end < 0 {
				end = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			end = -1
		default:
			end = -1
		}
	}
	if end >= 0 {
		return s[:end]
	}
	return s
}

// ParsePattern parses one pattern line (without its newline). It reports
// false for a pattern that can never match, such as an empty one.
func ParsePattern(s string) (Pattern, bool) {
	p := Pattern{Text: s}
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(s, "!") {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.mustBeDir = true
		s = s[:len(s)-1]
	}
	if s == "" {
		return p, false
	}
	p.basename = !strings.Contains(s, "/")
	if !p.basename {
		s = strings.TrimPrefix(s, "/")
		if s == "" {
			return p, false // "/" or "//": nothing below the base is named
		}
	}
	p.glob = s
	n := literalLen(s)
	p.prefix = s[:n]
	p.literal = n == len(s)
	p.suffix = p.basename && len(s) > 1 && s[0] == '*' && literalLen(s[1:]) == len(s)-1
	return p, true
}

// literalLen returns the length of the wildcard-free start of s.
func literalLen(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// Negated reports whether the pattern re-includes what it matches ("!x").
func (p *Pattern) Negated() bool { return p.negate }

// Basename reports whether the pattern has no slash and so matches the last
// element of a path at any depth below its list's base.
func (p *Pattern) Basename() bool { return p.basename }

// Glob returns the pattern to match, without '!', a trailing '/' and a
// leading '/'.
func (p *Pattern) Glob() string { return p.glob }

// LiteralPrefix returns the wildcard-free start of [Pattern.Glob].
func (p *Pattern) LiteralPrefix() string { return p.prefix }

// Match reports whether the pattern matches rel, a path relative to the
// root of the tree, whose parts below base (the list's base directory) are
// name, the last element. isDir says whether rel is a directory; symbolic
// links are not directories, as in git.
func (p *Pattern) Match(base, rel, name string, isDir bool) bool {
	if p.mustBeDir && !isDir {
		return false
	}
	if p.basename {
		switch {
		case p.literal:
			return name == p.glob
		case p.suffix:
			return strings.HasSuffix(name, p.glob[1:])
		}
		return Wildmatch(p.glob, name, false)
	}
	if base != "" {
		if len(rel) <= len(base) || rel[len(base)] != '/' || !strings.HasPrefix(rel, base) {
			return false
		}
		rel = rel[len(base)+1:]
	}
	if !strings.HasPrefix(rel, p.prefix) {
		return false
	}
	if p.literal {
		return rel == p.glob
	}
	return Wildmatch(p.glob, rel, true)
}

// Match returns the verdict of the last pattern in l that matches rel (see
// [Pattern.Match]), or None. name is the last element of rel.
func (l *List) Match(rel, name string, isDir bool) Result {
	for i := len(l.Patterns) - 1; i >= 0; i-- {
		p := &l.Patterns[i]
		if p.Match(l.Base, rel, name, isDir) {
			if p.negate {
				return Include
			}
			return Exclude
		}
	}
	return None
}
