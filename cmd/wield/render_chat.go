package main

// Rendering for wield chat's screen: the model's finished messages as
// Markdown, and the status line. Like render.go, it does no terminal
// I/O.
//
// The Markdown renderer is our own, on goldmark's core parser, rather
// than glamour: glamour links chroma and an HTML sanitizer, whose
// package initialisers cost every wield process (wield mcp, wield
// --version) tens of milliseconds before main runs.

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	ansiparser "github.com/charmbracelet/x/ansi/parser"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/wieldhq/wield/llm"
)

// A markdownRenderer renders the model's finished messages as Markdown
// at a screen's width: styled with SGR escapes when color is set, and
// as plain text otherwise, without the Markdown's markers (no `*`, no
// backticks; headings keep their `#`). Code is not coloured by
// language. The zero value renders plain. It is not safe for concurrent
// use.
type markdownRenderer struct {
	color bool
	p     parser.Parser // made on first use
}

// mdMargin is how far messages are indented, to line up with the
// summaries under tool lines, on screens wide enough for it.
const mdMargin = "  "

// render returns text rendered as Markdown to fit width columns: no
// line is wider than width unless width is less than 1. Blank lines
// around it and spaces at the ends of its lines are trimmed.
func (m *markdownRenderer) render(src string, width int) string {
	if m.p == nil {
		m.p = parser.NewParser(
			parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(parser.DefaultInlineParsers()...),
			parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
				util.Prioritized(tableTransformer{}, 200))...))
	}
	width = max(width, 1)
	margin := ""
	if width >= 20 {
		margin, width = mdMargin, width-len(mdMargin)
	}
	source := []byte(sanitize(src))
	doc := m.p.Parse(text.NewReader(source))
	w := &mdWriter{color: m.color, src: source, p: m.p}
	lines := w.block(doc, width)
	for i, l := range lines {
		if l != "" {
			lines[i] = margin + l
		}
	}
	return trimLines(strings.Join(lines, "\n"))
}

// sanitize drops the control characters of s but newlines and tabs, so
// that what a model writes cannot drive the terminal, and turns CRLF
// line ends into LF.
func sanitize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
}

// SGR parameters of the Markdown's styles.
const (
	sgrBold      = "1"
	sgrFaint     = "2"
	sgrItalic    = "3"
	sgrUnderline = "4"
	sgrCode      = "36" // cyan
)

// An mdWriter renders one parsed message.
type mdWriter struct {
	color bool
	src   []byte
	p     parser.Parser // for the cells of tables
}

// style returns s with the SGR parameters sgr, when it renders colour.
func (w *mdWriter) style(sgr, s string) string {
	if !w.color || sgr == "" || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// blocks renders the children of n, one block after another, with a
// blank line between them unless tight.
func (w *mdWriter) blocks(n ast.Node, width int, tight bool) []string {
	var lines []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := w.block(c, width)
		if len(b) == 0 {
			continue
		}
		if len(lines) > 0 && !tight {
			lines = append(lines, "")
		}
		lines = append(lines, b...)
	}
	return lines
}

// block renders the block n as lines of at most width columns.
func (w *mdWriter) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Document:
		return w.blocks(n, width, false)
	case *ast.Paragraph:
		if rows, ok := n.AttributeString(tableAttr); ok {
			return w.table(rows.(*tableRows), width)
		}
		return w.wrap(w.inlines(n, ""), width)
	case *ast.TextBlock:
		return w.wrap(w.inlines(n, ""), width)
	case *ast.Heading:
		sgr := sgrBold
		if n.Level == 1 {
			sgr = sgrBold + ";" + sgrUnderline
		}
		spans := w.inlines(n, sgr)
		if !w.color {
			spans = append([]span{{text: strings.Repeat("#", n.Level) + " "}}, spans...)
		}
		return w.wrap(spans, width)
	case *ast.ThematicBreak:
		return []string{w.style(sgrFaint, strings.Repeat("─", min(width, 40)))}
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		return w.code(n, width)
	case *ast.HTMLBlock:
		var lines []string
		for _, l := range w.lineValues(n) {
			lines = append(lines, breakWord(l, width)...)
		}
		if n.HasClosure() {
			lines = append(lines, breakWord(strings.TrimRight(string(n.ClosureLine.Value(w.src)), "\n"), width)...)
		}
		return lines
	case *ast.Blockquote:
		bar := w.style(sgrFaint, "│") + " "
		if width < 10 {
			return w.blocks(n, width, false)
		}
		lines := w.blocks(n, width-2, false)
		for i, l := range lines {
			lines[i] = bar + l
		}
		return lines
	case *ast.List:
		return w.list(n, width)
	}
	return w.blocks(n, width, false)
}

// lineValues returns the lines of the block n, without their newlines.
func (w *mdWriter) lineValues(n ast.Node) []string {
	var lines []string
	segs := n.Lines()
	for i := range segs.Len() {
		s := segs.At(i)
		lines = append(lines, strings.TrimRight(string(s.Value(w.src)), "\n"))
	}
	return lines
}

// code renders a code block as it is, dimmed and indented, its long
// lines broken.
func (w *mdWriter) code(n ast.Node, width int) []string {
	indent := ""
	if width >= 10 {
		indent, width = "  ", width-2
	}
	var lines []string
	for _, l := range w.lineValues(n) {
		for _, part := range breakWord(expandTabs(l), width) {
			lines = append(lines, indent+w.style(sgrFaint, part))
		}
	}
	return lines
}

// expandTabs replaces the tabs of s with spaces to the next multiple of
// 4 columns.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += ansi.StringWidth(string(r))
	}
	return b.String()
}

// list renders a list: each item after its bullet or number, its
// further lines under its first.
func (w *mdWriter) list(l *ast.List, width int) []string {
	n := l.Start
	last := n
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		last++
	}
	markerWidth := 2 // "• "
	if l.IsOrdered() {
		markerWidth = len(strconv.Itoa(last)) + 2 // "10. "
	}
	var lines []string
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "•"
		if l.IsOrdered() {
			marker = strconv.Itoa(n) + "."
			n++
		}
		marker += strings.Repeat(" ", markerWidth-ansi.StringWidth(marker))
		if len(lines) > 0 && !l.IsTight {
			lines = append(lines, "")
		}
		if width-markerWidth < 8 {
			// Too narrow to indent: the marker on a line of its own.
			lines = append(lines, strings.TrimRight(marker, " "))
			lines = append(lines, w.blocks(item, width, l.IsTight)...)
			continue
		}
		body := w.blocks(item, width-markerWidth, l.IsTight)
		if len(body) == 0 {
			body = []string{""}
		}
		pad := strings.Repeat(" ", markerWidth)
		for i, b := range body {
			switch {
			case i == 0:
				lines = append(lines, marker+b)
			case b == "":
				lines = append(lines, "")
			default:
				lines = append(lines, pad+b)
			}
		}
	}
	return lines
}

// A span is a run of inline text in one style.
type span struct {
	text string
	sgr  string // SGR parameters, "" for none
}

// inlines returns the inline content of the block n as spans, in the
// style sgr.
func (w *mdWriter) inlines(n ast.Node, sgr string) []span {
	var spans []span
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		spans = w.inline(c, sgr, spans)
	}
	return spans
}

// withSGR adds the parameters add to the style sgr.
func withSGR(sgr, add string) string {
	if sgr == "" {
		return add
	}
	return sgr + ";" + add
}

// inline appends the spans of the inline node n, in the style sgr.
func (w *mdWriter) inline(n ast.Node, sgr string, spans []span) []span {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(w.src)
		spans = append(spans, span{resolve(v), sgr})
		switch {
		case n.HardLineBreak():
			spans = append(spans, span{text: "\n"})
		case n.SoftLineBreak():
			spans = append(spans, span{text: " "})
		}
		return spans
	case *ast.String:
		return append(spans, span{string(n.Value), sgr})
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(w.src))
			case *ast.String:
				b.Write(c.Value)
			}
		}
		return append(spans, span{b.String(), withSGR(sgr, sgrCode)})
	case *ast.Emphasis:
		add := sgrItalic
		if n.Level >= 2 {
			add = sgrBold
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			spans = w.inline(c, withSGR(sgr, add), spans)
		}
		return spans
	case *ast.Link:
		return w.link(n, string(n.Destination), sgr, spans)
	case *ast.Image:
		return w.link(n, string(n.Destination), sgr, spans)
	case *ast.AutoLink:
		return append(spans, span{string(n.Label(w.src)), withSGR(sgr, sgrUnderline)})
	case *ast.RawHTML:
		for i := range n.Segments.Len() {
			s := n.Segments.At(i)
			spans = append(spans, span{string(s.Value(w.src)), sgr})
		}
		return spans
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		spans = w.inline(c, sgr, spans)
	}
	return spans
}

// link appends a link's text and, unless the text is the URL, the URL
// in parentheses.
func (w *mdWriter) link(n ast.Node, dest, sgr string, spans []span) []span {
	start := len(spans)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		spans = w.inline(c, withSGR(sgr, sgrUnderline), spans)
	}
	var label strings.Builder
	for _, s := range spans[start:] {
		label.WriteString(s.text)
	}
	if dest != "" && label.String() != dest {
		spans = append(spans, span{text: " "}, span{"(" + dest + ")", withSGR(sgr, sgrFaint)})
	}
	return spans
}

// resolve returns the text of v with backslash escapes and character
// references resolved.
func resolve(v []byte) string {
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	v = util.ResolveEntityNames(v)
	return string(v)
}

// A piece is a part of a word in one style.
type piece struct {
	text string
	sgr  string
}

// wrap lays spans out in lines of at most width columns, breaking at
// spaces, and within words longer than a line. A span "\n" breaks the
// line.
func (w *mdWriter) wrap(spans []span, width int) []string {
	type word struct {
		pieces []piece
		width  int
		brk    bool // a line break, not a word
	}
	var words []word
	var cur word
	endWord := func() {
		if len(cur.pieces) > 0 {
			words = append(words, cur)
		}
		cur = word{}
	}
	for _, s := range spans {
		if s.text == "\n" {
			endWord()
			words = append(words, word{brk: true})
			continue
		}
		start := -1
		for i, r := range s.text {
			if r == ' ' || r == '\t' || r == '\n' {
				if start >= 0 {
					t := s.text[start:i]
					cur.pieces = append(cur.pieces, piece{t, s.sgr})
					cur.width += ansi.StringWidth(t)
					start = -1
				}
				endWord()
				continue
			}
			if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			t := s.text[start:]
			cur.pieces = append(cur.pieces, piece{t, s.sgr})
			cur.width += ansi.StringWidth(t)
		}
	}
	endWord()

	var lines []string
	var line strings.Builder
	lineWidth := 0
	newLine := func() {
		lines = append(lines, line.String())
		line.Reset()
		lineWidth = 0
	}
	for _, wd := range words {
		if wd.brk {
			newLine()
			continue
		}
		if lineWidth > 0 && (lineWidth+1+wd.width > width || wd.width > width) {
			newLine()
		}
		if lineWidth > 0 {
			line.WriteString(" ")
			lineWidth++
		}
		for _, p := range wd.pieces {
			parts := []string{p.text}
			if wd.width > width {
				parts = breakWord(p.text, width-lineWidth, width)
			}
			for i, part := range parts {
				if i > 0 {
					newLine()
				}
				line.WriteString(w.style(p.sgr, part))
				lineWidth += ansi.StringWidth(part)
			}
		}
	}
	if lineWidth > 0 || len(lines) == 0 {
		newLine()
	}
	return lines
}

// breakWord breaks s into parts: the first of at most widths[0] columns
// (when given), the rest of at most the last width's. A character
// wider than a part goes alone in its part.
func breakWord(s string, widths ...int) []string {
	first, rest := widths[0], widths[len(widths)-1]
	rest = max(rest, 1)
	var parts []string
	var b strings.Builder
	limit, used := first, 0
	for _, r := range s {
		rw := ansi.StringWidth(string(r))
		if used+rw > limit && (used > 0 || limit < rw && limit < rest) {
			parts = append(parts, b.String())
			b.Reset()
			limit, used = rest, 0
		}
		b.WriteRune(r)
		used += rw
	}
	return append(parts, b.String())
}

// tableAttr is the attribute of a paragraph that is a table: its
// *tableRows.
const tableAttr = "wield-table"

// tableRows are the cells of a table, as Markdown, and how its columns
// align.
type tableRows struct {
	align []byte // 'l', 'r' or 'c' per column
	rows  [][]string
}

// A tableTransformer marks the paragraphs that are GitHub-style pipe
// tables: a header row, a delimiter row, then the rows. (goldmark's
// table extension lives in a package whose linkify regexps compile in
// every process that links it.)
type tableTransformer struct{}

func (tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := node.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	line := func(i int) string {
		s := lines.At(i)
		return strings.TrimSpace(string(s.Value(src)))
	}
	header, delim := splitRow(line(0)), splitRow(line(1))
	if !strings.Contains(line(0), "|") || len(header) != len(delim) {
		return
	}
	t := &tableRows{}
	for _, d := range delim {
		d = strings.TrimSpace(d)
		left, right := strings.HasPrefix(d, ":"), strings.HasSuffix(d, ":")
		dashes := strings.Trim(d, ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return
		}
		switch {
		case left && right:
			t.align = append(t.align, 'c')
		case right:
			t.align = append(t.align, 'r')
		default:
			t.align = append(t.align, 'l')
		}
	}
	t.rows = append(t.rows, header)
	for i := 2; i < lines.Len(); i++ {
		row := splitRow(line(i))
		row = append(row, make([]string, max(len(header)-len(row), 0))...)
		t.rows = append(t.rows, row[:len(header)])
	}
	node.SetAttributeString(tableAttr, t)
}

// splitRow splits a table's row into its cells at the pipes not escaped
// with a backslash.
func splitRow(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// table renders a table: its columns as wide as their widest cell, or
// narrower, their cells wrapped, when the table is wider than width.
// When even that does not fit, each row is a line of its cells.
func (w *mdWriter) table(t *tableRows, width int) []string {
	cols := len(t.align)
	cells := make([][][]span, len(t.rows))
	natural := make([]int, cols)
	for r, row := range t.rows {
		for _, c := range row {
			spans := w.cell(c, r == 0)
			cells[r] = append(cells[r], spans)
			natural[len(cells[r])-1] = max(natural[len(cells[r])-1], spansWidth(spans))
		}
	}
	sep := w.style(sgrFaint, " │ ")
	avail := width - 3*(cols-1)
	if avail < 3*cols {
		var lines []string
		for _, row := range cells {
			var spans []span
			for i, c := range row {
				if i > 0 {
					spans = append(spans, span{" │ ", sgrFaint})
				}
				spans = append(spans, c...)
			}
			lines = append(lines, w.wrap(spans, width)...)
		}
		return lines
	}
	widths := append([]int(nil), natural...)
	for i := range widths {
		widths[i] = max(widths[i], 1)
	}
	for sum(widths) > avail {
		widest := 0
		for i, v := range widths {
			if v > widths[widest] {
				widest = i
			}
		}
		widths[widest]--
	}
	var lines []string
	for r, row := range cells {
		wrapped := make([][]string, cols)
		height := 0
		for i, c := range row {
			wrapped[i] = w.wrap(c, widths[i])
			height = max(height, len(wrapped[i]))
		}
		for l := range height {
			var b strings.Builder
			for i := range cols {
				if i > 0 {
					b.WriteString(sep)
				}
				s := ""
				if l < len(wrapped[i]) {
					s = wrapped[i][l]
				}
				b.WriteString(alignCell(s, widths[i], t.align[i]))
			}
			lines = append(lines, b.String())
		}
		if r == 0 {
			var b strings.Builder
			for i, cw := range widths {
				if i > 0 {
					b.WriteString("─┼─")
				}
				b.WriteString(strings.Repeat("─", cw))
			}
			lines = append(lines, w.style(sgrFaint, b.String()))
		}
	}
	return lines
}

// cell returns the spans of a table's cell, bold in the header.
func (w *mdWriter) cell(md string, header bool) []span {
	src := []byte(md)
	doc := w.p.Parse(text.NewReader(src))
	cw := &mdWriter{color: w.color, src: src, p: w.p}
	sgr := ""
	if header {
		sgr = sgrBold
	}
	var spans []span
	for b := doc.FirstChild(); b != nil; b = b.NextSibling() {
		spans = append(spans, cw.inlines(b, sgr)...)
	}
	return spans
}

// alignCell pads s, a line of a cell, to width columns as align says.
func alignCell(s string, width int, align byte) string {
	pad := max(width-ansi.StringWidth(s), 0)
	switch align {
	case 'r':
		return strings.Repeat(" ", pad) + s
	case 'c':
		return strings.Repeat(" ", pad/2) + s + strings.Repeat(" ", pad-pad/2)
	}
	return s + strings.Repeat(" ", pad)
}

func spansWidth(spans []span) int {
	n := 0
	for _, s := range spans {
		n += ansi.StringWidth(s.text)
	}
	return n
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// trimLines drops the spaces at the ends of the lines of s and the blank
// lines around it.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		// Styled padding ends in an escape sequence after the spaces.
		lines[i] = strings.TrimRight(l, " ")
		if plain := ansi.Strip(lines[i]); strings.TrimSpace(plain) == "" {
			lines[i] = ""
		}
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// A streamView renders the text of a message while it streams in,
// byte for byte as lipgloss.NewStyle().Width(width).Render renders it:
// wrapped at width columns by x/ansi's Wrap, each line padded with
// spaces to the widest (and at least width columns). Rendered again
// from its start at every frame, a message costs each frame its whole
// length, and its streaming the square of it; a streamView keeps the
// wrapper's state at the end of the text it has taken in, and the
// lines it has finished, padded, so that a frame wraps only the text
// that came since. Text whose rendering does not extend that way is
// rendered by lipgloss whole: escape sequences (lipgloss carries a
// style across lines), carriage returns (a CR LF becomes LF) and bytes
// that are not UTF-8. The zero value is ready to use.
type streamView struct {
	width int
	src   string // the text taken in, as given
	slow  bool   // src holds what only lipgloss renders right
	in    []byte // src with its tabs expanded, as lipgloss does
	pos   int    // bytes of in that w has wrapped
	w     wrapper
	// The lines w has finished, each padded to padTo columns and ended
	// with a newline; they cover done bytes of w.out.
	padded []byte
	done   int
	widths []int // the columns of each finished line
	widest int
	padTo  int
}

// render returns text, without the newlines it ends with, rendered to
// fit width columns as lipgloss.NewStyle().Width(width).Render renders
// it. Text that does not start with the text of the last call starts
// anew.
func (v *streamView) render(text string, width int) string {
	text = strings.TrimRight(text, "\n")
	if width != v.width || !strings.HasPrefix(text, v.src) {
		*v = streamView{width: width}
	}
	added := text[len(v.src):]
	v.src = text
	if width < 1 || strings.ContainsAny(added, "\x1b\r") {
		v.slow = true
	}
	if v.slow {
		return lipgloss.NewStyle().Width(width).Render(text)
	}
	if v.w.limit == 0 {
		v.w.limit = width
	}
	v.in = append(v.in, strings.ReplaceAll(added, "\t", "    ")...)
	// What a frame adds to the text is wrapped for good, but for a
	// grapheme cluster at its end, which what comes next may extend.
	rest := string(v.in[v.pos:])
	n := v.w.feed(rest, false)
	if !utf8.ValidString(rest[:n]) {
		v.slow = true
		return lipgloss.NewStyle().Width(width).Render(text)
	}
	v.pos += n
	tail := rest[n:]
	if !utf8.ValidString(tail) {
		// A character cut in two by the stream: lipgloss renders this
		// frame, and the next, with the character whole, goes on.
		return lipgloss.NewStyle().Width(width).Render(text)
	}
	v.finishLines()
	// The frame: a copy of the wrapper, with the lines it has not
	// finished, carried to the end of the text and ended as Wrap ends.
	end := v.w
	end.word = slices.Clone(v.w.word)
	end.space = slices.Clone(v.w.space)
	end.out = slices.Clone(v.w.out[v.done:])
	end.feed(tail, true)
	end.finish()
	last := strings.Split(string(end.out), "\n")
	padTo := max(v.widest, v.width)
	lastWidths := make([]int, len(last))
	for i, l := range last {
		lastWidths[i] = ansi.StringWidth(l)
		padTo = max(padTo, lastWidths[i])
	}
	if padTo != v.padTo {
		v.repad(padTo)
	}
	var b strings.Builder
	b.Grow(len(v.padded) + len(last)*(padTo+1))
	b.Write(v.padded)
	for i, l := range last {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		b.WriteString(strings.Repeat(" ", padTo-lastWidths[i]))
	}
	return b.String()
}

// finishLines pads the lines the wrapper has finished since the last
// call, and notes their widths.
func (v *streamView) finishLines() {
	for {
		i := bytes.IndexByte(v.w.out[v.done:], '\n')
		if i < 0 {
			return
		}
		line := v.w.out[v.done : v.done+i]
		lw := ansi.StringWidth(string(line))
		v.widths = append(v.widths, lw)
		v.widest = max(v.widest, lw)
		if lw <= v.padTo {
			v.padded = append(v.padded, line...)
			v.padded = append(v.padded, strings.Repeat(" ", v.padTo-lw)...)
			v.padded = append(v.padded, '\n')
		} else {
			v.padTo = -1 // render repads all
		}
		v.done += i + 1
	}
}

// repad pads the finished lines anew to padTo columns.
func (v *streamView) repad(padTo int) {
	v.padTo = padTo
	v.padded = v.padded[:0]
	start := 0
	for _, lw := range v.widths {
		i := bytes.IndexByte(v.w.out[start:], '\n')
		v.padded = append(v.padded, v.w.out[start:start+i]...)
		v.padded = append(v.padded, strings.Repeat(" ", padTo-lw)...)
		v.padded = append(v.padded, '\n')
		start += i + 1
	}
}

// A wrapper is x/ansi's Wrap(s, limit, "") (grapheme widths, no
// breakpoints but hyphens) as a machine whose input comes in parts: its
// fields are Wrap's variables between two bytes of its input, and
// feeding it the rest of the input, then finishing, leaves in out what
// Wrap returns for the whole. The port follows x/ansi v0.11's wrap line
// for line; TestStreamView checks it against lipgloss.
type wrapper struct {
	limit      int
	out        []byte
	word       []byte
	space      []byte
	spaceWidth int // columns of space
	curWidth   int // columns written on the line
	wordLen    int // columns of word
	pstate     ansiparser.State
}

// nbsp is the no-break space, which Wrap does not break at.
const nbsp = 0xA0

func (w *wrapper) addSpace() {
	if w.spaceWidth == 0 && len(w.space) == 0 {
		return
	}
	w.curWidth += w.spaceWidth
	w.out = append(w.out, w.space...)
	w.space = w.space[:0]
	w.spaceWidth = 0
}

func (w *wrapper) addWord() {
	if len(w.word) == 0 {
		return
	}
	w.addSpace()
	w.curWidth += w.wordLen
	w.out = append(w.out, w.word...)
	w.word = w.word[:0]
	w.wordLen = 0
}

func (w *wrapper) addNewline() {
	w.out = append(w.out, '\n')
	w.curWidth = 0
	w.space = w.space[:0]
	w.spaceWidth = 0
}

// feed wraps s and returns how many of its bytes it took. Unless final,
// it stops before a grapheme cluster that reaches the end of s: more
// text may extend the cluster.
func (w *wrapper) feed(s string, final bool) int {
	limit := w.limit
	i := 0
	for i < len(s) {
		state, action := ansiparser.Table.Transition(w.pstate, s[i])
		if state == ansiparser.Utf8State {
			cluster, width := ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
			if !final && i+len(cluster) == len(s) {
				return i
			}
			i += len(cluster)
			r, _ := utf8.DecodeRuneInString(cluster)
			if r != utf8.RuneError && unicode.IsSpace(r) && r != nbsp {
				w.addWord()
				w.space = utf8.AppendRune(w.space, r)
				w.spaceWidth += width
			} else {
				if w.wordLen+width > limit {
					w.addWord() // the word is too long for a line: it is broken
				}
				w.word = append(w.word, cluster...)
				w.wordLen += width
				if w.curWidth+w.wordLen+w.spaceWidth > limit {
					w.addNewline()
				}
				if w.wordLen == limit {
					w.addWord()
				}
			}
			w.pstate = ansiparser.GroundState
			continue
		}
		switch action {
		case ansiparser.PrintAction, ansiparser.ExecuteAction:
			switch r := rune(s[i]); {
			case r == '\n':
				if w.wordLen == 0 {
					if w.curWidth+w.spaceWidth > limit {
						w.curWidth = 0
					} else {
						w.out = append(w.out, w.space...) // spaces are kept
					}
					w.space = w.space[:0]
					w.spaceWidth = 0
				}
				w.addWord()
				w.addNewline()
			case unicode.IsSpace(r):
				w.addWord()
				w.space = utf8.AppendRune(w.space, r)
				w.spaceWidth++
			case r == '-':
				w.addSpace()
				if w.curWidth+w.wordLen >= limit {
					// The hyphen does not fit on the line: it is part
					// of the word.
					w.word = utf8.AppendRune(w.word, r)
					w.wordLen++
				} else {
					w.addWord()
					w.out = utf8.AppendRune(w.out, r)
					w.curWidth++
				}
			default:
				if w.curWidth == limit {
					w.addNewline()
				}
				w.word = utf8.AppendRune(w.word, r)
				w.wordLen++
				if w.wordLen == limit {
					w.addWord()
				}
				if w.curWidth+w.wordLen+w.spaceWidth > limit {
					w.addNewline()
				}
			}
		default:
			w.word = append(w.word, s[i])
		}
		if w.pstate != ansiparser.Utf8State {
			w.pstate = state
		}
		i++
	}
	return i
}

// finish ends the input, as Wrap does at the end of its string.
func (w *wrapper) finish() {
	if w.wordLen == 0 {
		if w.curWidth+w.spaceWidth > w.limit {
			w.curWidth = 0
		} else {
			w.out = append(w.out, w.space...)
		}
		w.space = w.space[:0]
		w.spaceWidth = 0
	}
	w.addWord()
}

// A chatStatus is what wield chat's status line shows.
type chatStatus struct {
	model   string
	session string // the session's id
	mode    string // the permission mode, or plan
	usage   llm.Usage
	priced  bool
	// state says what the chat is doing: "thinking (round 2)", "1 tool
	// running", "waiting for you"; "" when idle.
	state string
}

// statusLine renders s on one line of at most width columns: the model,
// the session's id prefix, the mode, tokens in and out, the cost and the
// state.
func statusLine(p palette, s chatStatus, width int) string {
	id := s.session
	if len(id) > 15 {
		id = id[:15]
	}
	parts := []string{s.model, id, s.mode,
		fmt.Sprintf("%s in, %s out", thousands(s.usage.InputTokens), thousands(s.usage.OutputTokens))}
	if s.priced {
		parts = append(parts, fmt.Sprintf("$%.4f", s.usage.Cost))
	}
	line := strings.Join(parts, " · ")
	if s.state != "" {
		line += " · " + s.state
	}
	return p.dim(ansi.Truncate(line, max(width, 10), "…"))
}
