package session

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

// TestThinkingSurvivesTheJournal checks that what a provider wants back
// unchanged (signed thinking, a call's signature, the stop reason, cache
// usage and cost) is read back from the journal exactly, and that a block
// whose text had a secret removed loses its signature rather than being
// sent back altered.
func TestThinkingSurvivesTheJournal(t *testing.T) {
	st := newStore(t)
	st.Secrets = []string{"hunter2-secret-value"}
	s, err := st.Create(t.Context(), Header{Model: "claude"})
	must(t, err)
	ctx := context.Background()
	must(t, s.Begin(ctx, "task"))
	resp := &llm.Response{Model: "claude", Stop: llm.StopMaxTokens, Message: llm.Message{Role: llm.RoleAssistant, Content: "partial",
		Thinking: []llm.Thinking{
			{Provider: "anthropic", Text: "let me think", Signature: "EqQBCkYIARgCIkD"},
			{Provider: "anthropic", Redacted: "EmwKAhgBEgy3va"},
			{Provider: "anthropic", Text: "the key is hunter2-secret-value", Signature: "sig2"},
		},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{}`), Signature: "gemini-sig"}}},
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 5, CachedTokens: 80, CacheWriteTokens: 10, Cost: 0.0123}}
	must(t, s.RecordResponse(ctx, resp))
	must(t, s.Close())

	got, err := st.Load(ctx, s.ID())
	must(t, err)
	turn := got.Pool[1]
	want := []llm.Thinking{
		{Provider: "anthropic", Text: "let me think", Signature: "EqQBCkYIARgCIkD"},
		{Provider: "anthropic", Redacted: "EmwKAhgBEgy3va"},
		{Provider: "anthropic", Text: "the key is [REDACTED]"},
	}
	if diff := cmp.Diff(want, turn.Thinking); diff != "" {
		t.Errorf("thinking (-want +got):\n%s", diff)
	}
	if turn.Stop != llm.StopMaxTokens || turn.Calls[0].Signature != "gemini-sig" || *turn.Usage != resp.Usage {
		t.Errorf("stop %q, call signature %q, usage %+v", turn.Stop, turn.Calls[0].Signature, turn.Usage)
	}
	msgs := Messages(got.Pool)
	if diff := cmp.Diff(want, msgs[1].Thinking); diff != "" {
		t.Errorf("thinking in the prompt (-want +got):\n%s", diff)
	}
}
