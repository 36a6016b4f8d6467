package subagent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/tool"
)

// ToolName is the name of the tool that starts a child agent.
const ToolName = "agent"

//go:embed agent_tool.md
var agentDescription string

var agentTemplate = template.Must(template.New("agent").Parse(agentDescription))

// AgentInput is the agent tool's arguments.
type AgentInput struct {
	// Type is the agent type: the name of a [Definition].
	Type string `json:"type"`
	// Prompt is the child's task, complete: the child sees nothing else.
	Prompt string `json:"prompt"`
	// Description is a short label of the task, for people watching.
	Description string `json:"description,omitempty"`
}

// newAgentTool returns the agent tool; hidden, it is kept out of what
// the model is offered but still answers a call (with the depth refusal).
func (r *Runner) newAgentTool(hidden bool) *tool.Tool {
	var desc strings.Builder
	type agentType struct{ Name, Description string }
	data := struct {
		MaxParallel, MaxDepth, SpawnBudget, ReportLimit int
		Agents                                          []agentType
	}{r.cfg.MaxParallel, r.cfg.MaxDepth, r.cfg.SpawnBudget, r.cfg.ReportLimit, nil}
	names := r.offered()
	for _, n := range names {
		d, _ := r.cfg.Definitions.Get(n)
		data.Agents = append(data.Agents, agentType{n, oneLine(d.Description, 400)})
	}
	if err := agentTemplate.Execute(&desc, data); err != nil {
		panic(fmt.Sprintf("subagent: agent tool description: %v", err)) // the template is ours
	}
	in, err := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"type":        map[string]any{"type": "string", "enum": names, "description": "the agent type, one of those listed"},
			"prompt":      map[string]any{"type": "string", "minLength": 1, "description": "the complete task for the agent: it sees nothing else"},
			"description": map[string]any{"type": "string", "description": "a short label of the task (3 to 5 words), shown to the user"},
		},
		"required":             []string{"type", "prompt"},
		"additionalProperties": false,
	})
	if err != nil {
		panic(err)
	}
	return tool.New(tool.Spec{
		Name:        ToolName,
		Effect:      tool.EffectState | tool.EffectNetwork,
		KeyArgs:     []string{"type", "prompt"},
		Aliases:     []string{"Agent", "Task"},
		Description: desc.String(),
		InputSchema: in,
		// The tool changes nothing itself: every call of its child passes
		// the parent's gate on its own. Children run in parallel, each
		// with a runner of its own.
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true},
		// A child's own timeout and its grace round end it first.
		Timeout: r.maxTimeout + r.cfg.GraceTimeout + time.Minute,
		Hidden:  hidden,
	}, r.delegate)
}

// offered returns the agent types the agent tool offers: the
// definitions, without the internal ones.
func (r *Runner) offered() []string {
	var names []string
	for _, n := range r.cfg.Definitions.Names() {
		if _, internal := r.internal[n]; !internal {
			names = append(names, n)
		}
	}
	return names
}

// delegate runs one child to completion and returns its report.
func (r *Runner) delegate(ctx context.Context, c *tool.Call, in AgentInput) (tool.Result, error) {
	def, ok := r.cfg.Definitions.Get(in.Type)
	if _, internal := r.internal[in.Type]; !ok || internal { // the schema's enum keeps these out
		return tool.Failure(fmt.Sprintf("there is no agent type %q; use one of %s", in.Type, strings.Join(r.offered(), ", "))), nil
	}
	caller := r.lookup(c.SessionID)
	depth, run, refusal := r.admit(c, caller)
	if refusal != "" {
		return tool.Failure(refusal), nil
	}
	if err := r.acquire(ctx, depth); err != nil {
		return tool.Failure("cancelled while waiting for a free place to run the agent: " + err.Error()), nil
	}
	defer r.release(depth)
	rep, err := r.start(ctx, c, caller, def, depth, run, in, true)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	return tool.Result{Success: true, Output: rep.Text(), Data: rep}, nil
}
