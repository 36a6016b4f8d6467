package github

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	githubsdk "github.com/google/go-github/v84/github"

	"github.com/wieldhq/wield/tool"
)

//go:embed get_workflow_run.md
var getWorkflowRunDescription string

// WorkflowRunInput is the argument object of github_get_workflow_run.
type WorkflowRunInput struct {
	RunID    int64  `json:"run_id,omitempty" jsonschema:"the run to read, with its jobs"`
	Workflow string `json:"workflow,omitempty" jsonschema:"without run_id: list the latest runs of this workflow, by file name (ci.yml) or id"`
	Branch   string `json:"branch,omitempty" jsonschema:"with workflow: only runs on this branch"`
	Repo     string `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// latestRuns is the number of runs listed for a workflow.
const latestRuns = 5

// getWorkflowRun returns github_get_workflow_run.
func (g *client) getWorkflowRun() *tool.Tool {
	return tool.New(g.spec("github_get_workflow_run", getWorkflowRunDescription, readOnly), g.workflowRun)
}

func (g *client) workflowRun(ctx context.Context, c *tool.Call, in WorkflowRunInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	if in.RunID <= 0 && strings.TrimSpace(in.Workflow) == "" {
		return tool.Failure("give run_id (the run to read) or workflow (its file name, such as ci.yml, to list its latest runs)"), nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if in.RunID > 0 {
		return g.oneRun(ctx, r, in.RunID), nil
	}
	wf := strings.TrimSpace(in.Workflow)
	opts := &githubsdk.ListWorkflowRunsOptions{Branch: in.Branch, ListOptions: githubsdk.ListOptions{PerPage: latestRuns}}
	var runs *githubsdk.WorkflowRuns
	var resp *githubsdk.Response
	if id, perr := strconv.ParseInt(wf, 10, 64); perr == nil {
		runs, resp, err = g.api.Actions.ListWorkflowRunsByID(ctx, r.Owner, r.Name, id, opts)
	} else {
		runs, resp, err = g.api.Actions.ListWorkflowRunsByFileName(ctx, r.Owner, r.Name, wf, opts)
	}
	if err != nil {
		return g.failure(ctx, err, fmt.Sprintf("workflow %s in %s", wf, r)), nil
	}
	if len(runs.WorkflowRuns) == 0 {
		return tool.Result{Success: true, Output: fmt.Sprintf("Workflow %s has no runs%s.", wf, onBranch(in.Branch)) + g.rateNote(resp)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The latest %d of %d runs of %s%s:\n", len(runs.WorkflowRuns), runs.GetTotalCount(), wf, onBranch(in.Branch))
	for _, run := range runs.WorkflowRuns {
		b.WriteString(runLine(run) + "\n")
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}, nil
}

// oneRun reads a run and its jobs.
func (g *client) oneRun(ctx context.Context, r Repo, id int64) tool.Result {
	what := fmt.Sprintf("workflow run %d in %s", id, r)
	run, _, err := g.api.Actions.GetWorkflowRunByID(ctx, r.Owner, r.Name, id)
	if err != nil {
		return g.failure(ctx, err, what)
	}
	jobs, resp, err := collect(MaxLimit, func(o githubsdk.ListOptions) ([]*githubsdk.WorkflowJob, *githubsdk.Response, error) {
		res, resp, err := g.api.Actions.ListWorkflowJobs(ctx, r.Owner, r.Name, id, &githubsdk.ListWorkflowJobsOptions{ListOptions: o})
		return res.Jobs, resp, err
	})
	if err != nil {
		return g.failure(ctx, err, "the jobs of "+what)
	}
	var b strings.Builder
	b.WriteString(runLine(run) + "\n")
	for _, j := range jobs {
		v := verdict(j.GetStatus(), j.GetConclusion())
		fmt.Fprintf(&b, "  %s job %s: %s\n", mark(v), j.GetName(), v)
		for _, s := range j.Steps {
			if sv := verdict(s.GetStatus(), s.GetConclusion()); sv != "success" && sv != "skipped" {
				fmt.Fprintf(&b, "      %s step %d %s: %s\n", mark(sv), s.GetNumber(), s.GetName(), sv)
			}
		}
	}
	return tool.Result{Success: true, Output: b.String() + g.rateNote(resp)}
}

// verdict is a run's, job's or step's conclusion once completed, else its
// status.
func verdict(status, conclusion string) string {
	if status == "completed" && conclusion != "" {
		return conclusion
	}
	return status
}

// runLine describes a run in two lines.
func runLine(run *githubsdk.WorkflowRun) string {
	v := verdict(run.GetStatus(), run.GetConclusion())
	return fmt.Sprintf("%s run %d #%d %s: %s (%s on %s, %.12s, started %s)\n    %s",
		mark(v), run.GetID(), run.GetRunNumber(), run.GetName(), v, run.GetEvent(), run.GetHeadBranch(), run.GetHeadSHA(), minute(run.GetRunStartedAt()), run.GetHTMLURL())
}

func onBranch(b string) string {
	if b == "" {
		return ""
	}
	return " on " + b
}
