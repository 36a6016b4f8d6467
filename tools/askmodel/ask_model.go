package askmodel

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/schema"
	"github.com/wieldhq/wield/tool"
)

//go:embed ask_model.md
var description string

// Defaults for the fields of [Config].
const (
	DefaultMaxTokens    = 4096
	DefaultMaxMaxTokens = 32768
	// attempts is how many answers a structured call asks for at most:
	// the first, and one retry with the violations fed back.
	attempts = 2
)

// A Factory returns the provider for model, named as the --model flag
// names models ("provider:model", or a name the catalogue knows), and the
// name of the model as the provider knows it. The message of its error is
// shown to the model.
type Factory func(model string) (llm.Provider, string, error)

// Config configures ask_model. The zero value gives a tool whose calls
// fail, saying that no model is configured.
type Config struct {
	// Models builds the provider of each call. Nil means that no model
	// can be asked.
	Models Factory
	// Model is the model of calls that name none; empty means that calls
	// must name one.
	Model string
	// MaxTokens caps the answer of a call that gives no max_tokens; zero
	// means DefaultMaxTokens. MaxMaxTokens is the largest max_tokens
	// accepted; zero means DefaultMaxMaxTokens.
	MaxTokens, MaxMaxTokens int
	// Logger receives a debug record per model request; nil discards.
	Logger *slog.Logger
}

// Input is the argument object of ask_model.
type Input struct {
	Prompt     string         `json:"prompt" jsonschema:"the question or task, with everything the model needs to answer it"`
	System     string         `json:"system,omitempty" jsonschema:"a system prompt for the model"`
	Model      string         `json:"model,omitempty" jsonschema:"the model as provider:model; default: the configured one"`
	MaxTokens  int            `json:"max_tokens,omitempty" jsonschema:"the most tokens the answer may have"`
	JSONSchema map[string]any `json:"json_schema,omitempty" jsonschema:"a JSON Schema the answer must be valid JSON against"`
}

// Answer is the Data of ask_model's results, failed ones included.
type Answer struct {
	// Model is the model that answered, as provider:model or as given.
	Model string `json:"model"`
	// Text is the model's (last) answer.
	Text string `json:"text"`
	// JSON is the answer decoded and valid against json_schema; absent
	// without a schema or when no answer was valid.
	JSON json.RawMessage `json:"json,omitempty"`
	// Attempts counts the model requests made: 2 when a structured
	// answer was retried.
	Attempts int `json:"attempts"`
	// Usage adds up the tokens and cost of those requests.
	Usage llm.Usage `json:"usage"`
}

// ModelUsage returns a.Usage, so that an agent's run counts it
// (agent.UsageReporter).
func (a Answer) ModelUsage() llm.Usage { return a.Usage }

// New returns the ask_model tool.
func New(cfg Config) *tool.Tool {
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.MaxMaxTokens <= 0 {
		cfg.MaxMaxTokens = DefaultMaxMaxTokens
	}
	cfg.MaxTokens = min(cfg.MaxTokens, cfg.MaxMaxTokens)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &asker{cfg: cfg}
	var b bytes.Buffer
	template.Must(template.New("ask_model").Parse(description)).Execute(&b, cfg)
	return tool.New(tool.Spec{
		Name:         "ask_model",
		Effect:       tool.EffectNetwork,
		KeyArgs:      []string{"prompt"},
		Description:  b.String(),
		OutputSchema: tool.SchemaOf[Answer](),
		// It changes nothing; it sends the prompt to the model's provider.
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true, OpenWorld: true},
	}, a.ask)
}

type asker struct{ cfg Config }

func (a *asker) ask(ctx context.Context, _ *tool.Call, in Input) (tool.Result, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.Failure("prompt is empty: give the question, with everything the model needs"), nil
	}
	maxTokens := a.cfg.MaxTokens
	if in.MaxTokens != 0 {
		if in.MaxTokens < 1 || in.MaxTokens > a.cfg.MaxMaxTokens {
			return tool.Failure(fmt.Sprintf("max_tokens must be between 1 and %d", a.cfg.MaxMaxTokens)), nil
		}
		maxTokens = in.MaxTokens
	}
	var sch *schema.Schema
	var schemaText []byte
	if in.JSONSchema != nil {
		var err error
		if schemaText, err = json.Marshal(in.JSONSchema); err == nil {
			sch, err = schema.Compile(schemaText, nil)
		}
		if err != nil {
			return tool.Failure("json_schema: " + err.Error()), nil
		}
	}
	name := in.Model
	if name == "" {
		name = a.cfg.Model
	}
	if name == "" {
		return tool.Failure("no model to ask: give model as provider:model (no default model is configured)"), nil
	}
	if a.cfg.Models == nil {
		return tool.Failure("no model can be asked here: wield was started without providers for ask_model"), nil
	}
	provider, model, err := a.cfg.Models(name)
	if err != nil {
		return tool.Failure(fmt.Sprintf("model %s: %v", name, err)), nil
	}

	system := in.System
	if sch != nil {
		system = strings.TrimSpace(system + "\n\n" + "Answer with only a JSON value valid against this JSON Schema, with no other text and no code fence:\n" + string(schemaText))
	}
	var msgs []llm.Message
	if system != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: in.Prompt})
	ans := Answer{Model: name}
	for {
		resp, err := provider.Stream(ctx, &llm.Request{Model: model, Messages: msgs, MaxTokens: maxTokens}, func(llm.Event) {})
		if err != nil {
			if ctx.Err() != nil {
				return tool.Result{Error: "cancelled", Data: ans}, nil
			}
			return tool.Result{Error: fmt.Sprintf("model %s: %v", name, err), Data: ans}, nil
		}
		ans.Attempts++
		ans.Usage = ans.Usage.Add(resp.Usage)
		ans.Text = resp.Message.Content
		a.cfg.Logger.Debug("ask_model", "model", name, "attempt", ans.Attempts, "stop", resp.Stop,
			"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens)
		if sch == nil {
			if resp.Stop == llm.StopMaxTokens {
				return tool.Result{Success: true, Output: ans.Text + "\n\n[the answer was cut at max_tokens]", Data: ans}, nil
			}
			return tool.Result{Success: true, Output: ans.Text, Data: ans}, nil
		}
		doc, problem := check(sch, ans.Text)
		if problem == "" {
			ans.JSON = doc
			return tool.Result{Success: true, Output: string(doc), Data: ans}, nil
		}
		if resp.Stop == llm.StopMaxTokens {
			problem += " (the answer was cut at max_tokens; give a larger max_tokens)"
		}
		if ans.Attempts >= attempts {
			return tool.Result{
				Error:  fmt.Sprintf("the model's answer did not match json_schema after %d attempts: %s", ans.Attempts, problem),
				Output: ans.Text, Data: ans,
			}, nil
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: ans.Text},
			llm.Message{Role: llm.RoleUser, Content: "That answer is not valid: " + problem + ". Answer again with only the corrected JSON."})
	}
}

// check decodes text, less a Markdown code fence around it, and validates
// it against sch. It returns the compact JSON, or what is wrong with it.
func check(sch *schema.Schema, text string) (json.RawMessage, string) {
	s := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:] // the fence's language tag
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, "it is not JSON (" + err.Error() + ")"
	}
	if err := sch.Validate(buf.Bytes()); err != nil {
		if ve, ok := errors.AsType[*schema.ValidationError](err); ok {
			return nil, ve.Error()
		}
		return nil, err.Error()
	}
	return buf.Bytes(), ""
}
