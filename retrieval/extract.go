package retrieval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/wieldhq/wield/internal/readable"
)

// The kinds of documents [Extract] reads, named by [Text.Kind].
const (
	KindMarkdown = "markdown"
	KindText     = "text"
	KindHTML     = "html"
	KindPDF      = "pdf"
)

// kinds maps file extensions to the kind of document they hold.
var kinds = map[string]string{
	".md": KindMarkdown, ".markdown": KindMarkdown, ".mdx": KindMarkdown,
	".txt": KindText, ".text": KindText, ".rst": KindText, ".adoc": KindText, ".asciidoc": KindText, ".org": KindText,
	".html": KindHTML, ".htm": KindHTML, ".xhtml": KindHTML,
	".pdf": KindPDF,
}

// KindOf returns the kind of document a file named name holds, judged by
// its extension (in any case), or "" when retrieval does not read it.
func KindOf(name string) string {
	return kinds[strings.ToLower(path.Ext(name))]
}

// ErrUnsupported is returned by [Extract] for a file whose kind
// retrieval does not read.
var ErrUnsupported = errors.New("not a document retrieval reads (Markdown, text, HTML or PDF)")

// A Text is the text of one document, ready to be chunked: lines
// separated by "\n". Line and page numbers count from 1.
type Text struct {
	// Kind is one of KindMarkdown, KindText, KindHTML and KindPDF.
	Kind string
	// Title is the document's title, when it has one: the first
	// Markdown heading, the HTML title or the PDF's first line.
	Title string
	// Body is the text. HTML becomes Markdown; a PDF's pages follow one
	// another.
	Body string
	// Pages holds, for a PDF, the line each page starts on; nil for
	// documents without pages.
	Pages []int
}

// Lines returns the number of lines of the body; a final newline ends
// the last line rather than starting another.
func (t *Text) Lines() int {
	n := strings.Count(t.Body, "\n")
	if t.Body != "" && !strings.HasSuffix(t.Body, "\n") {
		n++
	}
	return n
}

// PageOf returns the page that line is on, or 0 for a text without
// pages.
func (t *Text) PageOf(line int) int {
	p := 0
	for i, start := range t.Pages {
		if start > line {
			break
		}
		p = i + 1
	}
	return p
}

// Extract returns the text of a document named name (its extension
// says its kind) whose content is data. It fails with [ErrUnsupported]
// for other kinds, and with a message for content it cannot read (a
// damaged PDF, text that is not UTF-8). It never panics, whatever data
// holds. ctx bounds the conversion of HTML.
func Extract(ctx context.Context, name string, data []byte) (*Text, error) {
	kind := KindOf(name)
	switch kind {
	case KindMarkdown, KindText:
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return nil, fmt.Errorf("%s: not UTF-8 text", name)
		}
		body := normalizeNewlines(string(data))
		t := &Text{Kind: kind, Body: body}
		if kind == KindMarkdown {
			t.Title = markdownTitle(body)
		}
		return t, nil
	case KindHTML:
		doc := readable.Decode(data, "text/html")
		a, err := readable.Extract(ctx, doc, &url.URL{Scheme: "file", Path: "/" + name}, readable.Markdown)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &Text{Kind: kind, Title: a.Title, Body: normalizeNewlines(a.Content)}, nil
	case KindPDF:
		return extractPDF(name, data)
	}
	return nil, fmt.Errorf("%s: %w", name, ErrUnsupported)
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// markdownTitle returns the text of the first ATX heading of a Markdown
// document outside code fences, or "".
func markdownTitle(body string) string {
	fence := ""
	for line := range strings.SplitSeq(body, "\n") {
		if f, ok := fenceOf(line, fence); ok {
			fence = f
			continue
		}
		if fence != "" {
			continue
		}
		if level, title := headingOf(line); level > 0 {
			return title
		}
	}
	return ""
}

// extractPDF returns the text of a PDF, page after page. The PDF library
// panics on some damaged files; a panic becomes an error.
func extractPDF(name string, data []byte) (t *Text, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("%s: the PDF cannot be read: %v", name, r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: the PDF cannot be read: %w", name, err)
	}
	t = &Text{Kind: KindPDF}
	var b strings.Builder
	line := 1
	for i := 1; i <= r.NumPage(); i++ {
		text, err := r.Page(i).GetPlainText(nil)
		if err != nil {
			return nil, fmt.Errorf("%s: page %d cannot be read: %w", name, i, err)
		}
		text = strings.ToValidUTF8(strings.Trim(normalizeNewlines(text), "\n"), "\uFFFD")
		text = strings.ReplaceAll(text, "\x00", "")
		if b.Len() > 0 {
			b.WriteByte('\n')
			line++
		}
		t.Pages = append(t.Pages, line)
		b.WriteString(text)
		line += strings.Count(text, "\n")
	}
	t.Body = b.String()
	if first, _, _ := strings.Cut(strings.TrimSpace(t.Body), "\n"); len(first) <= 200 {
		t.Title = strings.TrimSpace(first)
	}
	return t, nil
}
