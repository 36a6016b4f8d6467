package anthropic

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
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
		p := llmtest.Payloads(data)
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

// BenchmarkBuildRequest measures the request build of one round of a
// conversation with 10, 100 and 1,000 messages of history: the history
// was sent by the round before, and two messages before the last (an
// assistant message and its result) are new each round. (The last stays,
// as in a conversation that grows, where the last message of the round
// before is sent again; the history must not grow here.)
func BenchmarkBuildRequest(b *testing.B) {
	llmtest.BenchmarkBuild(b, "claude-test", func() llmtest.Build {
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
