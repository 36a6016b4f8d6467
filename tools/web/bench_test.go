package web

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExtract measures the extraction of one page of the web-pages
// corpus into Markdown (readability, then html-to-markdown), one
// sub-benchmark per page, with its allocations. bench/web.sh runs it and
// prints the median and 95th percentile over the pages.
func BenchmarkExtract(b *testing.B) {
	dir := conformanceDir(b, "web-pages")
	u, _ := url.Parse("https://example.com/article")
	for _, name := range corpusPages(b, dir) {
		src, err := os.ReadFile(filepath.Join(dir, name, "source.html"))
		if err != nil {
			b.Fatal(err)
		}
		doc := decode(src, "text/html; charset=utf-8")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := extractHTML(b.Context(), doc, u, formatMarkdown); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
