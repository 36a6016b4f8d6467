// Package catalog is what wield knows of models and of the providers that
// serve them: each model's context window, output limit, prices and
// capabilities, and each provider's API, base URL and key variable. The
// data is an embedded file ([Default]) that configuration can extend or
// override ([Catalog.Merge]).
//
// A model is chosen as "provider:model" ("anthropic:claude-sonnet-4-5",
// "ollama:qwen3") or by a bare name the catalogue resolves
// ([Catalog.Resolve]). [Meter] wraps a provider so that every response
// carries its cost; the context window is what compaction uses to decide
// when to compact.
package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

//go:embed models.json
var defaultData []byte

// The APIs a provider can speak; each is served by one llm package.
const (
	APIAnthropic       = "anthropic"        // llm/anthropic
	APIGemini          = "gemini"           // llm/gemini
	APIOpenAIChat      = "openai-chat"      // llm/openai, chat completions
	APIOpenAIResponses = "openai-responses" // llm/openai, the Responses API
)

// A Provider is a named way to reach models: an API, where it is served
// and where its key comes from.
type Provider struct {
	// Name is what comes before the colon in "provider:model".
	Name string `json:"name"`
	// API is one of the API constants.
	API string `json:"api"`
	// BaseURL is the endpoint; empty means the API's own default.
	BaseURL string `json:"base_url,omitempty"`
	// KeyEnv lists the environment variables the key is read from, first
	// set wins; empty means the provider needs no key (a local server).
	KeyEnv []string `json:"key_env,omitempty"`
	// Doc says in a few words what the provider is.
	Doc string `json:"doc,omitempty"`
}

// A Model is one model of one provider.
type Model struct {
	Provider string `json:"provider"`
	// Name is the model id the API takes.
	Name string `json:"name"`
	// Aliases are other names that resolve to this model.
	Aliases []string `json:"aliases,omitempty"`
	// ContextWindow is how many tokens a request may hold in all.
	ContextWindow int `json:"context_window,omitempty"`
	// MaxOutput is the most tokens one reply may have; zero means unknown.
	MaxOutput int `json:"max_output,omitempty"`
	// Price is in US dollars per million tokens; nil means unknown,
	// unless Local is set.
	Price *Price `json:"price,omitempty"`
	// Local marks a model run on the user's machine: it costs nothing.
	Local        bool         `json:"local,omitempty"`
	Capabilities Capabilities `json:"capabilities,omitzero"`
}

// Price is what a model's tokens cost, in US dollars per million tokens.
type Price struct {
	Input float64 `json:"input"`
	// CachedInput is the price of prompt tokens read from the cache; zero
	// means Input.
	CachedInput float64 `json:"cached_input,omitempty"`
	// CacheWrite is the price of prompt tokens written to the cache
	// (Anthropic); zero means Input.
	CacheWrite float64 `json:"cache_write,omitempty"`
	Output     float64 `json:"output"`
	// LongContext, if set, is the price of requests whose prompt is longer
	// than its Above tokens (Gemini's long-context tier).
	LongContext *Tier `json:"long_context,omitempty"`
}

// A Tier is the price of long requests.
type Tier struct {
	Above       int     `json:"above"`
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	Output      float64 `json:"output"`
}

// Capabilities says what a model can do.
type Capabilities struct {
	Tools         bool `json:"tools,omitempty"`
	ParallelCalls bool `json:"parallel_calls,omitempty"`
	Images        bool `json:"images,omitempty"`
	Reasoning     bool `json:"reasoning,omitempty"`
}

// A Catalog is a set of providers and models. Its methods do not modify
// it; it is safe for concurrent use.
type Catalog struct {
	providers []Provider
	models    []Model
}

// File is the form of the catalogue's data, in the embedded file and in
// configuration.
type File struct {
	Comment   string     `json:"comment,omitempty"`
	Providers []Provider `json:"providers,omitempty"`
	Models    []Model    `json:"models,omitempty"`
}

// Default returns the embedded catalogue.
func Default() *Catalog {
	c, err := Parse(defaultData)
	if err != nil {
		panic("catalog: the embedded models.json is broken: " + err.Error()) // a build defect, caught by the tests
	}
	return c
}

// Parse reads a catalogue in the [File] form. Unknown keys are errors, so
// a misspelt price is not silently ignored.
func Parse(data []byte) (*Catalog, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return New(f)
}

// New returns the catalogue of f after checking it.
func New(f File) (*Catalog, error) {
	c := &Catalog{}
	return c.Merge(f)
}

// Merge returns a new catalogue: c with f's providers and models added,
// replacing those of the same name (a model's fields are replaced whole).
// c is unchanged.
func (c *Catalog) Merge(f File) (*Catalog, error) {
	out := &Catalog{providers: slices.Clone(c.providers), models: slices.Clone(c.models)}
	var errs []error
	for _, p := range f.Providers {
		if err := checkProvider(p); err != nil {
			errs = append(errs, err)
			continue
		}
		if i := slices.IndexFunc(out.providers, func(q Provider) bool { return q.Name == p.Name }); i >= 0 {
			out.providers[i] = p
		} else {
			out.providers = append(out.providers, p)
		}
	}
	for _, m := range f.Models {
		if m.Name == "" || m.Provider == "" {
			errs = append(errs, fmt.Errorf("catalog: a model needs a name and a provider (got %q of %q)", m.Name, m.Provider))
			continue
		}
		if _, ok := out.Provider(m.Provider); !ok {
			errs = append(errs, fmt.Errorf("catalog: model %s names the unknown provider %q", m.Name, m.Provider))
			continue
		}
		if m.Price != nil && (m.Price.Input < 0 || m.Price.Output < 0 || m.Price.CachedInput < 0 || m.Price.CacheWrite < 0) {
			errs = append(errs, fmt.Errorf("catalog: model %s:%s has a negative price", m.Provider, m.Name))
			continue
		}
		if i := slices.IndexFunc(out.models, func(q Model) bool { return q.Provider == m.Provider && q.Name == m.Name }); i >= 0 {
			out.models[i] = m
		} else {
			out.models = append(out.models, m)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func checkProvider(p Provider) error {
	if p.Name == "" || strings.ContainsAny(p.Name, ": ") {
		return fmt.Errorf("catalog: provider name %q must be a word without colons or spaces", p.Name)
	}
	switch p.API {
	case APIAnthropic, APIGemini, APIOpenAIChat, APIOpenAIResponses:
		return nil
	}
	return fmt.Errorf("catalog: provider %s: api %q is not one of %s, %s, %s, %s", p.Name, p.API,
		APIAnthropic, APIGemini, APIOpenAIChat, APIOpenAIResponses)
}

// File returns the catalogue's data, as [Parse] reads it.
func (c *Catalog) File() File {
	return File{Providers: c.Providers(), Models: c.Models()}
}

// Providers returns the providers, in catalogue order.
func (c *Catalog) Providers() []Provider { return slices.Clone(c.providers) }

// Models returns the models, in catalogue order.
func (c *Catalog) Models() []Model { return slices.Clone(c.models) }

// Provider returns the provider called name.
func (c *Catalog) Provider(name string) (Provider, bool) {
	i := slices.IndexFunc(c.providers, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		return Provider{}, false
	}
	return c.providers[i], true
}

// Lookup returns the model called name of provider: by its name, an
// alias, or a dated version of either ("claude-sonnet-4-5-20250929" is
// claude-sonnet-4-5; "gpt-4.1-2025-04-14" is gpt-4.1). The longest
// matching name wins.
func (c *Catalog) Lookup(provider, name string) (Model, bool) {
	best, bestLen := -1, 0
	for i, m := range c.models {
		if m.Provider != provider {
			continue
		}
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			if (name == n || isDated(name, n)) && len(n) > bestLen {
				best, bestLen = i, len(n)
			}
		}
	}
	if best < 0 {
		return Model{}, false
	}
	return c.models[best], true
}

// isDated reports whether name is base followed by a date or a version
// suffix: "-20250929", "-2025-04-14", "@20250929", "-latest", "-001", or
// an Ollama tag (":8b", ":latest").
func isDated(name, base string) bool {
	rest, ok := strings.CutPrefix(name, base)
	if !ok || len(rest) < 2 || rest[0] != '-' && rest[0] != '@' && rest[0] != ':' {
		return false
	}
	if rest[0] == ':' {
		return !strings.Contains(rest[1:], ":")
	}
	rest = rest[1:]
	if rest == "latest" {
		return true
	}
	for _, r := range rest {
		if (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// A Choice is a resolved model choice: the provider to call and the model
// id to send, with the catalogue's entry when there is one.
type Choice struct {
	Provider Provider
	// Model is the model id to send.
	Model string
	// Info is the catalogue's entry; Known says whether there is one.
	Info  Model
	Known bool
}

// String returns the choice as "provider:model".
func (ch Choice) String() string { return ch.Provider.Name + ":" + ch.Model }

// ErrUnknownModel is wrapped by [Catalog.Resolve]'s error for a bare name
// it cannot place.
var ErrUnknownModel = errors.New("unknown model")

// ErrUnknownProvider is wrapped by [Catalog.Resolve]'s error for a
// "provider:model" whose provider the catalogue does not list.
var ErrUnknownProvider = errors.New("unknown provider")

// Resolve turns a model choice into a [Choice]. "provider:model" names the
// provider; the model need not be in the catalogue (a new model works the
// day it ships, without prices). A bare name must be in the catalogue
// under exactly one provider: there is no guessing, and no fallback to
// another provider.
func (c *Catalog) Resolve(spec string) (Choice, error) {
	spec = strings.TrimSpace(spec)
	if prov, name, ok := strings.Cut(spec, ":"); ok && !strings.Contains(prov, "/") {
		p, found := c.Provider(prov)
		if !found {
			return Choice{}, fmt.Errorf("%w %q in %q; known: %s", ErrUnknownProvider, prov, spec, strings.Join(c.providerNames(), ", "))
		}
		if name == "" {
			return Choice{}, fmt.Errorf("model %q names no model after %q", spec, prov+":")
		}
		ch := Choice{Provider: p, Model: name}
		ch.Info, ch.Known = c.Lookup(p.Name, name)
		return ch, nil
	}
	var found []Choice
	for _, p := range c.providers {
		if m, ok := c.Lookup(p.Name, spec); ok {
			found = append(found, Choice{Provider: p, Model: spec, Info: m, Known: true})
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Choice{}, fmt.Errorf("%w %q: name its provider, as in %s", ErrUnknownModel, spec, examples(spec))
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = f.String()
	}
	return Choice{}, fmt.Errorf("model %q is served by more than one provider; name one: %s", spec, strings.Join(names, ", "))
}

func (c *Catalog) providerNames() []string {
	out := make([]string, len(c.providers))
	for i, p := range c.providers {
		out[i] = p.Name
	}
	return out
}

func examples(name string) string {
	return fmt.Sprintf("openai:%[1]s, anthropic:%[1]s, gemini:%[1]s or ollama:%[1]s", name)
}
