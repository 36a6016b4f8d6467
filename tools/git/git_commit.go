package git

import (
	"context"
	_ "embed"
	"strings"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_commit.md
var commitDescription string

// CommitInput is the argument object of git_commit.
type CommitInput struct {
	Message string `json:"message" jsonschema:"the commit message: a short subject line, then a blank line and a body if needed"`
}

// NewCommit returns git_commit: it records the staged changes as a new
// commit on the current branch. It refuses when nothing is staged, and
// it never amends or pushes: its argument vector is fixed,
// and the message goes to git on standard input. It runs the
// repository's hooks only if cfg.RunHooks. A policy asks before it runs
// unless a rule allows it.
func NewCommit(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_commit",
		Effect:       tool.EffectState,
		Description:  r.description("git_commit", commitDescription),
		OutputSchema: tool.SchemaOf[Data](),
	}, r.commit)
}

func (r *runner) commit(ctx context.Context, c *tool.Call, in CommitInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	if strings.TrimSpace(in.Message) == "" {
		return tool.Failure("message is empty: say what the commit changes and why"), nil
	}
	staged := request{args: []string{"diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv"}, read: true}
	out, err := r.run(ctx, dir, staged)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	switch out.exitCode {
	case 0:
		// Nothing staged. Concluding a merge may still be a commit.
		merging := request{args: []string{"rev-parse", "--quiet", "--verify", "MERGE_HEAD"}, read: true}
		if m, err := r.run(ctx, dir, merging); err != nil || m.exitCode != 0 {
			return tool.Failure("nothing is staged, and git_commit never makes an empty commit: stage the changes with git_add first (git_status shows what changed)"), nil
		}
	case 1:
		// Changes are staged.
	default:
		return r.render(staged, out, ""), nil
	}
	req := request{args: []string{"commit", "--file=-", "--cleanup=strip"}, hooks: true, stdin: in.Message}
	return r.result(ctx, dir, req, "Committed."), nil
}
