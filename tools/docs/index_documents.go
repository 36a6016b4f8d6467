package docs

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/tool"
)

//go:embed index_documents.md
var indexDescription string

// IndexTimeout bounds one index_documents call: a large tree takes a
// while the first time.
const IndexTimeout = 10 * time.Minute

// maxSkippedShown is how many skipped documents a result names.
const maxSkippedShown = 20

// IndexInput is index_documents' argument object.
type IndexInput struct {
	Paths      []string `json:"paths" jsonschema:"files or directories to index, relative to the workspace root; \".\" for all of it"`
	Collection string   `json:"collection,omitempty" jsonschema:"the collection to index into: lower-case letters, digits, '.', '-' and '_'; empty means default"`
}

// NewIndex returns index_documents, which indexes documents into a
// collection.
func NewIndex(cfg Config) *tool.Tool {
	var d strings.Builder
	template.Must(template.New("index_documents.md").Option("missingkey=error").Parse(indexDescription)).
		Execute(&d, map[string]any{"DefaultCollection": retrieval.DefaultCollection, "MaxFileMiB": retrieval.DefaultMaxFileBytes >> 20})
	return tool.New(tool.Spec{Name: "index_documents", Effect: tool.EffectRead | tool.EffectState, Description: d.String(), Timeout: IndexTimeout}, cfg.index)
}

func (cfg Config) index(ctx context.Context, c *tool.Call, in IndexInput) (tool.Result, error) {
	if cfg.Library == nil {
		return tool.Failure(errNoLibrary.Error()), nil
	}
	if c == nil || c.Root == nil {
		return tool.Failure(errNoWorkspace.Error()), nil
	}
	if len(in.Paths) == 0 {
		return tool.Failure(`paths is empty: give files or directories to index, such as ["docs"] or ["."]`), nil
	}
	collection := collectionOrDefault(in.Collection)
	if err := retrieval.ValidCollection(collection); err != nil {
		return tool.Failure(err.Error()), nil
	}
	rep, err := cfg.Library.Index(ctx, c.Root, collection, in.Paths, nil)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, err
		}
		return tool.Failure(err.Error()), nil
	}
	return tool.Result{Success: true, Output: Summary(rep), Data: rep}, nil
}

// Summary describes what an indexing run did, in a few lines.
func Summary(rep *retrieval.IndexReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Collection %s: %s (%d added, %d updated, %d unchanged, %d removed; %s written)",
		rep.Collection, count(rep.Documents, "document"), rep.Added, rep.Updated, rep.Unchanged, rep.Removed, count(rep.Chunks, "chunk"))
	if rep.Ignored > 0 {
		fmt.Fprintf(&b, "; %s of other kinds ignored", count(rep.Ignored, "file"))
	}
	b.WriteString(".")
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(&b, "\n%s could not be indexed:", count(len(rep.Skipped), "document"))
		for i, s := range rep.Skipped {
			if i == maxSkippedShown {
				fmt.Fprintf(&b, "\n- … and %d more", len(rep.Skipped)-i)
				break
			}
			fmt.Fprintf(&b, "\n- %s: %s", s.Path, s.Reason)
		}
	}
	return b.String()
}
