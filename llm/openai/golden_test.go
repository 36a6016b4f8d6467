package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the random cuts of the stream tests; 0 picks one")

// testSeed returns the seed for random stream cuts and logs it, so that a
// failure can be reproduced with -seed.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("random seed %d (rerun with -seed=%d)", seed, seed)
	return seed
}

// streamForms are the ways a recorded stream is served.
var streamForms = []llmtest.StreamForm{
	{Name: "whole", Body: sseBody("\n", false, true)},
	{Name: "split", Body: sseBody("\n", false, true), Split: true},
	{Name: "crlf", Body: sseBody("\r\n", false, true)},
	{Name: "crlf-split", Body: sseBody("\r\n", false, true), Split: true},
	{Name: "cr-split", Body: sseBody("\r", false, true), Split: true},
	{Name: "keepalive-split", Body: sseBody("\n", true, true), Split: true},
	{Name: "no-done", Body: sseBody("\n", false, false)},
}

// sseBody returns a body renderer with the given line ending, optionally
// with keep-alive comments and event lines, and with or without [DONE].
func sseBody(eol string, extras, done bool) func([]string) []byte {
	return func(payloads []string) []byte {
		var b bytes.Buffer
		if extras {
			b.WriteString(": OPENROUTER PROCESSING" + eol + eol)
		}
		for i, p := range payloads {
			if extras && i%3 == 1 {
				b.WriteString(":" + eol + ": keep-alive" + eol + eol)
			}
			if extras && i%4 == 2 {
				b.WriteString("event: message" + eol + "id: " + "x" + eol + "retry: 1000" + eol)
			}
			b.WriteString("data: " + p + eol + eol)
		}
		if done {
			b.WriteString("data: [DONE]" + eol + eol)
		}
		return b.Bytes()
	}
}

func newTestProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = time.Millisecond
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStreamGolden replays every recorded OpenAI-compatible reply over HTTP
// and compares the assembled message with expected.json; a whole reply is
// asked for both without streaming and with, answered whole.
func TestStreamGolden(t *testing.T) {
	whole := func(noStream bool) llmtest.WholeForm {
		name := "nostream"
		if !noStream {
			name = "stream-answered-whole"
		}
		return llmtest.WholeForm{
			Name: name,
			Provider: func(t *testing.T, url string) llm.Provider {
				return newTestProvider(t, Config{BaseURL: url + "/v1", NoStream: noStream})
			},
			Sent: func(t *testing.T, body []byte) {
				var sent struct {
					Stream bool `json:"stream"`
				}
				if err := json.Unmarshal(body, &sent); err != nil || sent.Stream == noStream {
					t.Errorf("request %s: want stream %v", body, !noStream)
				}
			},
		}
	}
	llmtest.TestRecordings(t, llmtest.Recordings{
		Name:      "openai-chat",
		Path:      func(path string) bool { return path == "/v1/chat/completions" },
		Provider:  func(t *testing.T, url string) llm.Provider { return newTestProvider(t, Config{BaseURL: url + "/v1"}) },
		Forms:     streamForms,
		Whole:     []llmtest.WholeForm{whole(true), whole(false)},
		Seed:      *seedFlag,
		Reasoning: true,
		Usage: func(raw json.RawMessage, got llm.Usage) (llm.Usage, error) {
			var u struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			}
			err := json.Unmarshal(raw, &u)
			got.InputTokens, got.OutputTokens = u.PromptTokens, u.CompletionTokens // the rest is not recorded
			return got, err
		},
	})
}
