package wield

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/llm/gemini"
	"github.com/wieldhq/wield/llm/openai"
)

// A ModelChoice is the model a run talks to: the catalogue's choice, the
// endpoint and the key.
type ModelChoice struct {
	catalog.Choice
	// BaseURL is the endpoint; empty means the API's own default.
	BaseURL string
	// APIKey is the key to send; empty sends none.
	APIKey string
}

// ModelSettings are what [ChooseModel] chooses a model by. Model is
// required.
type ModelSettings struct {
	// Model is "provider:model" or a name the catalogue knows.
	Model string
	// BaseURL and APIKey are the OpenAI settings (OPENAI_BASE_URL,
	// OPENAI_API_KEY, base_url and api_key in the config files).
	BaseURL, APIKey string
	// Endpoint, when set, is where the requests go, whatever the provider
	// (wield run --base-url).
	Endpoint string
	// Catalog knows the models and providers; nil means
	// [catalog.Default].
	Catalog *catalog.Catalog
	// Getenv reads the providers' key variables; nil means os.Getenv.
	Getenv func(string) string
}

// Compatible is the provider name of a model on an OpenAI-compatible
// server the catalogue does not know: "openai-compatible:NAME" is the
// model NAME at the base URL the settings give, spoken to with chat
// completions. [ChooseModel] gives this name to a bare name it does not
// know when a base URL is set, and takes it back, so that the name a
// session records chooses the same model again.
const Compatible = "openai-compatible"

// ChooseModel resolves s.Model ("provider:model" or a bare name) and
// decides where to send it and with which key. The rules, so that nothing
// falls back silently to another provider or endpoint:
//
//   - s.Endpoint (--base-url) applies to whatever provider was chosen;
//   - the OpenAI settings (s.BaseURL, s.APIKey) apply to the provider
//     "openai" only, and to a name the catalogue does not know when a
//     base URL is given (s.Endpoint or s.BaseURL): an OpenAI-compatible
//     server, whose choice is named "openai-compatible:NAME"
//     ([Compatible]), a name ChooseModel takes too;
//   - the provider "openai" speaks the Responses API to OpenAI itself and
//     chat completions to any other base URL, unless a "catalog" entry
//     for it in config says which;
//   - any other provider takes its key from its own variables
//     (ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY, ...), and a
//     missing key is an error naming them; local servers need none.
func ChooseModel(s ModelSettings) (ModelChoice, error) {
	cat, getenv, flagURL := s.Catalog, s.Getenv, s.Endpoint
	if cat == nil {
		cat = catalog.Default()
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	base := cmp.Or(flagURL, s.BaseURL)
	compatible := func(name string) ModelChoice {
		p := catalog.Provider{Name: Compatible, API: catalog.APIOpenAIChat, BaseURL: base}
		return ModelChoice{Choice: catalog.Choice{Provider: p, Model: name}, BaseURL: base, APIKey: s.APIKey}
	}
	if name, ok := strings.CutPrefix(s.Model, Compatible+":"); ok {
		if _, known := cat.Provider(Compatible); !known {
			switch {
			case name == "":
				return ModelChoice{}, fmt.Errorf("model %q names no model after %q", s.Model, Compatible+":")
			case base == "":
				return ModelChoice{}, fmt.Errorf("model %s is on an OpenAI-compatible server, and no URL says where: set OPENAI_BASE_URL (or base_url in config)", s.Model)
			}
			return compatible(name), nil
		}
	}
	ch, err := cat.Resolve(s.Model)
	if err != nil {
		if base != "" && (errors.Is(err, catalog.ErrUnknownModel) || errors.Is(err, catalog.ErrUnknownProvider)) {
			return compatible(s.Model), nil
		}
		return ModelChoice{}, err
	}
	mc := ModelChoice{Choice: ch, BaseURL: ch.Provider.BaseURL}
	openAI := ch.Provider.Name == "openai"
	switch {
	case flagURL != "":
		mc.BaseURL = flagURL
	case openAI && s.BaseURL != "":
		mc.BaseURL = s.BaseURL
	}
	if builtin, _ := catalog.Default().Provider("openai"); openAI && ch.Provider.API == catalog.APIOpenAIResponses &&
		mc.BaseURL != "" && !isOpenAIHost(mc.BaseURL) && slices.Equal(builtin.KeyEnv, ch.Provider.KeyEnv) && builtin.BaseURL == ch.Provider.BaseURL {
		// Servers that speak OpenAI's API elsewhere speak chat
		// completions; a catalogue entry in config can say otherwise.
		mc.Provider.API = catalog.APIOpenAIChat
	}
	if openAI && s.APIKey != "" {
		mc.APIKey = s.APIKey
		return mc, nil
	}
	for _, v := range ch.Provider.KeyEnv {
		if mc.APIKey = strings.TrimSpace(getenv(v)); mc.APIKey != "" {
			return mc, nil
		}
	}
	if len(ch.Provider.KeyEnv) > 0 && !(openAI && mc.BaseURL != "") {
		return ModelChoice{}, fmt.Errorf("no API key for %s: set %s", ch, strings.Join(ch.Provider.KeyEnv, " or "))
	}
	return mc, nil
}

// isOpenAIHost reports whether rawURL is on OpenAI's own API host.
func isOpenAIHost(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// OpenModel returns the provider for mc, priced by the catalogue. log
// receives the provider's records; nil discards them.
func OpenModel(mc ModelChoice, log *slog.Logger) (*catalog.Metered, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var p llm.Provider
	var err error
	switch mc.Provider.API {
	case catalog.APIOpenAIChat, catalog.APIOpenAIResponses:
		p, err = newOpenAI(mc, log)
	case catalog.APIAnthropic:
		p, err = anthropic.New(anthropic.Config{BaseURL: mc.BaseURL, APIKey: mc.APIKey, Model: mc.Model, Logger: log})
	case catalog.APIGemini:
		p, err = gemini.New(gemini.Config{BaseURL: mc.BaseURL, APIKey: mc.APIKey, Model: mc.Model, Logger: log})
	default:
		return nil, fmt.Errorf("model %s: wield cannot speak the %q API yet", mc, mc.Provider.API)
	}
	if err != nil {
		return nil, err
	}
	return catalog.Meter(p, mc.Choice), nil
}

func newOpenAI(mc ModelChoice, log *slog.Logger) (llm.Provider, error) {
	api := openai.ChatCompletions
	if mc.Provider.API == catalog.APIOpenAIResponses {
		api = openai.Responses
	}
	// The key was chosen above; OPENAI_API_KEY must not reach another
	// provider's server through the package's own fallback.
	return openai.New(openai.Config{API: api, BaseURL: mc.BaseURL, APIKey: mc.APIKey, NoKey: mc.APIKey == "",
		Model: mc.Model, Logger: log})
}
