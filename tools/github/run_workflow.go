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

//go:embed run_workflow.md
var runWorkflowDescription string

// RunWorkflowInput is the argument object of github_run_workflow.
type RunWorkflowInput struct {
	Workflow string            `json:"workflow" jsonschema:"the workflow's file name (such as ci.yml) or id"`
	Ref      string            `json:"ref,omitempty" jsonschema:"the branch or tag to run it on; default the repository's default branch"`
	Inputs   map[string]string `json:"inputs,omitempty" jsonschema:"values for the workflow's inputs, by name"`
	Repo     string            `json:"repo,omitempty" jsonschema:"the repository as owner/name; default the workspace's"`
}

// runWorkflow returns github_run_workflow.
func (g *client) runWorkflow() *tool.Tool {
	spec := g.spec("github_run_workflow", runWorkflowDescription, destructive)
	spec.OutputSchema = tool.SchemaOf[Created]()
	return tool.New(spec, g.dispatch)
}

func (g *client) dispatch(ctx context.Context, c *tool.Call, in RunWorkflowInput) (tool.Result, error) {
	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	wf := strings.TrimSpace(in.Workflow)
	if wf == "" || strings.ContainsAny(wf, "/?#") {
		return tool.Failure("workflow must be a workflow's file name (such as ci.yml, without .github/workflows/) or its id"), nil
	}
	if fail := g.needToken(); fail != nil {
		return *fail, nil
	}
	r, err := g.target(ctx, c, in.Repo)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	ref := in.Ref
	if ref == "" {
		repo, _, err := g.api.Repositories.Get(ctx, r.Owner, r.Name)
		if err != nil {
			return g.failure(ctx, err, "repository "+r.String()), nil
		}
		ref = repo.GetDefaultBranch()
	}
	event := githubsdk.CreateWorkflowDispatchEventRequest{Ref: ref, ReturnRunDetails: githubsdk.Ptr(true)}
	if len(in.Inputs) > 0 {
		event.Inputs = make(map[string]any, len(in.Inputs))
		for k, v := range in.Inputs {
			event.Inputs[k] = v
		}
	}
	var details *githubsdk.WorkflowDispatchRunDetails
	var resp *githubsdk.Response
	if id, perr := strconv.ParseInt(wf, 10, 64); perr == nil {
		details, resp, err = g.api.Actions.CreateWorkflowDispatchEventByID(ctx, r.Owner, r.Name, id, event)
	} else {
		details, resp, err = g.api.Actions.CreateWorkflowDispatchEventByFileName(ctx, r.Owner, r.Name, wf, event)
	}
	if err != nil {
		res := g.failure(ctx, err, fmt.Sprintf("workflow %s on %s in %s", wf, ref, r))
		if strings.Contains(res.Error, "(422)") {
			res.Error += "; the workflow must have an on: workflow_dispatch trigger on that ref, and its inputs must match"
		}
		return res, nil
	}
	if details.GetWorkflowRunID() == 0 {
		out := fmt.Sprintf("Triggered workflow %s on %s in %s. Its run takes a few seconds to appear: list it with github_get_workflow_run {\"workflow\": %q, \"branch\": %q}.", wf, ref, r, wf, ref)
		return tool.Result{Success: true, Output: out + g.rateNote(resp), Data: Created{}}, nil
	}
	out := fmt.Sprintf("Started run %d of workflow %s on %s in %s: %s\nRead its status with github_get_workflow_run {\"run_id\": %d}.", details.GetWorkflowRunID(), wf, ref, r, details.GetHTMLURL(), details.GetWorkflowRunID())
	return tool.Result{Success: true, Output: out + g.rateNote(resp), Data: Created{ID: details.GetWorkflowRunID(), URL: details.GetHTMLURL()}}, nil
}
