package git

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_show.md
var showDescription string

// ShowInput is the argument object of git_show.
type ShowInput struct {
	Ref string `json:"ref,omitempty" jsonschema:"the commit, branch or tag to show; default HEAD"`
}

// NewShow returns git_show: one commit's message, the files it changed
// and its diff. It is read-only and parallel-safe.
func NewShow(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_show",
		Effect:       tool.EffectRead,
		Description:  r.description("git_show", showDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.show)
}

func (r *runner) show(ctx context.Context, c *tool.Call, in ShowInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	ref := in.Ref
	if ref == "" {
		ref = "HEAD"
	}
	if err := checkRef("ref", ref); err != nil {
		return tool.Failure(err.Error()), nil
	}
	args := []string{"show", "--no-color", "--no-ext-diff", "--no-textconv", "--stat", "--patch", "--format=fuller", "--end-of-options", ref}
	return r.result(ctx, dir, request{args: args, read: true}, "(nothing to show)"), nil
}
