package docs

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/tool"
)

//go:embed list_documents.md
var listDescription string

// MaxListed is the most documents one list_documents call shows.
const MaxListed = 500

// ListInput is list_documents' argument object.
type ListInput struct {
	Collection string `json:"collection,omitempty" jsonschema:"the collection whose documents to list; empty lists the collections"`
}

// NewList returns list_documents, which lists the collections or the
// documents of one.
func NewList(cfg Config) *tool.Tool {
	var d strings.Builder
	template.Must(template.New("list_documents.md").Option("missingkey=error").Parse(listDescription)).
		Execute(&d, map[string]int{"MaxListed": MaxListed})
	return tool.New(tool.Spec{Name: "list_documents", Effect: tool.EffectRead, Description: d.String(),
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.list)
}

func (cfg Config) list(ctx context.Context, _ *tool.Call, in ListInput) (tool.Result, error) {
	if cfg.Library == nil {
		return tool.Failure(errNoLibrary.Error()), nil
	}
	if in.Collection == "" {
		return cfg.listCollections(ctx)
	}
	if err := retrieval.ValidCollection(in.Collection); err != nil {
		return tool.Failure(err.Error()), nil
	}
	docs, err := cfg.Library.Documents(ctx, in.Collection)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if len(docs) == 0 {
		return tool.Text(fmt.Sprintf("Collection %s has no documents: index_documents adds them.", in.Collection)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Collection %s: %s\n", in.Collection, count(len(docs), "document"))
	budget := cfg.budget()
	for i, d := range docs {
		line := documentLine(&d)
		if i == MaxListed || b.Len()+len(line) > budget {
			fmt.Fprintf(&b, "… and %d more documents\n", len(docs)-i)
			break
		}
		b.WriteString(line)
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}

func documentLine(d *retrieval.Document) string {
	size := count(d.Lines, "line")
	if d.Pages > 0 {
		size = count(d.Pages, "page")
	}
	title := ""
	if d.Title != "" {
		title = fmt.Sprintf(" %q", d.Title)
	}
	return fmt.Sprintf("- %s (%s, %s, %s, indexed %s)%s\n", d.Path, d.Kind, size, count(d.Chunks, "chunk"), d.Indexed.Format("2006-01-02 15:04"), title)
}

func (cfg Config) listCollections(ctx context.Context) (tool.Result, error) {
	names, err := cfg.Library.Collections()
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if len(names) == 0 {
		return tool.Text("No documents are indexed yet: index_documents indexes them."), nil
	}
	var b strings.Builder
	for _, n := range names {
		docs, err := cfg.Library.Documents(ctx, n)
		if err != nil {
			fmt.Fprintf(&b, "- %s: cannot be read: %v\n", n, err)
			continue
		}
		chunks := 0
		for _, d := range docs {
			chunks += d.Chunks
		}
		fmt.Fprintf(&b, "- %s: %s, %s\n", n, count(len(docs), "document"), count(chunks, "chunk"))
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}
