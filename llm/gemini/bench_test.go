package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
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
		lines := chunkLines(data)
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

// benchConversation returns a conversation of n messages in the shape of
// an agent's: a system prompt and a task (and a second user message when
// n is odd), then rounds of an assistant message with one call and its
// result, of a few hundred bytes each.
func benchConversation(n int) []llm.Message {
	ms := []llm.Message{{Role: llm.RoleSystem, Content: strings.Repeat("You are wield. ", 40)}, {Role: llm.RoleUser, Content: "Fix the failing test in main.go."}}
	if n%2 == 1 {
		ms = append(ms, llm.Message{Role: llm.RoleUser, Content: "Run the tests too."})
	}
	for i := 0; len(ms) < n; i++ {
		ms = append(ms, benchRound(i)...)
	}
	return ms[:n]
}

// benchRound returns round i of benchConversation: an assistant message
// with one call, and its result.
func benchRound(i int) []llm.Message {
	id := fmt.Sprintf("call_%d", i)
	return []llm.Message{
		{Role: llm.RoleAssistant, Content: fmt.Sprintf("Round %d: let me look at the file again.", i),
			ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"main.go","line":%d}`, i))}}},
		{Role: llm.RoleTool, ToolCallID: id, ToolName: "read_file", Content: strings.Repeat(fmt.Sprintf("line %d of main.go\n", i), 20)},
	}
}

// BenchmarkBuildRequest measures the request build of one round of a
// conversation with 10, 100 and 1,000 messages of history: the history
// was sent by the round before, and two messages before the last (an
// assistant message and its result) are new each round. (The last stays,
// as in a conversation that grows, where the last message of the round
// before is sent again; the history must not grow here.)
func BenchmarkBuildRequest(b *testing.B) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer"}},"required":["path"]}`)},
		{Name: "run_shell_command", Description: "Run a command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
	}
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint("history=", n), func(b *testing.B) {
			p := func() *Provider {
				p, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"})
				if err != nil {
					b.Fatal(err)
				}
				return p
			}()
			conv := append(benchConversation(n-1), llm.Message{Role: llm.RoleUser, Content: "Go on."})
			req := &llm.Request{Model: "gemini-test", Messages: conv, Tools: tools}
			if _, err := p.buildRequest(req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := n
			for b.Loop() {
				// New messages each round (making them is a few of the
				// allocations counted).
				copy(conv[n-3:], benchRound(i))
				i++
				if _, err := p.buildRequest(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
