package plan

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

//go:embed exit_plan_mode.md
var exitDescription string

// ExitInput is exit_plan_mode's argument object.
type ExitInput struct {
	Plan string `json:"plan" jsonschema:"the complete plan in Markdown, starting with a # title"`
}

// ExitData is the Data of exit_plan_mode's result.
type ExitData struct {
	// Path is the plan file's workspace path.
	Path string `json:"path"`
	// Plan is the plan as written.
	Plan string `json:"plan"`
	// Answered reports whether someone answered; Approved whether they
	// approved the plan.
	Answered bool `json:"answered"`
	Approved bool `json:"approved"`
	// Feedback is what the person said about a plan they did not approve.
	Feedback string `json:"feedback,omitempty"`
}

// The options exit_plan_mode offers the person.
const (
	optionApprove = "Approve"
	optionRevise  = "Keep planning"
)

// ExitPlanMode returns exit_plan_mode, which writes the plan of the
// call's session to .wield/plans/SESSION/SLUG.md through the call's Root
// and asks the person to approve it (see the package doc). It counts as
// read-only for permissions so that it runs in plan mode: it writes only
// wield's own plan file.
func ExitPlanMode(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "exit_plan_mode", Effect: tool.EffectState | tool.EffectAsk, Description: exitDescription,
		Annotations: tool.Annotations{ReadOnly: true}, Timeout: 24 * time.Hour}, cfg.exit)
}

func (cfg Config) exit(ctx context.Context, c *tool.Call, in ExitInput) (tool.Result, error) {
	s, err := cfg.current(c)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if planmode.Of(s).Mode != ModePlan {
		return tool.Failure("the session is not in plan mode, so there is no plan to approve; go on with the task, or call enter_plan_mode first"), nil
	}
	text := strings.TrimSpace(in.Plan)
	if text == "" {
		return tool.Failure("the plan is empty; pass the whole plan in Markdown, starting with a # title"), nil
	}
	if c.Root == nil {
		return tool.Failure("no workspace here to keep the plan in"), nil
	}
	file := path.Join(Dir(s.ID()), Slug(text)+".md")
	if err := writePlan(c.Root, file, text+"\n"); err != nil {
		return tool.Failure(fmt.Sprintf("cannot write the plan to %s: %v", file, err)), nil
	}
	data := ExitData{Path: file, Plan: text}
	if cfg.Asker == nil {
		if err := planmode.Set(s, ModePlan, file); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Success: true, Data: data, Output: "Nobody can approve plans in this run, so the session stays in plan mode. " +
			"The plan is saved in " + file + ":\n\n" + text}, nil
	}
	ans, err := cfg.Asker.Ask(ctx, askuser.Question{
		Text: "The agent proposes this plan (saved in " + file + "):\n\n" + text + "\n\nApprove it?",
		Options: []askuser.Option{
			{Label: optionApprove, Description: "leave plan mode and carry out the plan"},
			{Label: optionRevise, Description: "stay in plan mode; or type what to change"},
		}})
	if err != nil {
		if err := planmode.Set(s, ModePlan, file); err != nil {
			return tool.Result{}, err
		}
		return tool.Failure("the user did not answer (" + err.Error() + "); the session stays in plan mode, and the plan is saved in " + file), nil
	}
	data.Answered = true
	feedback := strings.TrimSpace(ans.Text)
	if len(ans.Chosen) > 0 && ans.Chosen[0] == optionApprove {
		if err := planmode.Set(s, ModeDefault, file); err != nil {
			return tool.Result{}, err
		}
		data.Approved = true
		msg := "The user approved the plan (" + file + "). Plan mode is over: carry out the plan now, step by step; it stays in your prompt."
		if feedback != "" {
			msg += " They added: " + feedback
		}
		return tool.Result{Success: true, Output: msg, Data: data}, nil
	}
	if err := planmode.Set(s, ModePlan, file); err != nil {
		return tool.Result{}, err
	}
	data.Feedback = feedback
	msg := "The user did not approve the plan. "
	if feedback != "" {
		msg += "Their feedback: " + feedback + "\n"
	} else {
		msg += "They gave no reason; ask them what to change (ask_user). "
	}
	msg += "You are still in plan mode: revise the plan and call exit_plan_mode again."
	return tool.Result{Success: true, Output: msg, Data: data}, nil
}

// writePlan writes content to the workspace path file through root,
// creating its directory, and refuses a symbolic link anywhere on the
// way: os.Root keeps the write inside the workspace, and this keeps it
// inside the plans directory.
func writePlan(root *os.Root, file, content string) error {
	parts := strings.Split(file, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link", p)
		}
	}
	if err := root.MkdirAll(path.Dir(file), 0o755); err != nil {
		return err
	}
	return root.WriteFile(file, []byte(content), 0o644)
}
