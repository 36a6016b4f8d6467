package plan

import (
	"context"
	_ "embed"
	"strings"
	"time"

	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

//go:embed enter_plan_mode.md
var enterDescription string

// EnterInput is enter_plan_mode's argument object.
type EnterInput struct {
	Reason string `json:"reason" jsonschema:"why planning first helps here, in a sentence; the user reads it"`
}

// The options enter_plan_mode offers the person.
const (
	optionEnter = "Plan first"
	optionStay  = "Go on"
)

// EnterPlanMode returns enter_plan_mode, which puts the call's session in
// plan mode after asking the person (see [Config]). It counts as
// read-only for permissions: it changes only the session's mode, and
// only narrows what runs.
func EnterPlanMode(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "enter_plan_mode", Effect: tool.EffectState | tool.EffectAsk, Description: enterDescription,
		Annotations: tool.Annotations{ReadOnly: true}, Timeout: 24 * time.Hour}, cfg.enter)
}

func (cfg Config) enter(ctx context.Context, c *tool.Call, in EnterInput) (tool.Result, error) {
	s, err := cfg.current(c)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if planmode.Of(s).Mode == ModePlan {
		return tool.Text("The session is already in plan mode. Explore, write your plan, and call exit_plan_mode with it."), nil
	}
	reason := strings.TrimSpace(in.Reason)
	if reason == "" {
		return tool.Failure("the reason is empty; say in a sentence why planning first helps"), nil
	}
	if !cfg.EnterWithoutAsking {
		if cfg.Asker == nil {
			return tool.Failure("entering plan mode needs the user's consent, and nobody can give it in this run; go on in the current mode"), nil
		}
		ans, err := cfg.Asker.Ask(ctx, askuser.Question{
			Text: "The agent asks to plan before it acts: in plan mode it only reads and plans, and changes nothing until you approve its plan.\nIts reason: " + reason,
			Options: []askuser.Option{
				{Label: optionEnter, Description: "enter plan mode"},
				{Label: optionStay, Description: "stay in the current mode and go on"},
			}})
		if err != nil {
			return tool.Failure("the user did not answer (" + err.Error() + "); go on in the current mode"), nil
		}
		if len(ans.Chosen) == 0 || ans.Chosen[0] != optionEnter {
			msg := "The user declined plan mode; go on in the current mode."
			if t := strings.TrimSpace(ans.Text); t != "" {
				msg += " They said: " + t
			}
			return tool.Result{Success: true, Output: msg, Data: map[string]any{"mode": planmode.Of(s).Mode, "entered": false}}, nil
		}
	}
	if err := planmode.Set(s, ModePlan, planmode.Of(s).Plan); err != nil {
		return tool.Result{}, err // the journal failed: the run must stop
	}
	return tool.Result{Success: true, Data: map[string]any{"mode": ModePlan, "entered": true},
		Output: "Plan mode is on: only read-only tools and read-only shell commands run, and files may be written only in " +
			Dir(c.SessionID) + "/. Explore, then call exit_plan_mode with your plan in Markdown; the user approves it or says what to change."}, nil
}
