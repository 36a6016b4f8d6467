package anthropic

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

const testKey = "sk-ant-test-0123456789abcdef"

// fixturesDir is where the recorded Anthropic streams live, beside the
// repository.
var fixturesDir = llmtest.RecordingsDir("anthropic")

// streamForms are the ways a recorded stream is served.
var streamForms = []llmtest.StreamForm{
	{Name: "whole", Body: sseBody("\n", true, false)},
	{Name: "split", Body: sseBody("\n", true, false), Split: true},
	{Name: "crlf-split", Body: sseBody("\r\n", true, false), Split: true},
	{Name: "cr-split", Body: sseBody("\r", true, false), Split: true},
	{Name: "data-only", Body: sseBody("\n", false, false)},
	{Name: "comments-split", Body: sseBody("\n", true, true), Split: true},
}

// sseBody renders payloads as an event stream with the given line ending,
// with "event:" lines naming each event's type as the API sends them, and
// optionally with comments between events.
func sseBody(eol string, events, comments bool) func([]string) []byte {
	return func(payloads []string) []byte {
		var b bytes.Buffer
		for i, p := range payloads {
			if comments && i%3 == 1 {
				b.WriteString(": keep-alive" + eol + eol)
			}
			if events {
				var v struct {
					Type string `json:"type"`
				}
				json.Unmarshal([]byte(p), &v)
				b.WriteString("event: " + v.Type + eol)
			}
			b.WriteString("data: " + p + eol + eol)
		}
		return b.Bytes()
	}
}

func newTestProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
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

// TestStreamGolden replays every recorded Anthropic reply over HTTP, whole
// and cut at random places, and compares the assembled message with
// expected.json.
func TestStreamGolden(t *testing.T) {
	llmtest.TestRecordings(t, llmtest.Recordings{
		Name:     "anthropic",
		Path:     func(path string) bool { return path == "/v1/messages" },
		Provider: func(t *testing.T, url string) llm.Provider { return newTestProvider(t, Config{BaseURL: url}) },
		Forms:    streamForms,
		Seed:     *seedFlag,
		Usage: func(raw json.RawMessage, got llm.Usage) (llm.Usage, error) {
			var u struct {
				InputTokens  int `json:"input_tokens"`
				OutputTokens int `json:"output_tokens"`
			}
			err := json.Unmarshal(raw, &u)
			got.InputTokens, got.OutputTokens = u.InputTokens, u.OutputTokens // the rest is not recorded
			return got, err
		},
		Stop: func(finishReason string, _ int) llm.StopReason { return wantStop[finishReason] },
	})
}

// wantStop maps the recorded stop reasons to wield's.
var wantStop = map[string]llm.StopReason{"end_turn": llm.StopEnd, "tool_use": llm.StopToolUse, "refusal": llm.StopRefusal, "max_tokens": llm.StopMaxTokens}
