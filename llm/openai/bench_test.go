package openai

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm/internal/wire"
)

// benchStream is a synthetic reply: 1,000 text deltas, then a tool call
// whose arguments arrive in 100 pieces.
func benchStream() []byte {
	var payloads []string
	for i := range 1000 {
		payloads = append(payloads, fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"word%d "},"finish_reason":null}]}`, i))
	}
	payloads = append(payloads, `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]}}]}`)
	for range 100 {
		payloads = append(payloads, `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}}]}`)
	}
	payloads = append(payloads, `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":1100}}`)
	return []byte(sse(payloads...))
}

// BenchmarkReadStream measures parsing and assembling a streamed reply,
// without the network, per event (bench/llm.sh sets it beside the other
// providers' readers).
func BenchmarkReadStream(b *testing.B) {
	bodies := map[string][]byte{"synthetic": benchStream()}
	if data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "conformance", "llm-streams", "openai-chat", "groq-reasoning.chunks.txt")); err == nil {
		var payloads []string
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimSpace(line); line != "" {
				payloads = append(payloads, line)
			}
		}
		bodies["groq-reasoning"] = []byte(sse(payloads...))
	}
	for name, body := range bodies {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readStream(bytes.NewReader(body), &wire.Names{}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bytes.Count(body, []byte("data: "))), "ns/event")
		})
	}
}

// benchResponsesStream is a synthetic Responses API reply: a reasoning
// summary in 100 deltas, 1,000 text deltas, then a function call whose
// arguments arrive in 100 pieces. It returns the body and its number of
// events.
func benchResponsesStream() ([]byte, int) {
	var events []string
	events = append(events, `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`{"type":"response.output_item.added","output_index":0,"sequence_number":1,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`)
	for i := range 100 {
		events = append(events, fmt.Sprintf(`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"thought%d ","sequence_number":%d}`, i, len(events)))
	}
	events = append(events, `{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"…"}],"encrypted_content":"gAAAAABo"}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}`)
	for i := range 1000 {
		events = append(events, fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"word%d ","logprobs":[],"sequence_number":%d}`, i, len(events)))
	}
	events = append(events, `{"type":"response.output_item.added","output_index":2,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"read"}}`)
	for range 100 {
		events = append(events, `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":2,"delta":"{\"a\":"}`)
	}
	events = append(events, `{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5-mini","output":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":1200,"output_tokens_details":{"reasoning_tokens":100},"total_tokens":1210}}}`)
	return []byte(rsse(events...)), len(events)
}

// BenchmarkReadStreamResponses measures parsing and assembling a streamed
// Responses API reply, without the network, per event.
func BenchmarkReadStreamResponses(b *testing.B) {
	synthetic, n := benchResponsesStream()
	bodies := map[string][]byte{"synthetic": synthetic}
	counts := map[string]int{"synthetic": n}
	if data, err := os.ReadFile(filepath.Join("testdata", "responses", "reasoning-tool-calls.sse")); err == nil {
		bodies["reasoning-tool-calls"] = data
		counts["reasoning-tool-calls"] = bytes.Count(data, []byte("\ndata: "))
	}
	for name, body := range bodies {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readResponsesStream(bytes.NewReader(body), &wire.Names{}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*counts[name]), "ns/event")
		})
	}
}
