package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults of [ChunkOptions].
const (
	DefaultMaxChars = 1500
	DefaultOverlap  = 200
)

// ChunkOptions says how [Split] cuts a text. The zero value means the
// defaults.
type ChunkOptions struct {
	// MaxChars caps the bytes of one chunk; zero means DefaultMaxChars.
	// Values below 64 are raised to 64.
	MaxChars int
	// Overlap is how many bytes of whole lines at the end of a chunk the
	// next chunk of the same section repeats, at most; zero means
	// DefaultOverlap, and a negative value means none. It is kept below
	// half of MaxChars.
	Overlap int
}

func (o ChunkOptions) withDefaults() ChunkOptions {
	if o.MaxChars == 0 {
		o.MaxChars = DefaultMaxChars
	}
	o.MaxChars = max(o.MaxChars, 64)
	switch {
	case o.Overlap == 0:
		o.Overlap = DefaultOverlap
	case o.Overlap < 0:
		o.Overlap = 0
	}
	o.Overlap = min(o.Overlap, o.MaxChars/2-1)
	return o
}

// A Span is one chunk of a text: the bytes Body[Start:End], on lines
// StartLine to EndLine (from 1), under the headings Heading (the
// Markdown headings that enclose it, joined by " > ").
type Span struct {
	Start, End         int
	StartLine, EndLine int
	Heading            string
}

// Split cuts the text t into chunks of at most opts.MaxChars bytes, in
// order. A Markdown heading (outside code fences) starts a new section,
// and so does a PDF's page; no chunk crosses from one section into the
// next. Within a
// section, chunks end at line ends; a line longer than MaxChars is cut
// at a space, or at a character boundary when it has none. Each chunk
// but a section's first repeats up to opts.Overlap bytes of whole lines
// from the end of the chunk before it. Together the chunks cover every
// byte of the text that is not white space; chunks of white space only
// are left out.
func Split(t *Text, opts ChunkOptions) []Span {
	opts = opts.withDefaults()
	body := t.Body
	var spans []Span
	lines := newLineIndex(body)
	for _, sec := range sections(t) {
		spans = splitSection(body, sec, opts, lines, spans)
	}
	return spans
}

// A section is a stretch of a text under one heading.
type section struct {
	start, end int
	heading    string
}

// sections cuts a Markdown text at its headings; other texts are one
// section.
func sections(t *Text) []section {
	body := t.Body
	if len(t.Pages) > 0 {
		return pageSections(t)
	}
	if t.Kind != KindMarkdown && t.Kind != KindHTML {
		return []section{{0, len(body), ""}}
	}
	var secs []section
	var path []string // the headings in force, by level
	cur := section{}
	fence := ""
	for pos := 0; pos < len(body); {
		end := strings.IndexByte(body[pos:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += pos + 1
		}
		line := strings.TrimSuffix(body[pos:end], "\n")
		if f, ok := fenceOf(line, fence); ok {
			fence = f
		} else if fence == "" {
			if level, title := headingOf(line); level > 0 {
				path = append(path[:min(len(path), level-1)], make([]string, max(0, level-1-len(path)))...)
				path = append(path, title)
				switch {
				case pos == cur.start:
					cur.heading = joinHeadings(path)
				case headingOnly(body[cur.start:pos]):
					// A heading with nothing under it but a subheading
					// joins the section that follows.
					cur.heading = joinHeadings(path)
				default:
					cur.end = pos
					secs = append(secs, cur)
					cur = section{start: pos, heading: joinHeadings(path)}
				}
			}
		}
		pos = end
	}
	cur.end = len(body)
	return append(secs, cur)
}

// pageSections cuts a paged text at its pages, so that a chunk cites one
// page.
func pageSections(t *Text) []section {
	lines := newLineIndex(t.Body)
	var secs []section
	for i, line := range t.Pages {
		start, end := len(t.Body), len(t.Body)
		if line-1 < len(lines) {
			start = lines[line-1]
		}
		if i+1 < len(t.Pages) && t.Pages[i+1]-1 < len(lines) {
			end = lines[t.Pages[i+1]-1]
		}
		if i == 0 {
			start = 0
		}
		if start < end {
			secs = append(secs, section{start: start, end: end})
		}
	}
	return secs
}

// headingOnly reports whether a section's text is its heading line and
// blank lines.
func headingOnly(text string) bool {
	first, rest, _ := strings.Cut(text, "\n")
	level, _ := headingOf(first)
	return level > 0 && strings.TrimSpace(rest) == ""
}

func joinHeadings(path []string) string {
	var parts []string
	for _, p := range path {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " > ")
}

// headingOf returns the level and text of an ATX heading line ("## Go"),
// or 0.
func headingOf(line string) (int, string) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return 0, ""
	}
	level := 0
	for level < len(trimmed) && trimmed[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, ""
	}
	rest := trimmed[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#"))
	return level, title
}

// fenceOf reports whether line opens or closes a code fence, given the
// fence in force ("" for none), and returns the fence in force after it.
func fenceOf(line, fence string) (string, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || len(trimmed) < 3 {
		return fence, false
	}
	c := trimmed[0]
	if c != '`' && c != '~' {
		return fence, false
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 {
		return fence, false
	}
	if fence == "" {
		if c == '`' && strings.ContainsRune(trimmed[n:], '`') {
			return fence, false
		}
		return trimmed[:n], true
	}
	if fence[0] == c && n >= len(fence) && strings.TrimSpace(trimmed[n:]) == "" {
		return "", true
	}
	return fence, false
}

// A lineIndex finds the line of a byte offset.
type lineIndex []int // the offset each line starts at

func newLineIndex(s string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the line (from 1) that holds the byte at off.
func (l lineIndex) line(off int) int {
	lo, hi := 0, len(l)
	for lo < hi {
		m := (lo + hi) / 2
		if l[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// splitSection appends the chunks of one section to spans.
func splitSection(body string, sec section, opts ChunkOptions, lines lineIndex, spans []Span) []Span {
	// breaks are the offsets a chunk may start or end at: line starts,
	// and the cuts made in long lines.
	breaks := []int{sec.start}
	for pos := sec.start; pos < sec.end; {
		end := strings.IndexByte(body[pos:sec.end], '\n')
		if end < 0 {
			end = sec.end
		} else {
			end += pos + 1
		}
		for end-pos > opts.MaxChars {
			pos = cutLine(body, pos, pos+opts.MaxChars)
			breaks = append(breaks, pos)
		}
		breaks = append(breaks, end)
		pos = end
	}
	start := 0 // index into breaks
	for start < len(breaks)-1 {
		end := start + 1
		for end+1 < len(breaks) && breaks[end+1]-breaks[start] <= opts.MaxChars {
			end++
		}
		s, e := breaks[start], breaks[end]
		if strings.TrimSpace(body[s:e]) != "" {
			spans = append(spans, Span{Start: s, End: e, StartLine: lines.line(s), EndLine: lines.line(max(s, e-1)), Heading: sec.heading})
		}
		if end == len(breaks)-1 {
			break
		}
		// The next chunk starts at the earliest break after this one's
		// start that repeats no more than Overlap bytes and leaves room
		// for the next line, so that it does not end where this one does.
		next := end
		for next-1 > start && e-breaks[next-1] <= opts.Overlap && breaks[end+1]-breaks[next-1] <= opts.MaxChars {
			next--
		}
		start = next
	}
	return spans
}

// cutLine returns where to cut a line that runs past limit: after the
// last white space in (pos, limit], else at the last character boundary
// at or before limit.
func cutLine(body string, pos, limit int) int {
	for i := limit; i > pos+1; i-- {
		r, _ := utf8.DecodeLastRuneInString(body[:i])
		if unicode.IsSpace(r) {
			return i
		}
	}
	for i := limit; i > pos; i-- {
		if utf8.RuneStart(body[i]) {
			return i
		}
	}
	return limit
}
