package viewer

import (
	"io"
	"testing"
)

// BenchmarkOpen measures what opening a session costs the server: reading
// and folding the journal of largeRounds rounds and rendering the first
// chunk, as the page's first request does.
func BenchmarkOpen(b *testing.B) {
	st := newStore(b)
	id := bigSession(b, st, largeRounds)
	tmpl := templates()
	b.ReportAllocs()
	for b.Loop() {
		p, err := loadPage(b.Context(), st, tmpl, id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.json(b.Context(), 0, chunk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExport measures writing a session of largeRounds rounds as one
// HTML file.
func BenchmarkExport(b *testing.B) {
	st := newStore(b)
	id := bigSession(b, st, largeRounds)
	b.ReportAllocs()
	for b.Loop() {
		if err := Export(b.Context(), io.Discard, st, id); err != nil {
			b.Fatal(err)
		}
	}
}
