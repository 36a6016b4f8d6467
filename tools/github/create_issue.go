package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed create_issue.md
var createIssueDescription string

// CreateIssueInput is the argument object of github_create_issue.
type CreateIssueInput struct {
	Title  string   `json:"title" jsonschema:"a short title saying what is wrong or wanted"`
	Body   string   `json:"body,omitempty" jsonschema:"the description, in GitHub Markdown"`
	Labels []string `json:"labels,omitempty" jsonschema:"names of existing labels to add"`
	Repo   string   `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// createIssue returns github_create_issue.
func (g *client) createIssue() *tool.Tool {
	spec := g.spec("github_create_issue", createIssueDescription, destructive)
	spec.OutputSchema = tool.SchemaOf[Created]()
	return tool.New(spec, g.newIssue)
}

func (g *client) newIssue(ctx context.Context, c *tool.Call, in CreateIssueInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if strings.TrimSpace(in.Title) == "" {
		return tool.Failure("title is empty: say in a few words what the issue is"), nil
	}
	if fail := g.needToken(); fail != nil {
		return *fail, nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	req := &githubsdk.IssueRequest{Title: githubsdk.Ptr(in.Title)}
	if in.Body != "" {
		req.Body = githubsdk.Ptr(in.Body)
	}
	if len(in.Labels) > 0 {
		req.Labels = &in.Labels
	}
	issue, resp, err := g.api.Issues.Create(ctx, r.Owner, r.Name, req)
	if err != nil {
		return g.failure(ctx, err, "a new issue in "+r.String()), nil
	}
	out := fmt.Sprintf("Created issue #%d in %s: %s", issue.GetNumber(), r, issue.GetHTMLURL())
	return tool.Result{Success: true, Output: out + g.rateNote(resp), Data: Created{Number: issue.GetNumber(), URL: issue.GetHTMLURL()}}, nil
}
