// Package askuser provides the ask_user tool, which puts a question to the
// person running wield and returns the answer.
//
// The tool is built with the [Asker] that answers: [New](asker). A
// terminal CLI gives one that prompts; a library user gives their own (one
// that waits on a channel pauses the run until the answer comes). Without
// one, the model is told that nobody can answer.
//
// # Options
//
// A question may carry options, each a short label with a description,
// and say whether several may be chosen. The person may always answer in
// their own words instead. A text interface reads the typed reply with
// [ParseAnswer]: a number picks an option, several numbers pick several.
package askuser

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/tool"
)

//go:embed ask_user.md
var askUserDescription string

// description is ask_user.md with its numbers filled in from the
// constants that enforce them.
func description() string {
	var b strings.Builder
	t := template.Must(template.New("ask_user.md").Option("missingkey=error").Parse(askUserDescription))
	if err := t.Execute(&b, map[string]any{"MaxOptions": MaxOptions}); err != nil {
		panic(err) // the embedded text is fixed: a test catches this
	}
	return b.String()
}

// MaxOptions is the most options a question may offer: each can then be
// picked with one digit.
const MaxOptions = 9

// An Option is one suggested answer.
type Option struct {
	// Label is the answer itself, a few words; labels of one question
	// differ.
	Label string `json:"label" jsonschema:"the answer, in a few words"`
	// Description says what choosing it means; may be empty.
	Description string `json:"description,omitempty" jsonschema:"what choosing it means or implies"`
}

// A Question is what an [Asker] puts to the person.
type Question struct {
	// Text is the question.
	Text string
	// Options are the suggested answers, at most [MaxOptions]; nil means
	// the answer is free text.
	Options []Option
	// Multiple reports whether several options may be chosen.
	Multiple bool
}

// An Answer is the person's reply: options chosen, words typed, or both.
type Answer struct {
	// Chosen holds the labels of the options chosen, in the order given,
	// each once. It has at most one element unless the question allowed
	// several.
	Chosen []string
	// Text is what the person wrote in their own words; empty if nothing.
	Text string
}

// An Asker puts a question to a person and returns their answer. It owns
// neither q's slices nor the answer it returns. Ask must return when ctx
// is done; it is called for one question at a time.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// AskerFunc adapts a function to an [Asker].
type AskerFunc func(ctx context.Context, q Question) (Answer, error)

// Ask calls f(ctx, q).
func (f AskerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// Input is ask_user's argument object.
type Input struct {
	Question string   `json:"question" jsonschema:"one clear question for the user"`
	Options  []Option `json:"options,omitempty" jsonschema:"suggested answers when the choices are known; the user may still answer in their own words"`
	Multiple bool     `json:"multiple,omitempty" jsonschema:"whether the user may choose several options"`
}

// New returns the ask_user tool, which puts its questions to asker. A nil
// asker means nobody can answer: every call tells the model so (see
// [Headless]). The tool changes nothing, so it counts as read-only for
// permissions and runs in every mode, plan mode included.
func New(asker Asker) *tool.Tool {
	a := askTool{asker: asker}
	return tool.New(tool.Spec{Name: "ask_user", Effect: tool.EffectAsk, KeyArgs: []string{"question"}, Description: description(),
		Annotations: tool.Annotations{ReadOnly: true}, Timeout: 24 * time.Hour}, a.ask)
}

// askTool is ask_user with the asker it was built with.
type askTool struct{ asker Asker }

// Headless is the result text when nobody can answer.
const Headless = "Nobody can answer questions in this run (it is not interactive). Decide yourself, go on, and state in your answer what you assumed."

// Check reports the first problem with q: an empty question, too many
// options, an option without a label, or two options with one label.
func (q Question) Check() error {
	if strings.TrimSpace(q.Text) == "" {
		return fmt.Errorf("the question is empty; ask one clear question")
	}
	if len(q.Options) > MaxOptions {
		return fmt.Errorf("%d options given; offer at most %d", len(q.Options), MaxOptions)
	}
	for i, o := range q.Options {
		if strings.TrimSpace(o.Label) == "" {
			return fmt.Errorf("option %d has no label; give every option a short label", i+1)
		}
		if j := slices.IndexFunc(q.Options[:i], func(p Option) bool { return strings.EqualFold(p.Label, o.Label) }); j >= 0 {
			return fmt.Errorf("options %d and %d are both labelled %q; make the labels differ", j+1, i+1, o.Label)
		}
	}
	return nil
}

func (a askTool) ask(ctx context.Context, _ *tool.Call, in Input) (tool.Result, error) {
	q := Question{Text: strings.TrimSpace(in.Question), Options: in.Options, Multiple: in.Multiple && len(in.Options) > 1}
	if err := q.Check(); err != nil {
		return tool.Failure(err.Error()), nil
	}
	if a.asker == nil {
		return tool.Result{Success: false, Error: Headless, Data: map[string]any{"answered": false}}, nil
	}
	q.Options = slices.Clone(q.Options)
	ans, err := a.asker.Ask(ctx, q)
	if err != nil {
		return tool.Failure("the user did not answer: " + err.Error() + ". Decide yourself and state your assumption."), nil
	}
	// Keep only labels of this question, once each, and one unless
	// several were allowed: the asker is outside wield's control.
	var chosen []string
	for _, c := range ans.Chosen {
		i := slices.IndexFunc(q.Options, func(o Option) bool { return o.Label == c })
		if i >= 0 && !slices.Contains(chosen, c) && (q.Multiple || len(chosen) == 0) {
			chosen = append(chosen, c)
		}
	}
	text := strings.TrimSpace(ans.Text)
	var out string
	switch {
	case len(chosen) > 0 && text != "":
		out = fmt.Sprintf("The user chose: %s. They added: %s", strings.Join(chosen, ", "), text)
	case len(chosen) > 0:
		out = "The user chose: " + strings.Join(chosen, ", ")
	case text != "":
		out = "The user answered: " + text
	default:
		return tool.Result{Success: true, Output: "The user gave no answer. Decide yourself and state your assumption.", Data: map[string]any{"answered": false}}, nil
	}
	parts := slices.Clone(chosen)
	if text != "" {
		parts = append(parts, text)
	}
	answer := strings.Join(parts, "; ")
	return tool.Result{Success: true, Output: out, Data: map[string]any{"answered": true, "answer": answer, "chosen": nonNil(chosen), "text": text}}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
