package retrieval

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// makePDF returns a PDF with one page per text, each line of a text in
// Helvetica on a line of its own: enough for the PDF reader.
func makePDF(pages ...string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(pages)
	// 1 catalog, 2 pages, 3 font, then a page and its content per text.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids []string
	for i := range n {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		var s strings.Builder
		s.WriteString("BT /F1 12 Tf 14 TL 72 720 Td\n")
		for _, line := range strings.Split(text, "\n") {
			r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
			fmt.Fprintf(&s, "(%s) Tj T*\n", r.Replace(line))
		}
		s.WriteString("ET")
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", s.Len(), s.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

func TestExtractPDF(t *testing.T) {
	data := makePDF("Annual report\nRevenue grew.", "Outlook\nHiring continues in spring.")
	text, err := Extract(t.Context(), "report.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if text.Kind != KindPDF || len(text.Pages) != 2 || text.Title != "Annual report" {
		t.Fatalf("Extract = %+v, want a PDF of 2 pages titled Annual report", text)
	}
	if !strings.Contains(text.Body, "Hiring continues in spring.") {
		t.Errorf("body %q lacks the second page's text", text.Body)
	}
	line := 0
	for i, l := range strings.Split(text.Body, "\n") {
		if strings.Contains(l, "Hiring") {
			line = i + 1
		}
	}
	if got := text.PageOf(line); got != 2 {
		t.Errorf("PageOf(%d) = %d, want 2 (pages start on lines %v)", line, got, text.Pages)
	}

	for _, bad := range [][]byte{nil, []byte("%PDF-1.4\ngarbage"), data[:len(data)/2]} {
		if _, err := Extract(t.Context(), "bad.pdf", bad); err == nil {
			t.Errorf("Extract(%q…) succeeded on a damaged PDF", bad[:min(len(bad), 20)])
		}
	}
}

func TestIndexPDFCitesPages(t *testing.T) {
	root, lib := openWorkspace(t, map[string]string{
		"r.pdf": string(makePDF("Annual report\nRevenue grew.", "Outlook\nHiring continues in spring.")),
	}, Config{Chunking: ChunkOptions{MaxChars: 64}})
	if _, err := lib.Index(t.Context(), root, "default", []string{"."}, nil); err != nil {
		t.Fatal(err)
	}
	hits, err := lib.Search(t.Context(), Query{Text: "hiring spring"})
	if err != nil || len(hits) == 0 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
	if h := hits[0]; h.StartPage != 2 || h.EndPage != 2 {
		t.Errorf("hit %s is on pages %d-%d, want 2-2", h.ID(), h.StartPage, h.EndPage)
	}
}
