package main

import (
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm/catalog"
)

func TestChooseModel(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "ak", "GOOGLE_API_KEY": "gk", "OPENAI_API_KEY": "ok"}
	getenv := func(k string) string { return env[k] }
	none := func(string) string { return "" }
	tests := []struct {
		name    string
		cfg     runConfig
		flagURL string
		getenv  func(string) string
		// want is "provider:model api base-url key", or the error's text.
		want string
	}{
		{"anthropic by prefix", runConfig{Model: "anthropic:claude-sonnet-4-5"}, "", getenv, "anthropic:claude-sonnet-4-5 anthropic  ak"},
		{"anthropic by bare dated name", runConfig{Model: "claude-sonnet-4-5-20250929"}, "", getenv, "anthropic:claude-sonnet-4-5-20250929 anthropic  ak"},
		{"gemini takes the second variable", runConfig{Model: "gemini:gemini-2.5-pro"}, "", getenv, "gemini:gemini-2.5-pro gemini  gk"},
		{"openai", runConfig{Model: "gpt-5", APIKey: "ok"}, "", getenv, "openai:gpt-5 openai-responses  ok"},
		{"--base-url reaches any provider", runConfig{Model: "anthropic:claude-haiku-4-5", BaseURL: "http://127.0.0.1:9/v1"}, "http://127.0.0.1:9", getenv, "anthropic:claude-haiku-4-5 anthropic http://127.0.0.1:9 ak"},
		// OPENAI_BASE_URL and OPENAI_API_KEY are OpenAI's: never sent to another provider.
		{"OpenAI settings stay with OpenAI", runConfig{Model: "anthropic:claude-haiku-4-5", BaseURL: "http://proxy.test/v1", APIKey: "ok"}, "", getenv, "anthropic:claude-haiku-4-5 anthropic  ak"},
		{"a local preset takes no key", runConfig{Model: "ollama:qwen3", BaseURL: "http://elsewhere.test/v1", APIKey: "ok"}, "", getenv, "ollama:qwen3 openai-chat http://127.0.0.1:11434/v1 "},
		{"openrouter needs its own key", runConfig{Model: "openrouter:anthropic/claude-sonnet-4.5", APIKey: "ok"}, "", getenv, "no API key for openrouter:anthropic/claude-sonnet-4.5: set OPENROUTER_API_KEY"},
		{"an unknown name at an explicit endpoint", runConfig{Model: "qwen3:8b", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "k"}, "", getenv, "openai-compatible:qwen3:8b openai-chat http://127.0.0.1:11434/v1 k"},
		{"an unknown name alone", runConfig{Model: "mystery"}, "", getenv, `unknown model "mystery": name its provider`},
		{"a missing key names the variables", runConfig{Model: "gemini:gemini-2.5-flash"}, "", none, "no API key for gemini:gemini-2.5-flash: set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"openai at a local endpoint needs no key and speaks chat", runConfig{Model: "openai:gpt-5", BaseURL: "http://127.0.0.1:8080/v1"}, "", none, "openai:gpt-5 openai-chat http://127.0.0.1:8080/v1 "},
		{"the legacy setup: an OpenAI name at a compatible server", runConfig{Model: "gpt-4.1-mini", BaseURL: "http://127.0.0.1:11434/v1"}, "", none, "openai:gpt-4.1-mini openai-chat http://127.0.0.1:11434/v1 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mc, err := chooseModel(tt.cfg, tt.flagURL, catalog.Default(), tt.getenv)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = strings.Join([]string{mc.String(), mc.Provider.API, mc.BaseURL, mc.APIKey}, " ")
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("chooseModel = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUsageLine(t *testing.T) {
	if got := thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %q", got)
	}
	if got := tokens(1048576); got != "1.05M" {
		t.Errorf("tokens = %q", got)
	}
}

func TestCompactCommand(t *testing.T) {
	for _, tt := range []struct {
		line, focus string
		ok          bool
	}{
		{"/compact", "", true},
		{"/compact   the tests ", "the tests", true},
		{"/compact\tfiles", "files", true},
		{"/compactor", "", false},
		{"compact it", "", false},
	} {
		focus, ok := compactCommand(tt.line)
		if focus != tt.focus || ok != tt.ok {
			t.Errorf("compactCommand(%q) = %q, %v; want %q, %v", tt.line, focus, ok, tt.focus, tt.ok)
		}
	}
}
