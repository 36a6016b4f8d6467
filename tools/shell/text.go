package shell

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wieldhq/wield/internal/textcut"
)

// binarySniff is how much of the output is looked at to tell binary from
// text, as git does.
const binarySniff = 8000

// looksBinary reports whether out looks like binary data rather than
// text: it holds a NUL byte, or more than a tenth of its start is not
// UTF-8.
func looksBinary(out []byte) bool {
	b := out[:min(len(out), binarySniff)]
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad := 0
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 && (len(b) >= utf8.UTFMax || utf8.FullRune(b)) {
			bad++
		}
		b = b[n:]
	}
	return bad*10 > min(len(out), binarySniff)
}

// validText returns b as a string with invalid UTF-8 replaced by U+FFFD.
func validText(b []byte) string {
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// collapseCR keeps, of each line, what a terminal would show: the text
// after its last carriage return. Progress bars then take one line.
func collapseCR(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	var b strings.Builder
	for line := range strings.SplitAfterSeq(s, "\n") {
		body := strings.TrimSuffix(line, "\n")
		nl := len(body) < len(line)
		body = strings.TrimSuffix(body, "\r") // CRLF
		if i := strings.LastIndexByte(body, '\r'); i >= 0 {
			body = body[i+1:]
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// render returns the text of out for the model, at most about limit
// bytes, and reports whether it left anything out (so the whole output
// should be saved to a file).
func render(out []byte, limit int) (string, bool) {
	if len(out) == 0 {
		return "", false
	}
	if looksBinary(out) {
		return fmt.Sprintf("[binary output: %d bytes, not shown]", len(out)), true
	}
	s := collapseCR(validText(out))
	if len(s) <= limit {
		return s, false
	}
	return cut(s, limit), true
}

// cut keeps the head (20%) and the tail (80%) of s within limit bytes,
// on rune boundaries, with a note of what it left out.
func cut(s string, limit int) string {
	head, tail := textcut.HeadTail(s, limit)
	return fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", head, len(s)-len(head)-len(tail), tail)
}

// tailLines returns the last n lines of s.
func tailLines(s string, n int) string {
	if n <= 0 {
		return ""
	}
	t := strings.TrimSuffix(s, "\n")
	i := len(t)
	for ; n > 0; n-- {
		j := strings.LastIndexByte(t[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}
