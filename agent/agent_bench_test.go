package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
)

// BenchmarkAgent_Round measures the loop's overhead per round (prompt
// building, recording, scheduling; the model is the replay provider and the
// tool a no-op) with 10 and 1,000 turns of history.
func BenchmarkAgent_Round(b *testing.B) {
	for _, turns := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", turns), func(b *testing.B) {
			const rounds = 4
			p := benchScript(b, rounds)
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

// BenchmarkAgent_RoundJournaled is BenchmarkAgent_Round with a journaled
// session (session.Session, fsync at each commit), the way wield run
// works: 1,000 turns of history, four rounds per run.
func BenchmarkAgent_RoundJournaled(b *testing.B) {
	const rounds = 4
	p := benchScript(b, rounds)
	a := newAgent(b, p, testRegistry(b), Config{})
	store := &session.Store{Dir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(b.Context(), session.Header{ID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for range 250 {
		if err := s.Begin(ctx, "an earlier task with a few words"); err != nil {
			b.Fatal(err)
		}
		if err := s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "an earlier answer with some words in it"}}); err != nil {
			b.Fatal(err)
		}
		if err := s.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := a.Run(ctx, s, "task")
		if err != nil || out.Rounds != rounds {
			b.Fatal(out, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rounds), "ns/round")
}

// benchScript is a replay script of rounds-1 rounds that each call echo,
// then an answer.
func benchScript(b *testing.B, rounds int) *replay.Provider {
	b.Helper()
	var entries []replay.Entry
	for r := 1; r < rounds; r++ {
		entries = append(entries, replay.Entry{Round: r, ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"text":"r%d"}`, r))}}})
	}
	entries = append(entries, replay.Entry{Round: rounds, Text: "done"})
	p, err := replay.New(entries)
	if err != nil {
		b.Fatal(err)
	}
	return p
}
