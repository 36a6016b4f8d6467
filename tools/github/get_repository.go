package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/tool"
)

//go:embed get_repository.md
var getRepositoryDescription string

// RepoInput is the argument object of github_get_repository.
type RepoInput struct {
	Repo string `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// getRepository returns github_get_repository.
func (g *client) getRepository() *tool.Tool {
	return tool.New(g.spec("github_get_repository", getRepositoryDescription, readOnly), g.repository)
}

func (g *client) repository(ctx context.Context, c *tool.Call, in RepoInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	repo, resp, err := g.api.Repositories.Get(ctx, r.Owner, r.Name)
	if err != nil {
		return g.failure(ctx, err, "repository "+r.String()), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", repo.GetFullName(), repo.GetVisibility())
	if d := repo.GetDescription(); d != "" {
		fmt.Fprintf(&b, "%s\n", d)
	}
	fmt.Fprintf(&b, "url: %s\ndefault branch: %s\n", repo.GetHTMLURL(), repo.GetDefaultBranch())
	if repo.GetFork() {
		fmt.Fprintf(&b, "fork of: %s\n", repo.GetParent().GetFullName())
	}
	if l := repo.GetLanguage(); l != "" {
		fmt.Fprintf(&b, "language: %s\n", l)
	}
	if l := repo.GetLicense().GetSPDXID(); l != "" {
		fmt.Fprintf(&b, "license: %s\n", l)
	}
	if len(repo.Topics) > 0 {
		fmt.Fprintf(&b, "topics: %s\n", strings.Join(repo.Topics, ", "))
	}
	fmt.Fprintf(&b, "stars: %d, forks: %d, open issues and pull requests: %d\n", repo.GetStargazersCount(), repo.GetForksCount(), repo.GetOpenIssuesCount())
	fmt.Fprintf(&b, "has issues: %v, archived: %v, pushed: %s\n", repo.GetHasIssues(), repo.GetArchived(), minute(repo.GetPushedAt()))
	if p := repo.Permissions; p != nil {
		var can []string
		for _, k := range []struct {
			name string
			ok   *bool
		}{{"admin", p.Admin}, {"maintain", p.Maintain}, {"push", p.Push}, {"triage", p.Triage}, {"pull", p.Pull}} {
			if k.ok != nil && *k.ok {
				can = append(can, k.name)
			}
		}
		fmt.Fprintf(&b, "the token may: %s\n", strings.Join(can, ", "))
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
}
