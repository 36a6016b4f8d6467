package gemini

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// benchStream is a synthetic reply: 100 thought parts, 1,000 text parts,
// then a function call whose arguments arrive as 100 partialArgs. It
// returns the body and its number of events.
func benchStream() ([]byte, int) {
	var chunks []string
	for i := range 100 {
		chunks = append(chunks, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":"thought%d ","thought":true}]},"index":0}],"usageMetadata":{"trafficType":"ON_DEMAND"},"modelVersion":"gemini-2.5-pro","responseId":"r1"}`, i))
	}
	for i := range 1000 {
		chunks = append(chunks, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":"word%d "}]},"index":0}],"usageMetadata":{"trafficType":"ON_DEMAND"},"modelVersion":"gemini-2.5-pro","responseId":"r1"}`, i))
	}
	chunks = append(chunks, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"read","willContinue":true},"thoughtSignature":"CiMBjz1rX25KieIB4d4AwFn8"}]},"index":0}],"responseId":"r1"}`)
	for i := range 100 {
		chunks = append(chunks, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[%d]","stringValue":"item %d","willContinue":true}],"willContinue":true}}]},"index":0}],"responseId":"r1"}`, i/2, i))
	}
	chunks = append(chunks, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1100,"thoughtsTokenCount":100},"responseId":"r1"}`)
	return []byte(sse(chunks...)), len(chunks)
}

// BenchmarkReadStream measures parsing and assembling a streamed reply,
// without the network, per event: a synthetic one and the longest
// recording (Vertex AI's nested streamed arguments), when present.
func BenchmarkReadStream(b *testing.B) {
	synthetic, n := benchStream()
	bodies := map[string][]byte{"synthetic": synthetic}
	counts := map[string]int{"synthetic": n}
	if data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "conformance", "llm-streams", "gemini", "google-vertex-stream-tool-call-arguments-nested.1.chunks.txt")); err == nil {
		lines := llmtest.Payloads(data)
		bodies["vertex-nested-arguments"] = []byte(sse(lines...))
		counts["vertex-nested-arguments"] = len(lines)
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
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*counts[name]), "ns/event")
		})
	}
}

// BenchmarkBuildRequest measures the request build of one round of a
// conversation with 10, 100 and 1,000 messages of history: the history
// was sent by the round before, and two messages before the last (an
// assistant message and its result) are new each round. (The last stays,
// as in a conversation that grows, where the last message of the round
// before is sent again; the history must not grow here.)
func BenchmarkBuildRequest(b *testing.B) {
	llmtest.BenchmarkBuild(b, "gemini-test", func() llmtest.Build {
		p, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"})
		if err != nil {
			b.Fatal(err)
		}
		return func(req *llm.Request) ([]byte, error) {
			_, err := p.buildRequest(req) // the body stays in pieces, as it is sent
			return nil, err
		}
	})
}
