package github

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed get_pull_request_checks.md
var getPullRequestChecksDescription string

// getPullRequestChecks returns github_get_pull_request_checks.
func (g *client) getPullRequestChecks() *tool.Tool {
	return tool.New(g.spec("github_get_pull_request_checks", getPullRequestChecksDescription, readOnly), g.checks)
}

func (g *client) checks(ctx context.Context, c *tool.Call, in PullRequestInput) (tool.Result, error) {
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
	pr, _, err := g.api.PullRequests.Get(ctx, r.Owner, r.Name, in.Number)
	if err != nil {
		return g.failure(ctx, err, what), nil
	}
	sha := pr.GetHead().GetSHA()
	var total int
	runs, resp, err := collect(MaxLimit, func(o githubsdk.ListOptions) ([]*githubsdk.CheckRun, *githubsdk.Response, error) {
		res, resp, err := g.api.Checks.ListCheckRunsForRef(ctx, r.Owner, r.Name, sha, &githubsdk.ListCheckRunsOptions{ListOptions: o})
		total = res.GetTotal()
		return res.CheckRuns, resp, err
	})
	if err != nil {
		return g.failure(ctx, err, "the check runs of "+what), nil
	}
	status, _, err := g.api.Repositories.GetCombinedStatus(ctx, r.Owner, r.Name, sha, &githubsdk.ListOptions{PerPage: perPage})
	if err != nil {
		return g.failure(ctx, err, "the commit statuses of "+what), nil
	}
	var b strings.Builder
	counts := map[string]int{}
	var lines []string
	for _, run := range runs {
		verdict := run.GetConclusion()
		if run.GetStatus() != "completed" {
			verdict = run.GetStatus() // queued, in_progress, waiting, pending
		}
		counts[verdict]++
		line := fmt.Sprintf("%s %s: %s", mark(verdict), run.GetName(), verdict)
		if s := strings.TrimSpace(run.GetOutput().GetTitle()); s != "" && verdict != "success" {
			line += " (" + s + ")"
		}
		lines = append(lines, line+"\n    "+run.GetHTMLURL())
	}
	for _, st := range status.Statuses {
		counts[st.GetState()]++
		line := fmt.Sprintf("%s %s: %s", mark(st.GetState()), st.GetContext(), st.GetState())
		if d := st.GetDescription(); d != "" {
			line += " (" + d + ")"
		}
		lines = append(lines, line+"\n    "+st.GetTargetURL())
	}
	fmt.Fprintf(&b, "Checks of pull request #%d (head %s, %.12s):", in.Number, pr.GetHead().GetRef(), sha)
	if len(lines) == 0 {
		b.WriteString(" none reported.\n")
		return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
	}
	var sum []string
	for _, k := range []string{"failure", "timed_out", "action_required", "error", "cancelled", "in_progress", "queued", "pending", "waiting", "success", "neutral", "skipped"} {
		if counts[k] > 0 {
			sum = append(sum, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	fmt.Fprintf(&b, " %s\n", strings.Join(sum, ", "))
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if total > len(runs) {
		fmt.Fprintf(&b, "[%d of %d check runs shown]\n", len(runs), total)
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
}

// mark returns a sign for a check's verdict.
func mark(verdict string) string {
	switch verdict {
	case "success":
		return "✓"
	case "failure", "error", "timed_out", "action_required", "startup_failure":
		return "✗"
	case "neutral", "skipped", "cancelled", "stale":
		return "-"
	}
	return "…"
}
