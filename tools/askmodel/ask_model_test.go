package askmodel_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askmodel"
)

// scripted returns a factory that serves every model from a replay
// script, and the provider, for its requests.
func scripted(t *testing.T, entries ...string) (askmodel.Factory, *replay.Provider) {
	t.Helper()
	es, err := replay.Parse([]byte(strings.Join(entries, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(es)
	if err != nil {
		t.Fatal(err)
	}
	return func(model string) (llm.Provider, string, error) {
		if model == "nope:x" {
			return nil, "", errors.New("unknown provider \"nope\"")
		}
		_, name, _ := strings.Cut(model, ":")
		return p, name, nil
	}, p
}

func call(t *testing.T, tl *tool.Tool, in map[string]any) (tool.Result, askmodel.Answer) {
	t.Helper()
	args, _ := json.Marshal(in)
	if err := tl.Schema().Validate(args); err != nil {
		return tool.Failure(err.Error()), askmodel.Answer{}
	}
	res, err := tl.Handler().Handle(t.Context(), &tool.Call{ID: "c1"}, args)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := res.Data.(askmodel.Answer)
	return res, a
}

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`

func schemaArg() map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(personSchema), &m)
	return m
}

func TestAskModel_Plain(t *testing.T) {
	models, p := scripted(t, `{"turn":1,"round":1,"text":"Paris","usage":{"input_tokens":12,"output_tokens":2,"cost":0.001}}`)
	tl := askmodel.New(askmodel.Config{Models: models, Model: "openai:small"})
	res, a := call(t, tl, map[string]any{"prompt": "Capital of France?", "system": "Be brief.", "max_tokens": 50})
	if !res.Success || res.Output != "Paris" {
		t.Fatalf("ask_model = %+v, want success with Paris", res)
	}
	want := askmodel.Answer{Model: "openai:small", Text: "Paris", Attempts: 1, Usage: llm.Usage{InputTokens: 12, OutputTokens: 2, Cost: 0.001}}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Model != "small" || reqs[0].MaxTokens != 50 || reqs[0].Messages[0].Content != "Be brief." || len(reqs[0].Tools) != 0 {
		t.Errorf("request = %+v; want model small, max_tokens 50, the system prompt and no tools", reqs)
	}
}

func TestAskModel_Schema(t *testing.T) {
	cases := []struct {
		name     string
		script   []string
		success  bool
		attempts int
		json     string
		err      string
	}{
		{"valid at once", []string{`{"turn":1,"round":1,"text":"{\"name\": \"Ada\", \"age\": 36}","usage":{"input_tokens":10,"output_tokens":5}}`},
			true, 1, `{"name":"Ada","age":36}`, ""},
		{"in a code fence", []string{"{\"turn\":1,\"round\":1,\"text\":\"```json\\n{\\\"name\\\": \\\"Ada\\\", \\\"age\\\": 36}\\n```\",\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}"},
			true, 1, `{"name":"Ada","age":36}`, ""},
		{"valid on retry", []string{
			`{"turn":1,"round":1,"text":"{\"name\": \"Ada\", \"age\": -1}","usage":{"input_tokens":10,"output_tokens":5}}`,
			`{"turn":2,"round":1,"text":"{\"name\": \"Ada\", \"age\": 36}","usage":{"input_tokens":30,"output_tokens":5}}`},
			true, 2, `{"name":"Ada","age":36}`, ""},
		{"invalid twice", []string{
			`{"turn":1,"round":1,"text":"Ada is 36.","usage":{"input_tokens":10,"output_tokens":5}}`,
			`{"turn":2,"round":1,"text":"{\"name\": \"Ada\"}","usage":{"input_tokens":30,"output_tokens":5}}`},
			false, 2, "", "did not match json_schema after 2 attempts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			models, p := scripted(t, c.script...)
			tl := askmodel.New(askmodel.Config{Models: models, Model: "openai:small"})
			res, a := call(t, tl, map[string]any{"prompt": "Who is Ada Lovelace? Give her age at death.", "json_schema": schemaArg()})
			if res.Success != c.success || a.Attempts != c.attempts || string(a.JSON) != c.json || !strings.Contains(res.Error, c.err) {
				t.Fatalf("ask_model = %+v, answer %+v; want success %t, %d attempts, json %s, error with %q", res, a, c.success, c.attempts, c.json, c.err)
			}
			if c.attempts == 2 {
				if a.Usage.InputTokens != 40 || a.Usage.OutputTokens != 10 {
					t.Errorf("usage %+v; want both attempts' tokens (40 in, 10 out)", a.Usage)
				}
				reqs := p.Requests()
				last := reqs[len(reqs)-1].Messages
				if fb := last[len(last)-1].Content; !strings.Contains(fb, "not valid") {
					t.Errorf("retry's last message %q; want the violations fed back", fb)
				}
			}
			if !strings.Contains(p.Requests()[0].Messages[0].Content, `"additionalProperties":false`) {
				t.Errorf("system prompt %q does not carry the schema", p.Requests()[0].Messages[0].Content)
			}
		})
	}
}

func TestAskModel_Refusals(t *testing.T) {
	models, _ := scripted(t, `{"round":1,"text":"x"}`)
	cases := []struct {
		name string
		cfg  askmodel.Config
		in   map[string]any
		want string
	}{
		{"no default model", askmodel.Config{Models: models}, map[string]any{"prompt": "hi"}, "no model to ask"},
		{"no factory", askmodel.Config{Model: "openai:x"}, map[string]any{"prompt": "hi"}, "no model can be asked"},
		{"unknown provider", askmodel.Config{Models: models}, map[string]any{"prompt": "hi", "model": "nope:x"}, "unknown provider"},
		{"empty prompt", askmodel.Config{Models: models, Model: "a:b"}, map[string]any{"prompt": " "}, "prompt is empty"},
		{"max_tokens too large", askmodel.Config{Models: models, Model: "a:b"}, map[string]any{"prompt": "hi", "max_tokens": 1 << 20}, "max_tokens must be between 1 and 32768"},
		{"bad schema", askmodel.Config{Models: models, Model: "a:b"}, map[string]any{"prompt": "hi", "json_schema": map[string]any{"type": "nonsense"}}, "json_schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := call(t, askmodel.New(c.cfg), c.in)
			if res.Success || !strings.Contains(res.Error, c.want) {
				t.Errorf("ask_model(%v) = %+v; want a failure mentioning %q", c.in, res, c.want)
			}
		})
	}
	t.Run("provider error", func(t *testing.T) {
		models, _ := scripted(t, `{"round":1,"error":{"status":500,"message":"overloaded"}}`)
		res, a := call(t, askmodel.New(askmodel.Config{Models: models, Model: "a:b"}), map[string]any{"prompt": "hi"})
		if res.Success || !strings.Contains(res.Error, "overloaded") || a.Attempts != 0 {
			t.Errorf("ask_model against a failing endpoint = %+v", res)
		}
	})
}

// TestAskModel_UsageRollsUp runs ask_model from an agent's loop and checks
// that the run's usage includes the second model's.
func TestAskModel_UsageRollsUp(t *testing.T) {
	small, _ := scripted(t, `{"round":1,"text":"42","usage":{"input_tokens":100,"output_tokens":10,"cost":0.25}}`)
	main, err := replay.New([]replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "ask_model", Arguments: json.RawMessage(`{"prompt":"6*7?"}`)}}, Usage: llm.Usage{InputTokens: 5, OutputTokens: 3}},
		{Round: 2, Text: "The answer is 42.", Usage: llm.Usage{InputTokens: 7, OutputTokens: 4}},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(askmodel.New(askmodel.Config{Models: small, Model: "openai:small"}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: main, Model: "main", Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(t.Context(), agent.NewMemorySession("s"), "What is 6*7? Ask the small model.")
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 112, OutputTokens: 17, Cost: 0.25}
	if diff := cmp.Diff(want, out.Usage); diff != "" {
		t.Errorf("run usage (-want +got):\n%s", diff)
	}
}
