package main

import (
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/openai"
)

// newProvider returns the OpenAI-compatible provider for cfg. An empty
// API key means OPENAI_API_KEY, or none (local servers such as Ollama).
func newProvider(cfg runConfig, g *globals) (llm.Provider, error) {
	return openai.New(openai.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Logger: g.logger()})
}
