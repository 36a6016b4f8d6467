package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed add_comment.md
var addCommentDescription string

// CommentInput is the argument object of github_add_comment.
type CommentInput struct {
	Number int    `json:"number" jsonschema:"the issue or pull request number"`
	Body   string `json:"body" jsonschema:"the comment, in GitHub Markdown"`
	Repo   string `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// Created is the Data of the results of the tools that create something
// on GitHub.
type Created struct {
	// Number is the new issue's or pull request's number; zero for a
	// comment or a workflow run.
	Number int `json:"number,omitempty"`
	// ID is the new comment's or workflow run's id.
	ID int64 `json:"id,omitempty"`
	// URL is its page on GitHub.
	URL string `json:"url,omitempty"`
}

// addComment returns github_add_comment.
func (g *client) addComment() *tool.Tool {
	spec := g.spec("github_add_comment", addCommentDescription, destructive)
	spec.OutputSchema = tool.SchemaOf[Created]()
	return tool.New(spec, g.comment)
}

func (g *client) comment(ctx context.Context, c *tool.Call, in CommentInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if in.Number <= 0 {
		return tool.Failure("number must be an issue or pull request number, from 1"), nil
	}
	if strings.TrimSpace(in.Body) == "" {
		return tool.Failure("body is empty: write the comment"), nil
	}
	if fail := g.needToken(); fail != nil {
		return *fail, nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	cm, resp, err := g.api.Issues.CreateComment(ctx, r.Owner, r.Name, in.Number, &githubsdk.IssueComment{Body: githubsdk.Ptr(in.Body)})
	if err != nil {
		return g.failure(ctx, err, fmt.Sprintf("a comment on #%d in %s", in.Number, r)), nil
	}
	out := fmt.Sprintf("Commented on #%d in %s: %s", in.Number, r, cm.GetHTMLURL())
	return tool.Result{Success: true, Output: out + g.rateNote(resp), Data: Created{ID: cm.GetID(), URL: cm.GetHTMLURL()}}, nil
}

// needToken returns the failure of a write without a token, or nil.
func (g *client) needToken() *tool.Result {
	if g.cfg.Token != "" {
		return nil
	}
	r := tool.Failure("no GitHub token, and writing to GitHub needs one: set GITHUB_TOKEN, or log in with gh auth login, and start wield again")
	return &r
}
