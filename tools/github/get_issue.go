package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed get_issue.md
var getIssueDescription string

// IssueInput is the argument object of github_get_issue.
type IssueInput struct {
	Number int    `json:"number" jsonschema:"the issue or pull request number"`
	Repo   string `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// getIssue returns github_get_issue.
func (g *client) getIssue() *tool.Tool {
	return tool.New(g.spec("github_get_issue", getIssueDescription, readOnly), g.issue)
}

func (g *client) issue(ctx context.Context, c *tool.Call, in IssueInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if in.Number <= 0 {
		return tool.Failure("number must be an issue or pull request number, from 1"), nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	what := fmt.Sprintf("issue #%d in %s", in.Number, r)
	issue, resp, err := g.api.Issues.Get(ctx, r.Owner, r.Name, in.Number)
	if err != nil {
		return g.failure(ctx, err, what), nil
	}
	var b strings.Builder
	kind := "Issue"
	if issue.IsPullRequest() {
		kind = "Pull request"
	}
	fmt.Fprintf(&b, "%s #%d: %s\n", kind, issue.GetNumber(), issue.GetTitle())
	fmt.Fprintf(&b, "state: %s", issue.GetState())
	if sr := issue.GetStateReason(); sr != "" {
		fmt.Fprintf(&b, " (%s)", sr)
	}
	fmt.Fprintf(&b, "; by %s on %s; %d comments%s\n", login(issue.GetUser()), day(issue.GetCreatedAt()), issue.GetComments(), labels(issue.Labels))
	if len(issue.Assignees) > 0 {
		names := make([]string, len(issue.Assignees))
		for i, a := range issue.Assignees {
			names[i] = login(a)
		}
		fmt.Fprintf(&b, "assignees: %s\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, "url: %s\n", issue.GetHTMLURL())
	var reviews []*githubsdk.PullRequestReview
	if issue.IsPullRequest() {
		pr, _, err := g.api.PullRequests.Get(ctx, r.Owner, r.Name, in.Number)
		if err != nil {
			return g.failure(ctx, err, fmt.Sprintf("pull request #%d in %s", in.Number, r)), nil
		}
		fmt.Fprintf(&b, "branch: %s into %s; %d commits, +%d -%d in %d files", pr.GetHead().GetLabel(), pr.GetBase().GetRef(), pr.GetCommits(), pr.GetAdditions(), pr.GetDeletions(), pr.GetChangedFiles())
		switch {
		case pr.GetMerged():
			fmt.Fprintf(&b, "; merged on %s", day(pr.GetMergedAt()))
		case pr.GetDraft():
			b.WriteString("; draft")
		}
		if pr.Mergeable != nil {
			fmt.Fprintf(&b, "; mergeable: %v (%s)", pr.GetMergeable(), pr.GetMergeableState())
		}
		b.WriteString("\n")
		reviews, _, err = collect(MaxComments, func(o githubsdk.ListOptions) ([]*githubsdk.PullRequestReview, *githubsdk.Response, error) {
			return g.api.PullRequests.ListReviews(ctx, r.Owner, r.Name, in.Number, &o)
		})
		if err != nil {
			return g.failure(ctx, err, "the reviews of "+what), nil
		}
	}
	comments, resp2, err := collect(MaxComments, func(o githubsdk.ListOptions) ([]*githubsdk.IssueComment, *githubsdk.Response, error) {
		return g.api.Issues.ListComments(ctx, r.Owner, r.Name, in.Number, &githubsdk.IssueListCommentsOptions{ListOptions: o})
	})
	if err != nil {
		return g.failure(ctx, err, "the comments of "+what), nil
	}
	if resp2 != nil {
		resp = resp2
	}
	var body strings.Builder
	body.WriteString(strings.TrimSpace(issue.GetBody()))
	if body.Len() == 0 {
		body.WriteString("(no description)")
	}
	for _, rv := range reviews {
		if rv.GetBody() == "" && rv.GetState() == "COMMENTED" {
			continue
		}
		fmt.Fprintf(&body, "\n\n--- review by %s on %s: %s\n%s", login(rv.GetUser()), day(rv.GetSubmittedAt()), rv.GetState(), strings.TrimSpace(rv.GetBody()))
	}
	for _, cm := range comments {
		fmt.Fprintf(&body, "\n\n--- comment by %s on %s\n%s", login(cm.GetUser()), day(cm.GetCreatedAt()), strings.TrimSpace(cm.GetBody()))
	}
	b.WriteString("\n" + untrusted(body.String()))
	if n := issue.GetComments(); n > len(comments) {
		fmt.Fprintf(&b, "\n[%d of %d comments shown: the first %d; read the rest on GitHub: %s]", len(comments), n, len(comments), issue.GetHTMLURL())
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
}
