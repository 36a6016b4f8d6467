package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed get_pull_request_diff.md
var getPullRequestDiffDescription string

// PullRequestInput is the argument object of github_get_pull_request_diff
// and github_get_pull_request_checks.
type PullRequestInput struct {
	Number int    `json:"number" jsonschema:"the pull request number"`
	Repo   string `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// getPullRequestDiff returns github_get_pull_request_diff.
func (g *client) getPullRequestDiff() *tool.Tool {
	return tool.New(g.spec("github_get_pull_request_diff", getPullRequestDiffDescription, readOnly), g.diff)
}

func (g *client) diff(ctx context.Context, c *tool.Call, in PullRequestInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if in.Number <= 0 {
		return tool.Failure("number must be a pull request number, from 1"), nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	what := fmt.Sprintf("pull request #%d in %s", in.Number, r)
	diff, resp, err := g.api.PullRequests.GetRaw(ctx, r.Owner, r.Name, in.Number, githubsdk.RawOptions{Type: githubsdk.Diff})
	if err != nil {
		return g.failure(ctx, err, what), nil
	}
	if strings.TrimSpace(diff) == "" {
		return tool.Result{Success: true, Output: "(the pull request changes nothing)"}, nil
	}
	if len(diff) > g.cfg.MaxDiff {
		diff = strings.ToValidUTF8(diff[:g.cfg.MaxDiff], "") +
			fmt.Sprintf("\n[diff cut at %d KiB of %d KiB; check out the branch and use git_diff with a path to read the rest]", g.cfg.MaxDiff>>10, len(diff)>>10)
	}
	return tool.Result{Success: true, Output: untrusted(diff) + g.rateNote(resp)}, nil
}
