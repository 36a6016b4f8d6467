package llm

import (
	"errors"
	"fmt"
	"testing"
)

func TestIsContextOverflow(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		// The providers' own words, as their APIs answer.
		{&APIError{Status: 400, Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages. (context_length_exceeded)"}, true},
		{&APIError{Status: 400, Message: "prompt is too long: 213462 tokens > 200000 maximum"}, true},
		{&APIError{Status: 400, Message: "The input token count (1205332) exceeds the maximum number of tokens allowed (1048576)."}, true},
		{&APIError{Status: 400, Message: "the request exceeds the available context size, try increasing it"}, true},
		{&APIError{Status: 400, Message: "request (9000 tokens) exceeds the context size (8192 tokens)"}, true},
		{&APIError{Status: 413, Message: "Request too large: too many tokens"}, true},
		{fmt.Errorf("model call in round 3: %w", &APIError{Status: 400, Message: "prompt is too long"}), true},
		// Not an overflow.
		{&APIError{Status: 400, Message: "invalid tool schema"}, false},
		{&APIError{Status: 429, Message: "too many tokens per minute"}, false},
		{&APIError{Status: 500, Message: "maximum context length"}, false},
		{errors.New("prompt is too long"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsContextOverflow(tt.err); got != tt.want {
			t.Errorf("IsContextOverflow(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
