package sessiontool

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed update_plan.md
var updatePlanDescription string

// UpdatePlanInput is update_plan's argument object, in the form Codex's
// update_plan takes.
type UpdatePlanInput struct {
	Explanation string     `json:"explanation,omitempty" jsonschema:"why the plan changed, if it did"`
	Plan        []PlanStep `json:"plan" jsonschema:"the complete list of steps, in order; it replaces the previous one"`
}

// A PlanStep is one step of update_plan's list.
type PlanStep struct {
	Step   string `json:"step" jsonschema:"what the step does"`
	Status string `json:"status" enum:"pending,in_progress,completed,cancelled,blocked"`
}

// UpdatePlan returns update_plan, Codex's name and argument form for
// [Todo]: each step becomes a todo with the step as its title, in the
// same list. Like [WriteTodos] it is hidden from the tools offered to the
// model but runs when a model trained on Codex calls it. It works on the
// sessions of st; a nil st gives a tool that fails, saying it works only
// inside a wield session.
//
// A registry alias would not do: it would carry todo's arguments, and a
// model that calls update_plan sends {plan: [{step, status}]}.
func UpdatePlan(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "update_plan", Effect: tool.EffectState, Description: updatePlanDescription, Hidden: true,
		Annotations: tool.Annotations{ReadOnly: true}}, onSession(st, updatePlan))
}

func updatePlan(ctx context.Context, s *session.Session, in UpdatePlanInput) (tool.Result, error) {
	todos := make([]session.Todo, len(in.Plan))
	for i, p := range in.Plan {
		todos[i] = session.Todo{Title: p.Step, Status: p.Status}
	}
	return writeTodos(ctx, s, TodoInput{Todos: todos})
}
