package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/git"
)

//go:embed create_pull_request.md
var createPullRequestDescription string

// CreatePullRequestInput is the argument object of
// github_create_pull_request.
type CreatePullRequestInput struct {
	Title string `json:"title" jsonschema:"a short title saying what the change does"`
	Body  string `json:"body,omitempty" jsonschema:"the description, in GitHub Markdown: what changed, why, how it was tested; 'Fixes #N' closes issue N on merge"`
	Base  string `json:"base,omitempty" jsonschema:"the branch to merge into; default the repository's default branch"`
	Draft bool   `json:"draft,omitempty" jsonschema:"open it as a draft, not ready for review"`
}

// createPullRequest returns github_create_pull_request.
func (g *client) createPullRequest() *tool.Tool {
	spec := g.spec("github_create_pull_request", createPullRequestDescription, destructive)
	spec.OutputSchema = tool.SchemaOf[Created]()
	return tool.New(spec, g.newPullRequest)
}

func (g *client) newPullRequest(ctx context.Context, c *tool.Call, in CreatePullRequestInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if strings.TrimSpace(in.Title) == "" {
		return tool.Failure("title is empty: say in a few words what the change does"), nil
	}
	if fail := g.needToken(); fail != nil {
		return *fail, nil
	}
	dir, err := workspaceDir(c)
	if err != nil {
		return tool.Failure("a pull request is opened from the workspace's current branch, and " + err.Error()), nil
	}
	head, err := git.CurrentBranch(ctx, dir)
	if err != nil {
		return tool.Failure("the current branch cannot be found: " + err.Error()), nil
	}
	r, err := g.target(ctx, c, "")
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	base := in.Base
	if base == "" {
		repo, _, err := g.api.Repositories.Get(ctx, r.Owner, r.Name)
		if err != nil {
			return g.failure(ctx, err, "repository "+r.String()), nil
		}
		base = repo.GetDefaultBranch()
	}
	if head == base {
		return tool.Failure(fmt.Sprintf("the current branch is %s, the base itself: create a branch for the change (git_checkout with create), commit to it, push it, then open the pull request", head)), nil
	}
	pr, resp, err := g.api.PullRequests.Create(ctx, r.Owner, r.Name, &githubsdk.NewPullRequest{
		Title: githubsdk.Ptr(in.Title), Head: githubsdk.Ptr(head), Base: githubsdk.Ptr(base),
		Body: githubsdk.Ptr(in.Body), Draft: githubsdk.Ptr(in.Draft),
	})
	if err != nil {
		res := g.failure(ctx, err, fmt.Sprintf("a pull request from %s into %s in %s", head, base, r))
		if strings.Contains(res.Error, "(422)") {
			res.Error += fmt.Sprintf("; if GitHub does not know the branch, push it first (git push -u %s %s); if a pull request from it is open already, find it with github_list_pull_requests", g.cfg.Remote, head)
		}
		return res, nil
	}
	out := fmt.Sprintf("Opened pull request #%d in %s from %s into %s: %s", pr.GetNumber(), r, head, base, pr.GetHTMLURL())
	return tool.Result{Success: true, Output: out + g.rateNote(resp), Data: Created{Number: pr.GetNumber(), URL: pr.GetHTMLURL()}}, nil
}
