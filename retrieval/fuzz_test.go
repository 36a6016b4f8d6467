package retrieval

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSplit checks the chunker's promises on any text: chunks come in
// order, within the text, no longer than MaxChars; together they cover
// every byte that is not white space; a chunk that follows another of
// its section repeats at most Overlap bytes of it; and their line
// numbers are those of their first and last bytes.
func FuzzSplit(f *testing.F) {
	f.Add("# Title\n\nSome text.\n\n## Part\n\nMore text here.\n", true, 64, 16)
	f.Add("```\n# not a heading\n```\n# Real\nbody\n", true, 64, 0)
	f.Add(strings.Repeat("word ", 200), false, 100, 30)
	f.Add(strings.Repeat("ü", 300)+"\n\n\n", false, 65, -1)
	f.Add("## a\n## b\n### c\n\ntext\n", true, 200, 50)
	f.Fuzz(func(t *testing.T, body string, markdown bool, maxChars, overlap int) {
		kind := KindText
		if markdown {
			kind = KindMarkdown
		}
		opts := ChunkOptions{MaxChars: maxChars % 5000, Overlap: overlap % 5000}
		eff := opts.withDefaults()
		text := &Text{Kind: kind, Body: body}
		spans := Split(text, opts)
		covered := make([]bool, len(body))
		for i, s := range spans {
			if s.Start < 0 || s.End > len(body) || s.Start >= s.End {
				t.Fatalf("span %d = [%d,%d) is not within the text of %d bytes", i, s.Start, s.End, len(body))
			}
			if s.End-s.Start > eff.MaxChars {
				t.Fatalf("span %d has %d bytes, more than MaxChars %d", i, s.End-s.Start, eff.MaxChars)
			}
			if strings.TrimSpace(body[s.Start:s.End]) == "" {
				t.Fatalf("span %d is white space only", i)
			}
			if want := 1 + strings.Count(body[:s.Start], "\n"); s.StartLine != want {
				t.Fatalf("span %d starts on line %d, want %d", i, s.StartLine, want)
			}
			if want := 1 + strings.Count(body[:s.End-1], "\n"); s.EndLine != want {
				t.Fatalf("span %d ends on line %d, want %d", i, s.EndLine, want)
			}
			if i > 0 {
				p := spans[i-1]
				if s.Start <= p.Start || s.End <= p.End {
					t.Fatalf("span %d [%d,%d) does not follow span %d [%d,%d)", i, s.Start, s.End, i-1, p.Start, p.End)
				}
				if p.End-s.Start > eff.Overlap {
					t.Fatalf("span %d repeats %d bytes of the span before, more than Overlap %d", i, p.End-s.Start, eff.Overlap)
				}
			}
			if utf8.ValidString(body) && !utf8.ValidString(body[s.Start:s.End]) {
				t.Fatalf("span %d cuts a character: %q", i, body[s.Start:s.End])
			}
			for j := s.Start; j < s.End; j++ {
				covered[j] = true
			}
		}
		for j, c := range []byte(body) {
			if !covered[j] && !unicode.IsSpace(rune(c)) && c < utf8.RuneSelf {
				t.Fatalf("byte %d (%q) is in no chunk", j, c)
			}
		}
		for j := 0; j < len(body); {
			r, n := utf8.DecodeRuneInString(body[j:])
			if !covered[j] && !unicode.IsSpace(r) {
				t.Fatalf("character at %d (%q) is in no chunk", j, r)
			}
			j += n
		}
	})
}

// FuzzExtract feeds any bytes to every extractor: none may panic, and
// what they return is valid UTF-8 with pages in order.
func FuzzExtract(f *testing.F) {
	f.Add("a.md", []byte("# T\n\ntext\r\n"))
	f.Add("a.html", []byte("<html><title>x</title><body><h1>H</h1><p>para</p><script>x()</script></body></html>"))
	f.Add("a.pdf", makePDF("one\ntwo", "three"))
	f.Add("a.pdf", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Add("a.txt", []byte("\xff\xfe bad"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		exts := []string{".md", ".txt", ".html", ".pdf"}
		name = "f" + exts[len(name)%len(exts)]
		text, err := Extract(t.Context(), name, data)
		if err != nil {
			return
		}
		if !utf8.ValidString(text.Body) {
			t.Fatalf("Extract(%s) body is not UTF-8: %q", name, text.Body)
		}
		last := 0
		for _, p := range text.Pages {
			if p <= last {
				t.Fatalf("pages start on lines %v, not in order", text.Pages)
			}
			last = p
		}
		if last > text.Lines()+1 {
			t.Fatalf("a page starts on line %d of %d", last, text.Lines())
		}
		Split(text, ChunkOptions{})
	})
}

// FuzzTerms checks the tokenizer's fast path for ASCII against the
// general one: the same terms, in order, for any text.
func FuzzTerms(f *testing.F) {
	f.Add("Hello, World! queries INDEXES café 42")
	f.Add("ÀÉÎ straße ǅ")
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		eachTerm(s, func(w string) { got = append(got, w) })
		var want []string
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(w) > maxTermBytes {
				continue
			}
			var b strings.Builder
			for _, r := range w {
				b.WriteRune(unicode.ToLower(r))
			}
			if l := singular(b.String()); !stopword(l) {
				want = append(want, l)
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("eachTerm(%q) = %q, want %q", s, got, want)
		}
	})
}
