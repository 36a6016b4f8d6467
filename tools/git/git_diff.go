package git

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_diff.md
var diffDescription string

// DiffInput is the argument object of git_diff.
type DiffInput struct {
	Staged bool   `json:"staged,omitempty" jsonschema:"show the changes staged for the next commit instead of the unstaged ones"`
	Path   string `json:"path,omitempty" jsonschema:"a file or directory to limit the diff to, relative to the workspace root"`
	Ref    string `json:"ref,omitempty" jsonschema:"compare with this commit, branch or tag (or a range such as main...HEAD) instead of the index"`
}

// NewDiff returns git_diff: the unstaged changes, the staged ones, or
// the changes against a ref, for the whole repository or one path. It is
// read-only and parallel-safe.
func NewDiff(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_diff",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"path"},
		Description:  r.description("git_diff", diffDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.diff)
}

func (r *runner) diff(ctx context.Context, c *tool.Call, in DiffInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}
	if in.Staged {
		args = append(args, "--cached")
	}
	if in.Ref != "" {
		if err := checkRef("ref", in.Ref); err != nil {
			return tool.Failure(err.Error()), nil
		}
		args = append(args, "--end-of-options", in.Ref)
	}
	args = append(args, "--")
	if in.Path != "" {
		p, err := workspacePath(c.Root, dir, in.Path)
		if err != nil {
			return tool.Failure(err.Error()), nil
		}
		args = append(args, p)
	}
	return r.result(ctx, dir, request{args: args, read: true}, "(no changes)"), nil
}
