package git

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_add.md
var addDescription string

// AddInput is the argument object of git_add.
type AddInput struct {
	Paths []string `json:"paths" jsonschema:"the files or directories to stage, relative to the workspace root"`
}

// NewAdd returns git_add: it stages files (new, changed or deleted) for
// the next commit and lists what is staged then. It changes the index
// only, which git_diff with staged shows and which is easy to undo, so it
// is not annotated destructive; it is not read-only either, so a policy
// asks before it runs unless a rule allows it.
func NewAdd(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_add",
		Effect:       tool.EffectState,
		KeyArgs:      []string{"paths"},
		Description:  r.description("git_add", addDescription),
		OutputSchema: tool.SchemaOf[Data](),
	}, r.add)
}

func (r *runner) add(ctx context.Context, c *tool.Call, in AddInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	if len(in.Paths) == 0 {
		return tool.Failure("paths is empty: name the files to stage"), nil
	}
	args := []string{"add", "--"}
	for _, p := range in.Paths {
		rel, err := workspacePath(c.Root, dir, p)
		if err != nil {
			return tool.Failure(err.Error()), nil
		}
		args = append(args, rel)
	}
	out, err := r.run(ctx, dir, request{args: args})
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if out.exitCode != 0 {
		return r.render(request{args: args}, out, ""), nil
	}
	staged := request{args: []string{"diff", "--cached", "--name-status", "--no-color", "--no-renames", "--no-ext-diff", "--no-textconv"}, read: true}
	res := r.result(ctx, dir, staged, "(nothing staged: the paths have no changes)")
	if res.Success {
		res.Output = "Staged. Now staged for the next commit:\n" + res.Output
	}
	return res, nil
}
