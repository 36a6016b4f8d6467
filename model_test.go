package wield

import (
	"strings"
	"testing"
)

func TestChooseModel(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "ak", "GOOGLE_API_KEY": "gk", "OPENAI_API_KEY": "ok"}
	getenv := func(k string) string { return env[k] }
	none := func(string) string { return "" }
	tests := []struct {
		name    string
		cfg     ModelSettings
		flagURL string
		getenv  func(string) string
		// want is "provider:model api base-url key", or the error's text.
		want string
	}{
		{"anthropic by prefix", ModelSettings{Model: "anthropic:claude-sonnet-4-5"}, "", getenv, "anthropic:claude-sonnet-4-5 anthropic  ak"},
		{"anthropic by bare dated name", ModelSettings{Model: "claude-sonnet-4-5-20250929"}, "", getenv, "anthropic:claude-sonnet-4-5-20250929 anthropic  ak"},
		{"gemini takes the second variable", ModelSettings{Model: "gemini:gemini-2.5-pro"}, "", getenv, "gemini:gemini-2.5-pro gemini  gk"},
		{"openai", ModelSettings{Model: "gpt-5", APIKey: "ok"}, "", getenv, "openai:gpt-5 openai-responses  ok"},
		{"--base-url reaches any provider", ModelSettings{Model: "anthropic:claude-haiku-4-5", BaseURL: "http://127.0.0.1:9/v1"}, "http://127.0.0.1:9", getenv, "anthropic:claude-haiku-4-5 anthropic http://127.0.0.1:9 ak"},
		// OPENAI_BASE_URL and OPENAI_API_KEY are OpenAI's: never sent to another provider.
		{"OpenAI settings stay with OpenAI", ModelSettings{Model: "anthropic:claude-haiku-4-5", BaseURL: "http://proxy.test/v1", APIKey: "ok"}, "", getenv, "anthropic:claude-haiku-4-5 anthropic  ak"},
		{"a local preset takes no key", ModelSettings{Model: "ollama:qwen3", BaseURL: "http://elsewhere.test/v1", APIKey: "ok"}, "", getenv, "ollama:qwen3 openai-chat http://127.0.0.1:11434/v1 "},
		{"openrouter needs its own key", ModelSettings{Model: "openrouter:anthropic/claude-sonnet-4.5", APIKey: "ok"}, "", getenv, "no API key for openrouter:anthropic/claude-sonnet-4.5: set OPENROUTER_API_KEY"},
		{"an unknown name at an explicit endpoint", ModelSettings{Model: "qwen3:8b", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "k"}, "", getenv, "openai-compatible:qwen3:8b openai-chat http://127.0.0.1:11434/v1 k"},
		{"an unknown name at the endpoint alone", ModelSettings{Model: "fake"}, "http://127.0.0.1:8080/v1", none, "openai-compatible:fake openai-chat http://127.0.0.1:8080/v1 "},
		{"the name a compatible choice records chooses it again", ModelSettings{Model: "openai-compatible:qwen3:8b", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "k"}, "", getenv, "openai-compatible:qwen3:8b openai-chat http://127.0.0.1:11434/v1 k"},
		{"a compatible name at the endpoint", ModelSettings{Model: "openai-compatible:fake"}, "http://127.0.0.1:8080/v1", none, "openai-compatible:fake openai-chat http://127.0.0.1:8080/v1 "},
		{"a compatible name needs a URL", ModelSettings{Model: "openai-compatible:fake"}, "", getenv, "model openai-compatible:fake is on an OpenAI-compatible server, and no URL says where: set OPENAI_BASE_URL"},
		{"a compatible prefix needs a name", ModelSettings{Model: "openai-compatible:", BaseURL: "http://127.0.0.1:1/v1"}, "", getenv, `model "openai-compatible:" names no model`},
		{"an unknown name alone", ModelSettings{Model: "mystery"}, "", getenv, `unknown model "mystery": name its provider`},
		{"a missing key names the variables", ModelSettings{Model: "gemini:gemini-2.5-flash"}, "", none, "no API key for gemini:gemini-2.5-flash: set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"openai at a local endpoint needs no key and speaks chat", ModelSettings{Model: "openai:gpt-5", BaseURL: "http://127.0.0.1:8080/v1"}, "", none, "openai:gpt-5 openai-chat http://127.0.0.1:8080/v1 "},
		{"the legacy setup: an OpenAI name at a compatible server", ModelSettings{Model: "gpt-4.1-mini", BaseURL: "http://127.0.0.1:11434/v1"}, "", none, "openai:gpt-4.1-mini openai-chat http://127.0.0.1:11434/v1 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.cfg
			s.Endpoint, s.Getenv = tt.flagURL, tt.getenv
			mc, err := ChooseModel(s)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = strings.Join([]string{mc.String(), mc.Provider.API, mc.BaseURL, mc.APIKey}, " ")
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("ChooseModel = %q, want %q", got, tt.want)
			}
		})
	}
}
