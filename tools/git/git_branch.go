package git

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_branch.md
var branchDescription string

// BranchInput is the argument object of git_branch.
type BranchInput struct {
	All bool `json:"all,omitempty" jsonschema:"list the remote-tracking branches too"`
}

// NewBranch returns git_branch: the local branches (and, with all, the
// remote-tracking ones) with their last commits, the current one marked.
// It is read-only and parallel-safe; it creates no branch: git_checkout
// does.
func NewBranch(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_branch",
		Effect:       tool.EffectRead,
		Description:  r.description("git_branch", branchDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.branch)
}

func (r *runner) branch(ctx context.Context, c *tool.Call, in BranchInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	args := []string{"branch", "--list", "--no-color", "-vv"}
	if in.All {
		args = append(args, "--all")
	}
	return r.result(ctx, dir, request{args: args, read: true}, "(no branches yet: the repository has no commits)"), nil
}
