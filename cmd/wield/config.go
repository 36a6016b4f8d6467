package main

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
