package github

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed search_issues.md
var searchIssuesDescription string

// SearchInput is the argument object of github_search_issues.
type SearchInput struct {
	Query string `json:"query" jsonschema:"GitHub search syntax, such as: crash on start is:open label:bug"`
	Limit int    `json:"limit,omitempty" jsonschema:"the number of results, best first"`
}

// scoped matches a qualifier that already says where to search.
var scoped = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|\s)-?(repo|org|user|owner):`) })

// searchIssues returns github_search_issues.
func (g *client) searchIssues() *tool.Tool {
	return tool.New(g.spec("github_search_issues", searchIssuesDescription, readOnly), g.search)
}

func (g *client) search(ctx context.Context, c *tool.Call, in SearchInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return tool.Failure("query is empty: give words to search for, and qualifiers such as is:open"), nil
	}
	n, err := limit(in.Limit)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if !scoped().MatchString(q) {
		r, err := g.target(ctx, c, "")
		if err != nil {
			return tool.Failure(err.Error() + "; or scope the query with repo:owner/name, org:NAME or user:NAME"), nil
		}
		q += " repo:" + r.String()
	}
	var total int
	issues, resp, err := collect(n, func(o githubsdk.ListOptions) ([]*githubsdk.Issue, *githubsdk.Response, error) {
		res, resp, err := g.api.Search.Issues(ctx, q, &githubsdk.SearchOptions{ListOptions: o})
		total = res.GetTotal()
		return res.Issues, resp, err
	})
	if err != nil {
		return g.failure(ctx, err, fmt.Sprintf("the search %q", q)), nil
	}
	if len(issues) == 0 {
		return tool.Result{Success: true, Output: fmt.Sprintf("No issues or pull requests match %q.", q) + g.rateNote(resp)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d results for %q:\n", len(issues), total, q)
	for _, i := range issues {
		b.WriteString(issueLine(i) + "\n")
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
}
