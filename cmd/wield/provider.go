package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/llm/gemini"
	"github.com/wieldhq/wield/llm/openai"
)

// modelChoice is the model a run talks to: the catalogue's choice, the
// endpoint and the key, each with where it came from.
type modelChoice struct {
	catalog.Choice
	// BaseURL is the endpoint; empty means the API's own default.
	BaseURL string
	// APIKey is the key to send; empty sends none.
	APIKey string
}

// catalogFor returns the built-in catalogue with the config's additions.
func catalogFor(cfg runConfig) (*catalog.Catalog, error) {
	cat := catalog.Default()
	if cfg.Catalog == nil {
		return cat, nil
	}
	cat, err := cat.Merge(*cfg.Catalog)
	if err != nil {
		return nil, fmt.Errorf("config \"catalog\": %w", err)
	}
	return cat, nil
}

// chooseModel resolves cfg.Model ("provider:model" or a bare name) and
// decides where to send it and with which key. The rules, so that nothing
// falls back silently to another provider or endpoint:
//
//   - --base-url (flagURL) applies to whatever provider was chosen;
//   - the OpenAI settings (OPENAI_BASE_URL, OPENAI_API_KEY, base_url and
//     api_key in config files) apply to the provider "openai" only, and to
//     a name the catalogue does not know when a base URL is given: an
//     OpenAI-compatible server, as before the catalogue;
//   - the provider "openai" speaks the Responses API to OpenAI itself and
//     chat completions to any other base URL, unless a "catalog" entry
//     for it in config says which;
//   - any other provider takes its key from its own variables
//     (ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY, ...), and a
//     missing key is an error naming them; local servers need none.
func chooseModel(cfg runConfig, flagURL string, cat *catalog.Catalog, getenv func(string) string) (modelChoice, error) {
	ch, err := cat.Resolve(cfg.Model)
	if err != nil {
		if cfg.BaseURL != "" && (errors.Is(err, catalog.ErrUnknownModel) || errors.Is(err, catalog.ErrUnknownProvider)) {
			p := catalog.Provider{Name: "openai-compatible", API: catalog.APIOpenAIChat, BaseURL: cfg.BaseURL}
			return modelChoice{Choice: catalog.Choice{Provider: p, Model: cfg.Model}, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey}, nil
		}
		return modelChoice{}, err
	}
	mc := modelChoice{Choice: ch, BaseURL: ch.Provider.BaseURL}
	openAI := ch.Provider.Name == "openai"
	switch {
	case flagURL != "":
		mc.BaseURL = flagURL
	case openAI && cfg.BaseURL != "":
		mc.BaseURL = cfg.BaseURL
	}
	if builtin, _ := catalog.Default().Provider("openai"); openAI && ch.Provider.API == catalog.APIOpenAIResponses &&
		mc.BaseURL != "" && !isOpenAIHost(mc.BaseURL) && slices.Equal(builtin.KeyEnv, ch.Provider.KeyEnv) && builtin.BaseURL == ch.Provider.BaseURL {
		// Servers that speak OpenAI's API elsewhere speak chat
		// completions; a catalogue entry in config can say otherwise.
		mc.Provider.API = catalog.APIOpenAIChat
	}
	if openAI && cfg.APIKey != "" {
		mc.APIKey = cfg.APIKey
		return mc, nil
	}
	for _, v := range ch.Provider.KeyEnv {
		if mc.APIKey = strings.TrimSpace(getenv(v)); mc.APIKey != "" {
			return mc, nil
		}
	}
	if len(ch.Provider.KeyEnv) > 0 && !(openAI && mc.BaseURL != "") {
		return modelChoice{}, fmt.Errorf("no API key for %s: set %s", ch, strings.Join(ch.Provider.KeyEnv, " or "))
	}
	return mc, nil
}

// isOpenAIHost reports whether rawURL is on OpenAI's own API host.
func isOpenAIHost(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// newProvider returns the provider for mc, priced by the catalogue.
func newProvider(mc modelChoice, g *globals) (*catalog.Metered, error) {
	var p llm.Provider
	var err error
	switch mc.Provider.API {
	case catalog.APIOpenAIChat, catalog.APIOpenAIResponses:
		p, err = newOpenAI(mc, g)
	case catalog.APIAnthropic:
		p, err = anthropic.New(anthropic.Config{BaseURL: mc.BaseURL, APIKey: mc.APIKey, Model: mc.Model, Logger: g.logger()})
	case catalog.APIGemini:
		p, err = gemini.New(gemini.Config{BaseURL: mc.BaseURL, APIKey: mc.APIKey, Model: mc.Model, Logger: g.logger()})
	default:
		return nil, fmt.Errorf("model %s: wield cannot speak the %q API yet", mc, mc.Provider.API)
	}
	if err != nil {
		return nil, err
	}
	return catalog.Meter(p, mc.Choice), nil
}

func newOpenAI(mc modelChoice, g *globals) (llm.Provider, error) {
	api := openai.ChatCompletions
	if mc.Provider.API == catalog.APIOpenAIResponses {
		api = openai.Responses
	}
	// The key was chosen above; OPENAI_API_KEY must not reach another
	// provider's server through the package's own fallback.
	return openai.New(openai.Config{API: api, BaseURL: mc.BaseURL, APIKey: mc.APIKey, NoKey: mc.APIKey == "",
		Model: mc.Model, Logger: g.logger()})
}
