package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wieldhq/wield/llm"
)

func TestDefaultIsComplete(t *testing.T) {
	c := Default()
	if len(c.Models()) < 20 {
		t.Fatalf("%d models; the embedded catalogue lost entries", len(c.Models()))
	}
	for _, api := range []string{"anthropic", "gemini", "openai", "ollama"} {
		if _, ok := c.Provider(api); !ok {
			t.Errorf("provider %s missing", api)
		}
	}
	for _, m := range c.Models() {
		if m.ContextWindow <= 0 {
			t.Errorf("%s:%s has no context window", m.Provider, m.Name)
		}
		if !m.Local && (m.Price == nil || m.Price.Input <= 0 || m.Price.Output <= 0) {
			t.Errorf("%s:%s has no prices", m.Provider, m.Name)
		}
		if !m.Capabilities.Tools {
			t.Errorf("%s:%s cannot call tools; wield needs that", m.Provider, m.Name)
		}
	}
}

func TestResolve(t *testing.T) {
	c := Default()
	tests := []struct {
		spec, want string
		known      bool
		err        error
		errText    string
	}{
		{"anthropic:claude-sonnet-4-5", "anthropic:claude-sonnet-4-5", true, nil, ""},
		{"claude-sonnet-4-5-20250929", "anthropic:claude-sonnet-4-5-20250929", true, nil, ""},
		{"gemini-2.5-pro", "gemini:gemini-2.5-pro", true, nil, ""},
		{"gpt-4.1-2025-04-14", "openai:gpt-4.1-2025-04-14", true, nil, ""},
		{"openai:gpt-5", "openai:gpt-5", true, nil, ""},
		{"ollama:qwen3", "ollama:qwen3", true, nil, ""},
		{"ollama:qwen3:8b", "ollama:qwen3:8b", true, nil, ""},
		{"anthropic:claude-next-9", "anthropic:claude-next-9", false, nil, ""},
		{"mystery-model", "", false, ErrUnknownModel, "ollama:mystery-model"},
		{"nope:model", "", false, ErrUnknownProvider, "known: anthropic, gemini, openai"},
		{"anthropic:", "", false, nil, "names no model"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			ch, err := c.Resolve(tt.spec)
			if tt.want == "" {
				if err == nil || tt.err != nil && !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("Resolve(%q) = %v, %v; want an error wrapping %v saying %q", tt.spec, ch, err, tt.err, tt.errText)
				}
				return
			}
			if err != nil || ch.String() != tt.want || ch.Known != tt.known {
				t.Fatalf("Resolve(%q) = %s (known %v), %v; want %s (known %v)", tt.spec, ch, ch.Known, err, tt.want, tt.known)
			}
		})
	}
}

func TestResolveAmbiguous(t *testing.T) {
	c, err := Default().Merge(File{Models: []Model{{Provider: "openrouter", Name: "gpt-5", ContextWindow: 1, Price: &Price{Input: 1, Output: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve("gpt-5")
	if err == nil || !strings.Contains(err.Error(), "openai:gpt-5, openrouter:gpt-5") {
		t.Fatalf("err = %v; want both choices named", err)
	}
}

func TestCost(t *testing.T) {
	c := Default()
	sonnet, _ := c.Lookup("anthropic", "claude-sonnet-4-5")
	gemini, _ := c.Lookup("gemini", "gemini-2.5-pro")
	qwen, _ := c.Lookup("ollama", "qwen3")
	tests := []struct {
		name  string
		m     Model
		u     llm.Usage
		want  float64
		known bool
	}{
		// 1M plain input at $3 + 1M output at $15.
		{"plain", sonnet, llm.Usage{InputTokens: 1e6, OutputTokens: 1e6}, 18, true},
		// 100k prompt: 80k read from cache ($0.30/M), 10k written ($3.75/M), 10k plain ($3/M).
		{"cache", sonnet, llm.Usage{InputTokens: 100000, CachedTokens: 80000, CacheWriteTokens: 10000}, 0.024 + 0.0375 + 0.03, true},
		// Above 200k the whole prompt is priced at the long tier.
		{"long context", gemini, llm.Usage{InputTokens: 300000, OutputTokens: 1000}, 0.3*2.5 + 0.001*15, true},
		{"local", qwen, llm.Usage{InputTokens: 5000}, 0, true},
		{"unknown", Model{Name: "x"}, llm.Usage{InputTokens: 5000}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, known := tt.m.Cost(tt.u)
			if known != tt.known || math.Abs(got-tt.want) > 1e-9 {
				t.Fatalf("Cost = %v (known %v), want %v (known %v)", got, known, tt.want, tt.known)
			}
		})
	}
}

func TestMergeOverridesAndChecks(t *testing.T) {
	c, err := Default().Merge(File{
		Providers: []Provider{{Name: "work", API: APIOpenAIChat, BaseURL: "https://llm.example.test/v1", KeyEnv: []string{"WORK_KEY"}}},
		Models: []Model{
			{Provider: "anthropic", Name: "claude-sonnet-4-5", ContextWindow: 1000000, Price: &Price{Input: 6, Output: 22.5}},
			{Provider: "work", Name: "house-model", ContextWindow: 32000, Local: true},
		}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := c.Lookup("anthropic", "claude-sonnet-4-5")
	if m.ContextWindow != 1000000 || m.Price.Input != 6 {
		t.Errorf("override not applied: %+v", m)
	}
	if d, _ := Default().Lookup("anthropic", "claude-sonnet-4-5"); d.ContextWindow != 200000 {
		t.Errorf("Merge changed the catalogue it was called on")
	}
	if ch, err := c.Resolve("house-model"); err != nil || ch.Provider.BaseURL != "https://llm.example.test/v1" {
		t.Errorf("Resolve(house-model) = %+v, %v", ch, err)
	}
	for _, bad := range []File{
		{Providers: []Provider{{Name: "x", API: "soap"}}},
		{Providers: []Provider{{Name: "a:b", API: APIGemini}}},
		{Models: []Model{{Provider: "nobody", Name: "m"}}},
		{Models: []Model{{Provider: "openai", Name: "m", Price: &Price{Input: -1}}}},
	} {
		if _, err := Default().Merge(bad); err == nil {
			t.Errorf("Merge(%+v) accepted it", bad)
		}
	}
	if _, err := Parse([]byte(`{"models":[{"provider":"openai","name":"m","prize":{}}]}`)); err == nil || !strings.Contains(err.Error(), "prize") {
		t.Errorf("a misspelt key was accepted: %v", err)
	}
}

type provider llm.Usage

func (p provider) Stream(context.Context, *llm.Request, func(llm.Event)) (*llm.Response, error) {
	return &llm.Response{Usage: llm.Usage(p)}, nil
}

func TestMeter(t *testing.T) {
	c := Default()
	ch, _ := c.Resolve("anthropic:claude-haiku-4-5")
	m := Meter(provider(llm.Usage{InputTokens: 2e6, OutputTokens: 1e6}), ch)
	resp, err := m.Stream(t.Context(), &llm.Request{}, nil)
	if err != nil || !m.Known() || math.Abs(resp.Usage.Cost-7) > 1e-9 {
		t.Fatalf("cost = %v (known %v), %v; want $7", resp.Usage.Cost, m.Known(), err)
	}
	ch, _ = c.Resolve("anthropic:claude-next-9")
	m = Meter(provider(llm.Usage{InputTokens: 10}), ch)
	if resp, _ := m.Stream(t.Context(), &llm.Request{}, nil); m.Known() || resp.Usage.Cost != 0 {
		t.Fatalf("an unknown model was priced: %v", resp.Usage.Cost)
	}
}

// FuzzParse checks that whatever Parse accepts survives a round trip
// through its own File form unchanged, and that nothing makes it panic.
// An empty list and none are the same catalogue (omitempty writes
// neither).
func FuzzParse(f *testing.F) {
	f.Add(defaultData)
	f.Add([]byte(`{"providers":[{"name":"x","api":"openai-chat"}],"models":[{"provider":"x","name":"m","aliases":["n"],"local":true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(c.File())
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Parse(again)
		if err != nil {
			t.Fatalf("its own output does not parse: %v\n%s", err, again)
		}
		if diff := cmp.Diff(c.File(), c2.File(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip changed the catalogue:\n%s", diff)
		}
	})
}
