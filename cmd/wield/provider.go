package main

import (
	"fmt"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm/catalog"
)

// modelChoice is the model a run talks to (see [wield.ModelChoice]).
type modelChoice = wield.ModelChoice

// catalogFor returns the built-in catalogue with the config's additions.
func catalogFor(cfg wield.Config) (*catalog.Catalog, error) {
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

// chooseModel resolves cfg.Model as [wield.ChooseModel] does, with the
// OpenAI settings of cfg and --base-url (flagURL).
func chooseModel(cfg wield.Config, flagURL string, cat *catalog.Catalog, getenv func(string) string) (modelChoice, error) {
	return wield.ChooseModel(wield.ModelSettings{Model: cfg.Model, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Endpoint: flagURL, Catalog: cat, Getenv: getenv})
}

// newProvider returns the provider for mc, priced by the catalogue,
// logging to the command's log.
func newProvider(mc modelChoice, g *globals) (*catalog.Metered, error) {
	return wield.OpenModel(mc, g.logger())
}
