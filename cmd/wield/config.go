package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/workspace"
)

// runConfig is what `wield run` and `wield chat` need to reach a model.
// Sources, strongest first: flags, the environment (WIELD_MODEL,
// OPENAI_BASE_URL, OPENAI_API_KEY), the workspace's .wield/config.json, the
// user's ~/.config/wield/config.json. BaseURL and APIKey outside the flag
// are OpenAI settings; [chooseModel] says where each applies.
type runConfig struct {
	Model        string   `json:"model,omitempty"`
	BaseURL      string   `json:"base_url,omitempty"`
	APIKey       string   `json:"api_key,omitempty"`
	MaxRounds    int      `json:"max_rounds,omitempty"`
	Tools        []string `json:"tools,omitempty"`
	SystemPrompt string   `json:"system_prompt,omitempty"`
	// ExpireToolResults replaces, in prompts, tool results older than this
	// many tasks with a short note; zero keeps them all.
	ExpireToolResults int `json:"expire_tool_results,omitempty"`
	// Catalog adds providers and models to the built-in catalogue or
	// overrides them (prices, windows, base URLs); see `wield models`.
	Catalog *catalog.File `json:"catalog,omitempty"`
}

// merge fills the zero fields of c from o.
func (c *runConfig) merge(o runConfig) {
	if c.Model == "" {
		c.Model = o.Model
	}
	if c.BaseURL == "" {
		c.BaseURL = o.BaseURL
	}
	if c.APIKey == "" {
		c.APIKey = o.APIKey
	}
	if c.MaxRounds == 0 {
		c.MaxRounds = o.MaxRounds
	}
	if c.Tools == nil {
		c.Tools = o.Tools
	}
	if c.SystemPrompt == "" {
		c.SystemPrompt = o.SystemPrompt
	}
	if c.ExpireToolResults == 0 {
		c.ExpireToolResults = o.ExpireToolResults
	}
	if c.Catalog == nil {
		c.Catalog = o.Catalog
	}
}

// loadRunConfig merges flags over the environment over the config files.
func loadRunConfig(flags runConfig, ws string, getenv func(string) string) (runConfig, error) {
	c := flags
	c.merge(runConfig{Model: getenv("WIELD_MODEL"), BaseURL: getenv("OPENAI_BASE_URL"), APIKey: getenv("OPENAI_API_KEY")})
	files := []string{workspace.Layout{Root: ws}.Config()}
	if u, err := workspace.User(); err == nil {
		files = append(files, u.Config())
	}
	for _, f := range files {
		fc, err := readConfigFile(f)
		if err != nil {
			return c, err
		}
		c.merge(fc)
	}
	return c, nil
}

func readConfigFile(path string) (runConfig, error) {
	var c runConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// noModelHelp says how to configure a model.
const noModelHelp = `no model configured. Choose one of:

  Claude, Gemini or OpenAI, with the provider's usual key:
    export WIELD_MODEL=anthropic:claude-sonnet-4-5 ANTHROPIC_API_KEY=...
    export WIELD_MODEL=gemini:gemini-2.5-pro GEMINI_API_KEY=...
    export WIELD_MODEL=openai:gpt-5 OPENAI_API_KEY=sk-...

  a local model with Ollama (https://ollama.com):
    ollama pull qwen3
    export WIELD_MODEL=ollama:qwen3

  any OpenAI-compatible endpoint:
    export WIELD_MODEL=my-model OPENAI_BASE_URL=http://127.0.0.1:8080/v1

  or the same in .wield/config.json of the workspace, or in
  ~/.config/wield/config.json:
    {"model": "ollama:qwen3"}

  Flags --model and --base-url override all of these; wield models lists the
  models and providers wield knows; --replay FILE plays a scripted model.`

// helpError is an error whose text is a paragraph of help.
type helpError string

func (e helpError) Error() string { return string(e) }
