package git

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_blame.md
var blameDescription string

// BlameInput is the argument object of git_blame.
type BlameInput struct {
	Path  string `json:"path" jsonschema:"the file, relative to the workspace root"`
	Range string `json:"range,omitempty" jsonschema:"the lines to blame: START-END (such as 10-20) or START; default the whole file"`
}

// NewBlame returns git_blame: for each line of a file (or of a range of
// its lines), the commit, author and date that last changed it. It is
// read-only and parallel-safe.
func NewBlame(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_blame",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"path"},
		Description:  r.description("git_blame", blameDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.blame)
}

func (r *runner) blame(ctx context.Context, c *tool.Call, in BlameInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	p, err := workspacePath(c.Root, dir, in.Path)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	lines, err := parseRange(in.Range)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	args := []string{"blame", "--no-textconv", "--date=short"}
	if lines != "" {
		args = append(args, "-L", lines)
	}
	args = append(args, "--", p)
	return r.result(ctx, dir, request{args: args, read: true}, "(empty file)"), nil
}
