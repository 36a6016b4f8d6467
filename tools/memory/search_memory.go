package memory

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/tool"
)

//go:embed search_memory.md
var searchDescription string

// MaxLimit is the most notes one search_memory call returns.
const MaxLimit = 50

// maxSnippet is how many runes of each note's body a search shows.
const maxSnippet = 400

// SearchInput is search_memory's argument object.
type SearchInput struct {
	Query string   `json:"query,omitempty" jsonschema:"words to look for; empty lists the newest notes the filters keep"`
	Tags  []string `json:"tags,omitempty" jsonschema:"keep notes that have all of these tags"`
	Scope string   `json:"scope,omitempty" enum:"project,user" jsonschema:"keep one scope's notes; empty searches both"`
	Since string   `json:"since,omitempty" jsonschema:"keep notes modified on or after this date, YYYY-MM-DD"`
	Limit int      `json:"limit,omitempty" jsonschema:"how many notes to return"`
}

// SearchMemory returns search_memory, which searches the notes.
func SearchMemory(cfg Config) *tool.Tool {
	var d strings.Builder
	template.Must(template.New("search_memory.md").Option("missingkey=error").Parse(searchDescription)).
		Execute(&d, map[string]int{"DefaultLimit": memory.DefaultLimit, "MaxLimit": MaxLimit})
	return tool.New(tool.Spec{Name: "search_memory", Effect: tool.EffectRead, KeyArgs: []string{"query"}, Description: d.String(),
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.search)
}

func (cfg Config) search(ctx context.Context, _ *tool.Call, in SearchInput) (tool.Result, error) {
	if cfg.Store == nil {
		return tool.Failure(errNoStore.Error()), nil
	}
	q := memory.Query{Text: in.Query, Tags: in.Tags, Limit: min(max(in.Limit, 0), MaxLimit)}
	if in.Scope != "" {
		var err error
		if q.Scope, err = memory.ParseScope(in.Scope); err != nil {
			return tool.Failure(err.Error()), nil
		}
	}
	if in.Since != "" {
		t, err := time.Parse(time.DateOnly, in.Since)
		if err != nil {
			return tool.Failure(fmt.Sprintf("since %q is not a date: write YYYY-MM-DD", in.Since)), nil
		}
		q.Since = t
	}
	hits, err := cfg.Store.Search(ctx, q)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if len(hits) == 0 {
		return tool.Text("No notes match."), nil
	}
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(header(&h.Note) + "\n" + snippet(h.Note.Body))
	}
	return tool.Text(b.String()), nil
}

// snippet returns body cut to maxSnippet runes.
func snippet(body string) string {
	body = strings.TrimSpace(body)
	r := []rune(body)
	if len(r) <= maxSnippet {
		return body
	}
	return string(r[:maxSnippet]) + "… (read_memory shows the rest)"
}
