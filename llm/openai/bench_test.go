package openai

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// without the network.
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
				if _, err := readStream(bytes.NewReader(body), &nameMap{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
