package git

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

	"github.com/wieldhq/wield/tool"
)

//go:embed git_log.md
var logDescription string

// LogInput is the argument object of git_log.
type LogInput struct {
	Path  string `json:"path,omitempty" jsonschema:"list only the commits that changed this file or directory, relative to the workspace root"`
	Limit int    `json:"limit,omitempty" jsonschema:"the number of commits to list, newest first"`
}

// NewLog returns git_log: the latest commits of the current branch, one
// line each, optionally only those that changed a path. It is read-only
// and parallel-safe.
func NewLog(cfg Config) *tool.Tool {
	r := newRunner(cfg)
	return tool.New(tool.Spec{
		Name:         "git_log",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"path"},
		Description:  r.description("git_log", logDescription),
		OutputSchema: tool.SchemaOf[Data](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.log)
}

func (r *runner) log(ctx context.Context, c *tool.Call, in LogInput) (tool.Result, error) {
	dir, fail := callDir(c)
	if fail != nil {
		return *fail, nil
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultLogLimit
	case limit < 0 || limit > MaxLogLimit:
		return tool.Failure(fmt.Sprintf("limit must be between 1 and %d", MaxLogLimit)), nil
	}
	args := []string{"log", "--no-color", "--date=short", "--format=%h %ad %an%d%n    %s", "-n", strconv.Itoa(limit), "--"}
	if in.Path != "" {
		p, err := workspacePath(c.Root, dir, in.Path)
		if err != nil {
			return tool.Failure(err.Error()), nil
		}
		args = append(args, p)
	}
	return r.result(ctx, dir, request{args: args, read: true}, "(no commits)"), nil
}
