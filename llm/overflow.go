package llm

import (
	"errors"
	"strings"
)

// overflowPhrases are how the providers say a prompt is over the model's
// context window, lower-cased: OpenAI's error code and message, Anthropic's,
// Gemini's, and those of the common OpenAI-compatible servers (vLLM,
// llama.cpp, Ollama).
var overflowPhrases = [...]string{
	"context_length_exceeded",
	"maximum context length",
	"context window",
	"prompt is too long",
	"input is too long",
	"exceeds the maximum number of tokens",
	"input token count",
	"too many tokens",
	"context size",
}

// IsContextOverflow reports whether err says the request's prompt is over
// the model's context window: an [APIError] with status 400 or 413 whose
// message says so, in any of the providers' words. The cure is a shorter
// prompt (a compaction), not a retry.
func IsContextOverflow(err error) bool {
	var api *APIError
	if !errors.As(err, &api) || (api.Status != 400 && api.Status != 413) {
		return false
	}
	msg := strings.ToLower(api.Message)
	for _, p := range overflowPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
