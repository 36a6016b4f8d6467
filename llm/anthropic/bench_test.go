package anthropic

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

// benchStream is a synthetic reply in the shape of openai's benchmark: a
// thinking block, 1,000 text deltas, then a tool call whose input arrives
// in 100 pieces. It returns the body and its number of events.
func benchStream() ([]byte, int) {
	payloads := []string{start,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIAxgCIkD"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`}
	for i := range 1000 {
		payloads = append(payloads, textDelta("1", fmt.Sprintf("word%d ", i)))
	}
	payloads = append(payloads, `{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`)
	for range 100 {
		payloads = append(payloads, `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`)
	}
	payloads = append(payloads, `{"type":"content_block_stop","index":2}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":1100}}`, msgStop)
	return []byte(sse(payloads...)), len(payloads)
}

// BenchmarkReadStream measures parsing and assembling a streamed reply,
// without the network, and reports the cost per event.
func BenchmarkReadStream(b *testing.B) {
	type body struct {
		data   []byte
		events int
	}
	synthetic, n := benchStream()
	bodies := map[string]body{"synthetic": {synthetic, n}}
	if data, err := os.ReadFile(filepath.Join(fixturesDir, "anthropic-issue-11719-quoted-tool-input.chunks.txt")); err == nil {
		p := payloads(data)
		bodies["quoted-tool-input"] = body{[]byte(sse(p...)), len(p)}
	}
	for name, bd := range bodies {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(bd.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readStream(bytes.NewReader(bd.data), &wire.Names{}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bd.events), "ns/event")
		})
	}
}

// TestBenchStreamIsValid keeps the benchmark's input honest: it must read
// as a complete reply.
func TestBenchStreamIsValid(t *testing.T) {
	data, _ := benchStream()
	resp, err := readStream(bytes.NewReader(data), &wire.Names{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Message.Content, "word0 word1 ") || len(resp.Message.ToolCalls) != 1 || resp.Message.Reasoning != "Let me think." {
		t.Errorf("the benchmark stream reads as %+v", resp.Message)
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
			req := &llm.Request{Model: "claude-test", Messages: conv, Tools: tools}
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
