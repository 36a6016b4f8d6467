package main

import (
	"errors"

	"github.com/wieldhq/wield/llm"
)

// newProvider returns the model provider for cfg.
func newProvider(cfg runConfig, g *globals) (llm.Provider, error) {
	return nil, errors.New("the OpenAI-compatible provider is not built into this wield yet; use --replay")
}
