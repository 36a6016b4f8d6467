// Package askuser provides the ask_user tool, which puts a question to the
// person running wield and returns the answer.
//
// The tool is built with the [Asker] that answers: [New](asker). A
// terminal CLI gives one that prompts; a library user gives their own (one
// that waits on a channel pauses the run until the answer comes). Without
// one, the model is told that nobody can answer.
package askuser

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wieldhq/wield/tool"
)

//go:embed ask_user.md
var askUserDescription string

// An Asker puts a question to a person and returns their answer. Options,
// when given, are the suggested answers; the person may answer otherwise.
// Ask must return when ctx is done.
type Asker interface {
	Ask(ctx context.Context, question string, options []string) (string, error)
}

// Input is ask_user's argument object.
type Input struct {
	Question string   `json:"question" jsonschema:"one clear question for the user"`
	Options  []string `json:"options,omitempty" jsonschema:"suggested answers, if the choices are known (at most 9)"`
}

// New returns the ask_user tool, which puts its questions to asker. A nil
// asker means nobody can answer: every call tells the model so (see
// [Headless]). The tool changes nothing, so it counts as read-only for
// permissions.
func New(asker Asker) *tool.Tool {
	a := askTool{asker: asker}
	return tool.New(tool.Spec{Name: "ask_user", Description: askUserDescription,
		Annotations: tool.Annotations{ReadOnly: true}, Timeout: 24 * time.Hour}, a.ask)
}

// askTool is ask_user with the asker it was built with.
type askTool struct{ asker Asker }

// Headless is the result text when nobody can answer.
const Headless = "Nobody can answer questions in this run (it is not interactive). Decide yourself, go on, and state in your answer what you assumed."

func (a askTool) ask(ctx context.Context, _ *tool.Call, in Input) (tool.Result, error) {
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return tool.Failure("the question is empty; ask one clear question"), nil
	}
	if len(in.Options) > 9 {
		return tool.Failure(fmt.Sprintf("%d options given; offer at most 9", len(in.Options))), nil
	}
	asker := a.asker
	if asker == nil {
		return tool.Result{Success: false, Error: Headless, Data: map[string]any{"answered": false}}, nil
	}
	answer, err := asker.Ask(ctx, q, slices.Clone(in.Options))
	if err != nil {
		return tool.Failure("the user did not answer: " + err.Error() + ". Decide yourself and state your assumption."), nil
	}
	answer = strings.TrimSpace(answer)
	// A bare number picks an option.
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(in.Options) {
		answer = in.Options[n-1]
	}
	if answer == "" {
		return tool.Result{Success: true, Output: "The user gave no answer. Decide yourself and state your assumption.", Data: map[string]any{"answered": false}}, nil
	}
	return tool.Result{Success: true, Output: "The user answered: " + answer, Data: map[string]any{"answered": true, "answer": answer}}, nil
}
