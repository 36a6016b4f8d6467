package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
)

// BenchmarkAgent_Round measures the loop's overhead per round (prompt
// building, recording, scheduling; the model is the replay provider and the
// tool a no-op) with 10 and 1,000 turns of history.
func BenchmarkAgent_Round(b *testing.B) {
	for _, turns := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", turns), func(b *testing.B) {
			const rounds = 4
			var entries []replay.Entry
			for r := 1; r < rounds; r++ {
				entries = append(entries, replay.Entry{Round: r, ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"text":"r%d"}`, r))}}})
			}
			entries = append(entries, replay.Entry{Round: rounds, Text: "done"})
			p, err := replay.New(entries)
			if err != nil {
				b.Fatal(err)
			}
			a := newAgent(b, p, testRegistry(b), Config{})
			history := make([]llm.Message, 0, turns)
			for i := range turns / 2 {
				history = append(history, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("answer %d with some words in it", i)},
					llm.Message{Role: llm.RoleTool, ToolCallID: "x", Content: "a tool result of moderate length, like a short file listing"})
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				s := &MemorySession{id: "bench", history: history}
				out, err := a.Run(ctx, s, "task")
				if err != nil || out.Rounds != rounds {
					b.Fatal(out, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rounds), "ns/round")
		})
	}
}
