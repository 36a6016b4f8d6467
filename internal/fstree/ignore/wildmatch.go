package ignore

import "strings"

// Results of one wildmatch step. Besides a match and a plain mismatch, a
// failed step can tell its callers that no shorter or longer text can match
// either (abortAll), or that only a "**" further up may still help
// (abortToStarStar). The two aborts keep "*" from retrying hopeless suffixes,
// which would make some patterns exponential.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// Wildmatch reports whether text matches the glob pattern with the rules of
// git's wildmatch: '?', '*', '[...]' classes (with '!' or '^' to negate,
// ranges and [:alpha:]-style names) and backslash escapes. With pathname set,
// as for .gitignore patterns that contain a slash, '*', '?' and classes do
// not match '/', while "**" between slashes (or at either end) matches any
// number of directories. A malformed pattern matches nothing.
func Wildmatch(pattern, text string, pathname bool) bool {
	if i := strings.IndexByte(pattern, 0); i >= 0 {
		pattern = pattern[:i] // git stops at a NUL byte too
	}
	return wild(pattern, text, pathname) == wmMatch
}

// at returns s[i], or 0 past the end, mirroring a NUL-terminated string.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func wild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		tc := at(text, ti)
		switch pc {
		case '\\':
			// An escaped character matches itself; a trailing backslash
			// matches nothing.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := !pathname
			pi++
			if pi < len(p) && p[pi] == '*' {
				before := pi - 2 // the byte before the first '*'
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				switch {
				case !pathname:
					matchSlash = true
				case (before < 0 || p[before] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')):
					// "**/" may match no directory at all: try the rest of
					// the pattern here first.
					if pi < len(p) && p[pi] == '/' && wild(p[pi+1:], text[ti:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				default:
					matchSlash = false // "**" inside a name is a plain '*'
				}
			}
			if pi == len(p) {
				// A trailing "**" matches the rest; a trailing '*' only
				// the rest of this name.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// "*/" matches the rest of this name and its slash.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				continue // the loop steps over both slashes
			}
			for ti < len(text) {
				if c := p[pi]; !isGlobSpecial(c) {
					// Skip ahead to the next place the literal after the
					// star can match, without crossing a slash the star
					// may not match.
					for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != c {
						ti++
					}
					if ti >= len(text) || text[ti] != c {
						return wmNoMatch
					}
				}
				m := wild(p[pi:], text[ti:], pathname)
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && text[ti] == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			m, next, ok := matchClass(p, pi, tc)
			if !ok {
				return wmAbortAll
			}
			if !m || (pathname && tc == '/') {
				return wmNoMatch
			}
			pi = next
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// matchClass matches tc against the class that starts at p[open] == '['.
// It returns whether tc is in the class, the index of the closing ']', and
// false if the class is malformed (then nothing can match).
func matchClass(p string, open int, tc byte) (matched bool, end int, ok bool) {
	i := open + 1
	c := at(p, i)
	negated := c == '!' || c == '^'
	if negated {
		i++
		c = at(p, i)
	}
	var prev byte
	in := false
	for {
		if i >= len(p) {
			return false, 0, false
		}
		switch {
		case c == '\\':
			i++
			if i >= len(p) {
				return false, 0, false
			}
			c = p[i]
			if tc == c {
				in = true
			}
		case c == '-' && prev != 0 && at(p, i+1) != 0 && at(p, i+1) != ']':
			i++
			c = p[i]
			if c == '\\' {
				i++
				if i >= len(p) {
					return false, 0, false
				}
				c = p[i]
			}
			if tc >= prev && tc <= c {
				in = true
			}
			c = 0 // a range cannot start another range
		case c == '[' && at(p, i+1) == ':':
			start := i + 2
			j := start
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				return false, 0, false
			}
			if j-start-1 < 0 || p[j-1] != ':' {
				// Not a [:name:]; the '[' is an ordinary member.
				if tc == '[' {
					in = true
				}
				c = '['
				break
			}
			member, known := classMember(p[start:j-1], tc)
			if !known {
				return false, 0, false
			}
			if member {
				in = true
			}
			i = j
			c = 0
		default:
			if tc == c {
				in = true
			}
		}
		prev = c
		i++
		c = at(p, i)
		if c == ']' {
			break
		}
	}
	return in != negated, i, true
}

// classMember reports whether c belongs to the named POSIX class (ASCII
// only, as in git), and whether the name is known.
func classMember(name string, c byte) (member, known bool) {
	lower := c >= 'a' && c <= 'z'
	upper := c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	graph := c > ' ' && c < 0x7f
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < ' ' || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return graph, true
	case "lower":
		return lower, true
	case "print":
		return graph || c == ' ', true
	case "punct":
		return graph && !lower && !upper && !digit, true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
