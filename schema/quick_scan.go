package schema

import (
	"bytes"
	"cmp"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reads a document for the quick path (quick.go) the way
// encoding/json decodes it: strings with their escapes, and numbers as
// exact decimals.

// quickScanner walks a document already known to be valid JSON.
type quickScanner struct {
	b []byte
	i int
}

func (s *quickScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// open moves past the '{' or '[' at s.i and the space after it, and
// reports whether a member follows; for an empty object or array it moves
// past end, the closing bracket, and reports false. With more it walks the
// members of an object or array:
//
//	for ok := s.open('}'); ok; ok = s.more('}') {
//		key := s.key()
//		// read the value at s.i
//	}
func (s *quickScanner) open(end byte) bool {
	s.i++
	s.space()
	if s.b[s.i] == end {
		s.i++
		return false
	}
	return true
}

// more moves past the space after a member, the ',' or end that follows
// it, and after a ',' the space before the next member; it reports
// whether that member follows.
func (s *quickScanner) more(end byte) bool {
	s.space()
	c := s.b[s.i]
	s.i++
	if c == end {
		return false
	}
	s.space()
	return true
}

// key reads the key of the object member at s.i, and moves past the ':'
// after it to the member's value.
func (s *quickScanner) key() quickString {
	key := s.str()
	s.space()
	s.i++ // ':'
	s.space()
	return key
}

// A quickString is a string as written in the document, without its
// quotes.
type quickString struct {
	raw     []byte
	escaped bool // has a backslash escape
}

// str reads the string at s.i.
func (s *quickScanner) str() quickString {
	b := s.b
	start := s.i + 1
	// Most strings have no escapes. A short one is read by a plain loop; in
	// a long one the closing quote and any backslash before it are found by
	// the vectorised search.
	i, n := start, min(len(b), start+16)
	for ; i < n && b[i] != '"' && b[i] != '\\'; i++ {
	}
	if i == n {
		if end := bytes.IndexByte(b[i:], '"'); bytes.IndexByte(b[i:i+end], '\\') < 0 {
			i += end
		} else {
			i += bytes.IndexByte(b[i:], '\\')
		}
	}
	if b[i] == '"' {
		s.i = i + 1
		return quickString{raw: b[start:i]}
	}
	for b[i] != '"' { // i is at a backslash
		if b[i] == '\\' {
			i++
		}
		i++
	}
	s.i = i + 1
	return quickString{raw: b[start:i], escaped: true}
}

// ascii reports whether b has no byte >= 0x80.
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// decodeRune decodes the rune at raw[i] as encoding/json does and returns
// the index after it: escapes are resolved, a surrogate pair makes one rune,
// and a lone surrogate or a byte of invalid UTF-8 becomes U+FFFD.
func decodeRune(raw []byte, i int) (rune, int) {
	c := raw[i]
	if c != '\\' {
		if c < utf8.RuneSelf {
			return rune(c), i + 1
		}
		r, size := utf8.DecodeRune(raw[i:])
		return r, i + size
	}
	switch raw[i+1] {
	case 'u':
		r := hex4(raw[i+2 : i+6])
		i += 6
		if utf16.IsSurrogate(r) {
			if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if d := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); d != unicode.ReplacementChar {
					return d, i + 6
				}
			}
			return unicode.ReplacementChar, i
		}
		return r, i
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	default: // '"', '\\', '/'
		return rune(raw[i+1]), i + 2
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// equal reports whether the decoded string is t, which is valid UTF-8 (it
// was decoded by encoding/json).
func (q quickString) equal(t string) bool {
	if !q.escaped {
		if string(q.raw) == t {
			return true // t is valid UTF-8, so raw is, and decodes to itself
		}
		if ascii(q.raw) {
			return false
		}
	}
	j := 0
	for i := 0; i < len(q.raw); {
		var r rune
		r, i = decodeRune(q.raw, i)
		if j >= len(t) {
			return false
		}
		tr, size := utf8.DecodeRuneInString(t[j:])
		if r != tr {
			return false
		}
		j += size
	}
	return j == len(t)
}

// length is the number of code points in the decoded string.
func (q quickString) length() int {
	if !q.escaped {
		// An invalid byte counts one here and decodes to one U+FFFD.
		return utf8.RuneCount(q.raw)
	}
	n := 0
	for i := 0; i < len(q.raw); n++ {
		_, i = decodeRune(q.raw, i)
	}
	return n
}

// skip moves past one value.
func (s *quickScanner) skip() {
	switch s.b[s.i] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default: // a number, true, false or null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

// A decimal is a JSON number literal, read without converting it:
// value = ±(ip.fp) × 10^exp, with ip and fp the digits as written.
type decimal struct {
	neg    bool
	ip, fp []byte
	exp    int64
}

// number reads the number at s.i. ok is false when the full validator could
// not read it either: math/big's Rat.SetString, which it uses, refuses
// exponents beyond ±1e6 once the fraction digits are counted in, and
// exponents that overflow int64.
func (s *quickScanner) number() (d decimal, ok bool) {
	b, i := s.b, s.i
	if b[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	d.ip = b[start:i]
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		d.fp = b[start:i]
	}
	ok = true
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if b[i] == '+' || b[i] == '-' {
			eneg = b[i] == '-'
			i++
		}
		for i < len(b) && b[i] == '0' {
			i++
		}
		start = i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i-start > 15 {
			ok = false
		} else {
			for _, c := range b[start:i] {
				d.exp = d.exp*10 + int64(c-'0')
			}
			if eneg {
				d.exp = -d.exp
			}
		}
	}
	s.i = i
	if e := d.exp - int64(len(d.fp)); ok && (e > 1e6 || e < -1e6) {
		_, nd, _ := d.digits()
		ok = nd == 0 // zero is read whatever its exponent
	}
	return d, ok
}

// parseDecimal reads a whole number literal.
func parseDecimal(lit []byte) (decimal, bool) {
	if len(lit) == 0 {
		return decimal{}, false
	}
	s := quickScanner{b: lit}
	d, ok := s.number()
	return d, ok && s.i == len(lit)
}

func (d *decimal) at(k int) byte {
	if k < len(d.ip) {
		return d.ip[k]
	}
	return d.fp[k-len(d.ip)]
}

// digits returns the significant digits as the index of the first one and
// their count nd, and the place of the decimal point: the value is
// ±0.d₁d₂…d_nd × 10^point. nd is zero for zero.
func (d *decimal) digits() (lead, nd int, point int64) {
	l := len(d.ip) + len(d.fp)
	for lead < l && d.at(lead) == '0' {
		lead++
	}
	if lead == l {
		return lead, 0, 0
	}
	end := l
	for d.at(end-1) == '0' {
		end--
	}
	return lead, end - lead, int64(len(d.ip)-lead) + d.exp
}

func (d *decimal) isInt() bool {
	if len(d.fp) == 0 && d.exp >= 0 {
		return true
	}
	_, nd, point := d.digits()
	return nd == 0 || int64(nd) <= point
}

// cmpDecimal compares the values of a and b exactly: -1, 0 or +1.
func cmpDecimal(a, b *decimal) int {
	la, na, pa := a.digits()
	lb, nb, pb := b.digits()
	sa, sb := sign(a.neg, na), sign(b.neg, nb)
	if sa != sb || sa == 0 {
		return cmp.Compare(sa, sb)
	}
	m := 0
	if pa != pb {
		m = cmp.Compare(pa, pb)
	} else {
		for k := range max(na, nb) {
			da, db := byte('0'), byte('0')
			if k < na {
				da = a.at(la + k)
			}
			if k < nb {
				db = b.at(lb + k)
			}
			if da != db {
				m = cmp.Compare(da, db)
				break
			}
		}
	}
	return m * sa
}

func sign(neg bool, nd int) int {
	switch {
	case nd == 0:
		return 0
	case neg:
		return -1
	}
	return 1
}
