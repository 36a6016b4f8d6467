package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed list_pull_requests.md
var listPullRequestsDescription string

// ListPullRequestsInput is the argument object of
// github_list_pull_requests.
type ListPullRequestsInput struct {
	State string `json:"state,omitempty" enum:"open,closed,all" jsonschema:"which pull requests: open (default), closed or all"`
	Base  string `json:"base,omitempty" jsonschema:"only those into this branch"`
	Head  string `json:"head,omitempty" jsonschema:"only those from this branch, as OWNER:BRANCH"`
	Limit int    `json:"limit,omitempty" jsonschema:"the number to list, most recently updated first"`
	Repo  string `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// listPullRequests returns github_list_pull_requests.
func (g *client) listPullRequests() *tool.Tool {
	return tool.New(g.spec("github_list_pull_requests", listPullRequestsDescription, readOnly), g.pulls)
}

func (g *client) pulls(ctx context.Context, c *tool.Call, in ListPullRequestsInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	n, err := limit(in.Limit)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	state := in.State
	if state == "" {
		state = "open"
	}
	prs, resp, err := collect(n, func(o githubsdk.ListOptions) ([]*githubsdk.PullRequest, *githubsdk.Response, error) {
		return g.api.PullRequests.List(ctx, r.Owner, r.Name, &githubsdk.PullRequestListOptions{
			State: state, Base: in.Base, Head: in.Head, Sort: "updated", Direction: "desc", ListOptions: o,
		})
	})
	if err != nil {
		return g.failure(ctx, err, "the pull requests of "+r.String()), nil
	}
	if len(prs) == 0 {
		return tool.Result{Success: true, Output: fmt.Sprintf("No %s pull requests in %s.", state, r) + g.rateNote(resp)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s pull requests in %s, most recently updated first:\n", len(prs), state, r)
	for _, pr := range prs {
		st := pr.GetState()
		switch {
		case !pr.GetMergedAt().IsZero():
			st = "merged"
		case pr.GetDraft():
			st += ", draft"
		}
		fmt.Fprintf(&b, "#%d %s (%s) %s -> %s by %s, updated %s%s\n    %s\n",
			pr.GetNumber(), pr.GetTitle(), st, pr.GetHead().GetLabel(), pr.GetBase().GetRef(), login(pr.GetUser()), day(pr.GetUpdatedAt()), labels(pr.Labels), pr.GetHTMLURL())
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
}
