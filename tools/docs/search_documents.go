package docs

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/tool"
)

//go:embed search_documents.md
var searchDescription string

// MaxK is the most hits one search_documents call returns.
const MaxK = 50

// SearchInput is search_documents' argument object.
type SearchInput struct {
	Query      string `json:"query" jsonschema:"what to look for, in the words a passage about it would use"`
	Collection string `json:"collection,omitempty" jsonschema:"the collection to search; empty searches all"`
	K          int    `json:"k,omitempty" jsonschema:"how many hits to return"`
	Filter     string `json:"filter,omitempty" jsonschema:"a glob over document paths, such as docs/**/*.md"`
}

// NewSearch returns search_documents, which finds passages in the
// indexed documents.
func NewSearch(cfg Config) *tool.Tool {
	var d strings.Builder
	template.Must(template.New("search_documents.md").Option("missingkey=error").Parse(searchDescription)).
		Execute(&d, map[string]int{"DefaultK": retrieval.DefaultK, "MaxK": MaxK})
	return tool.New(tool.Spec{Name: "search_documents", Effect: tool.EffectRead, Description: d.String(),
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.search)
}

func (cfg Config) search(ctx context.Context, _ *tool.Call, in SearchInput) (tool.Result, error) {
	if cfg.Library == nil {
		return tool.Failure(errNoLibrary.Error()), nil
	}
	if in.K < 0 || in.K > MaxK {
		return tool.Failure(fmt.Sprintf("k is %d: give 1 to %d", in.K, MaxK)), nil
	}
	if in.Collection != "" {
		if err := retrieval.ValidCollection(in.Collection); err != nil {
			return tool.Failure(err.Error()), nil
		}
	}
	hits, err := cfg.Library.Search(ctx, retrieval.Query{Text: in.Query, Collection: in.Collection, K: in.K,
		Filter: retrieval.Filter{Paths: in.Filter}})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, err
		}
		return tool.Failure(err.Error()), nil
	}
	if len(hits) == 0 {
		cols, _ := cfg.Library.Collections()
		if len(cols) == 0 {
			return tool.Text("No documents are indexed yet: index_documents indexes them."), nil
		}
		return tool.Text("No passages match. Try other words, or list_documents to see what is indexed."), nil
	}
	return FormatHits(hits, cfg.budget()), nil
}

// FormatHits renders hits for the model within budget bytes, leaving out
// (and counting) the hits that do not fit. Its Data lists the hits shown.
func FormatHits(hits []retrieval.Hit, budget int) tool.Result {
	var b strings.Builder
	shown := 0
	for i, h := range hits {
		entry := formatHit(i+1, &h)
		if b.Len()+len(entry) > budget && shown > 0 {
			break
		}
		if len(entry) > budget {
			entry = textcut.Head(entry, budget) + "\n" // one hit larger than the budget: cut, not lost
		}
		b.WriteString(entry)
		shown++
	}
	if shown < len(hits) {
		fmt.Fprintf(&b, "(%d more hits left out for space: ask for fewer with k, or narrow with filter)\n", len(hits)-shown)
	}
	data := make([]hitData, shown)
	for i, h := range hits[:shown] {
		data[i] = hitData{ID: h.ID(), Path: h.Path, Collection: h.Collection, StartLine: h.StartLine, EndLine: h.EndLine,
			StartPage: h.StartPage, EndPage: h.EndPage, Heading: h.Heading, Score: h.Score}
	}
	return tool.Result{Success: true, Output: strings.TrimRight(b.String(), "\n"), Data: map[string]any{"hits": data}}
}

// hitData is a hit in a result's Data: where it is, not its text.
type hitData struct {
	ID         string  `json:"id"`
	Path       string  `json:"path"`
	Collection string  `json:"collection"`
	StartLine  int     `json:"start_line"`
	EndLine    int     `json:"end_line"`
	StartPage  int     `json:"start_page,omitempty"`
	EndPage    int     `json:"end_page,omitempty"`
	Heading    string  `json:"heading,omitempty"`
	Score      float64 `json:"score"`
}

func formatHit(n int, h *retrieval.Hit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s, %s (id %s, collection %s, score %.4g)\n", n, h.Path, location(&h.Chunk), h.ID(), h.Collection, h.Score)
	if h.Heading != "" {
		fmt.Fprintf(&b, "under: %s\n", h.Heading)
	}
	b.WriteString(strings.TrimSpace(h.Text))
	b.WriteString("\n\n")
	return b.String()
}
