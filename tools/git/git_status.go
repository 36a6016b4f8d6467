package git

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_status.md
var statusDescription string

// StatusInput is the argument object of git_status; it has no fields.
type StatusInput struct{}

// NewStatus returns git_status: the branch, its upstream and the changed
// files, in git's short format. It is read-only and parallel-safe.
func NewStatus(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_status",
		Effect:       tool.EffectRead,
		Description:  r.description("git_status", statusDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.status)
}

func (r *runner) status(ctx context.Context, c *tool.Call, _ StatusInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	return r.result(ctx, dir, request{args: []string{"status", "--short", "--branch", "--untracked-files=normal", "--ignore-submodules=dirty"}, read: true}, "(clean)"), nil
}
