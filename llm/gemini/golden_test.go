package gemini

import (
	"encoding/json"
	"flag"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the random cuts of the stream tests; 0 picks one")

func sse(payloads ...string) string { return string(llmtest.SSE("\n", payloads...)) }

// streamForms are the ways a recorded stream is served.
var streamForms = []llmtest.StreamForm{
	{Name: "whole", Body: func(p []string) []byte { return llmtest.SSE("\n", p...) }},
	{Name: "split", Body: func(p []string) []byte { return llmtest.SSE("\n", p...) }, Split: true},
	{Name: "crlf-split", Body: func(p []string) []byte { return llmtest.SSE("\r\n", p...) }, Split: true},
	{Name: "json-array", ContentType: "application/json", Body: func(p []string) []byte {
		return []byte("[" + strings.Join(p, ",\n") + "]")
	}, Split: true},
}

// isGenerate reports whether path is a streamGenerateContent call.
func isGenerate(path string) bool { return strings.HasSuffix(path, ":streamGenerateContent") }

func newTestProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.APIKey == "" && cfg.Vertex == nil {
		cfg.APIKey = "test-key"
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

// goldenRequest is the request the recorded replies answer.
var goldenRequest = &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "What is the weather in San Francisco?"}},
	Tools: []llm.ToolDef{{Name: "weather", Description: "Weather for a place.", InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}}}

// signatureRE finds the thought signatures of a recorded reply.
var signatureRE = regexp.MustCompile(`"thoughtSignature"\s*:\s*"([^"]*)"`)

// TestStreamGolden replays every recorded Gemini reply over HTTP, whole,
// cut at random places, with CRLF line ends and as the JSON array that a
// request without alt=sse gets, and compares the assembled message with
// expected.json. Every thought signature of the recording must come back
// unchanged, in order, on the thinking blocks and tool calls.
func TestStreamGolden(t *testing.T) {
	llmtest.TestRecordings(t, llmtest.Recordings{
		Name:      "gemini",
		Path:      isGenerate,
		Provider:  func(t *testing.T, url string) llm.Provider { return newTestProvider(t, Config{BaseURL: url}) },
		Forms:     streamForms,
		Seed:      *seedFlag,
		Reasoning: true,
		Usage: func(raw json.RawMessage, _ llm.Usage) (llm.Usage, error) {
			var u struct {
				PromptTokenCount     int `json:"promptTokenCount"`
				CandidatesTokenCount int `json:"candidatesTokenCount"`
				ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
			}
			err := json.Unmarshal(raw, &u)
			return llm.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, ReasoningTokens: u.ThoughtsTokenCount}, err
		},
		Stop: func(_ string, calls int) llm.StopReason {
			if calls > 0 {
				return llm.StopToolUse
			}
			return llm.StopEnd
		},
		Check: checkSignatures,
	})
}

// checkSignatures checks that every thought signature of the recording
// raw comes back on the thinking blocks and tool calls of the reply.
func checkSignatures(t *testing.T, r llmtest.Result, raw []byte) {
	t.Helper()
	var sigs []string
	for _, m := range signatureRE.FindAllSubmatch(raw, -1) {
		sigs = append(sigs, string(m[1]))
	}
	var got []string
	for _, th := range r.Resp.Message.Thinking {
		if th.Provider != "gemini" {
			t.Errorf("thinking block of provider %q", th.Provider)
		}
		got = append(got, th.Signature)
	}
	for _, c := range r.Resp.Message.ToolCalls {
		if c.Signature != "" {
			got = append(got, c.Signature)
		}
	}
	// Signatures are compared as sets in order of kind: thinking blocks
	// first, then calls; the recordings have one or the other per reply.
	if !slices.Equal(sortedCopy(got), sortedCopy(sigs)) {
		t.Errorf("signatures kept %d (%v), want the %d of the recording", len(got), clipAll(got), len(sigs))
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func clipAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = wire.Clip(x, 12)
	}
	return out
}
