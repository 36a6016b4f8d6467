package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// bigRound is round with a long output per call, worth masking.
func bigRound(t testing.TB, s *Session, task string, calls ...string) {
	t.Helper()
	ctx := context.Background()
	must(t, s.Begin(ctx, task))
	resp := &llm.Response{Model: "m", Message: llm.Message{Role: llm.RoleAssistant, Content: "working on " + task}}
	for _, c := range calls {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: c, Name: "read_file", Arguments: json.RawMessage(`{}`)})
	}
	must(t, s.RecordResponse(ctx, resp))
	for _, c := range calls {
		must(t, s.RecordCall(ctx, call(c, "read_file"), json.RawMessage(`{}`)))
		must(t, s.RecordResult(ctx, call(c, "read_file"), tool.Result{Success: true, Output: strings.Repeat(c, 300)}))
	}
	must(t, s.Commit(ctx))
}

// TestCompactIsAProjection: a compaction changes the prompt, never the
// turns; masks stub long successful outputs; a later summary holding an
// earlier one replaces it; uncompact restores the view before, and all of
// it reloads the same.
func TestCompactIsAProjection(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{ID: "p"})
	must(t, err)
	defer s.Close()
	bigRound(t, s, "one", "a1")   // turns 1-4
	bigRound(t, s, "two", "b1")   // 5-8
	bigRound(t, s, "three", "c1") // 9-12
	before := s.History()
	turns := s.State().Turns

	must(t, s.Compact(Compaction{Kind: CompactionMask, Range: [2]int{1, 8}, Trigger: TriggerAuto}))
	h := s.History()
	if len(h) != len(before) || !strings.Contains(h[2].Content, `get_session {"turn": 4}`) || !strings.Contains(h[5].Content, "turn 8") {
		t.Fatalf("masked history = %+v", h)
	}
	if h[8].Content != before[8].Content {
		t.Errorf("a result outside the mask changed: %q", h[8].Content)
	}

	must(t, s.Compact(Compaction{Kind: CompactionSummary, Range: [2]int{1, 4}, Summary: "did one", Trigger: TriggerAuto,
		Ledger: &Ledger{FilesWritten: []FileWritten{{Path: "one.go", Created: true}}}}))
	must(t, s.Compact(Compaction{Kind: CompactionSummary, Range: [2]int{1, 8}, Summary: "did one and two", Trigger: TriggerManual}))
	h = s.History()
	if len(h) != 1+3 || !strings.Contains(h[0].Content, "did one and two") || strings.Contains(h[0].Content, "did one\n") {
		t.Fatalf("history after two summaries = %+v", h)
	}
	if got := s.State().ActiveCompactions(); len(got) != 2 {
		t.Errorf("active compactions = %+v; want the mask and the outer summary", got)
	}
	if diff := cmp.Diff(turns, s.State().Turns); diff != "" {
		t.Errorf("compaction changed the turns:\n%s", diff)
	}
	gen := s.CompactionGeneration()

	undone, err := s.Uncompact()
	must(t, err)
	if undone.Summary != "did one and two" || s.CompactionGeneration() == gen {
		t.Errorf("uncompact undid %+v (generation %d → %d)", undone, gen, s.CompactionGeneration())
	}
	h = s.History()
	if !strings.Contains(h[0].Content, "did one") || !strings.Contains(h[0].Content, "one.go") || !strings.Contains(h[1].Content, "two") {
		t.Errorf("after uncompact the inner summary and its ledger should be back: %+v", h[:2])
	}
	_, err = s.Uncompact()
	must(t, err)
	_, err = s.Uncompact()
	must(t, err)
	if diff := cmp.Diff(before, s.History()); diff != "" {
		t.Errorf("undoing every compaction does not restore the prompt (-before +after):\n%s", diff)
	}
	if _, err := s.Uncompact(); err == nil {
		t.Error("uncompact with nothing left to undo succeeded")
	}
	live := s.State()
	loaded, err := st.Load(t.Context(), "p")
	must(t, err)
	if diff := cmp.Diff(live, loaded); diff != "" {
		t.Errorf("reloaded state differs (-live +loaded):\n%s", diff)
	}
}

// TestCompactInOpenTransaction: a long task compacts its own turns after
// the task; the pool's view changes, and commit keeps the compaction.
func TestCompactInOpenTransaction(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "o"})
	must(t, err)
	defer s.Close()
	round(t, s, "zero") // turns 1-2
	must(t, s.Begin(ctx, "long task"))
	for _, id := range []string{"x1", "x2", "x3"} {
		must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{{ID: id, Name: "echo", Arguments: json.RawMessage(`{}`)}}}}))
		must(t, s.RecordCall(ctx, call(id, "echo"), json.RawMessage(`{}`)))
		must(t, s.RecordResult(ctx, call(id, "echo"), tool.Result{Success: true, Output: id}))
	}
	// Timeline: 1-2 committed, 3 the task, 4-12 the three rounds.
	must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{{ID: "x4", Name: "echo"}}}}))
	must(t, s.RecordCall(ctx, call("x4", "echo"), nil))
	tests := []struct {
		name string
		rng  [2]int
		want string
	}{
		{"the task", [2]int{3, 6}, "task in progress"},
		{"across", [2]int{2, 6}, "open transaction"},
		{"no result yet", [2]int{4, 14}, "no result yet"},
		{"splits a call", [2]int{4, 5}, "separates call x1"},
	}
	for _, tt := range tests {
		err := s.Compact(Compaction{Kind: CompactionSummary, Range: tt.rng, Summary: "s"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Compact(%v) = %v, want an error containing %q", tt.name, tt.rng, err, tt.want)
		}
	}
	must(t, s.Compact(Compaction{Kind: CompactionSummary, Range: [2]int{4, 9}, Summary: "ran x1 and x2"}))
	pool := s.Pool()
	if len(pool) != 1+1+2+1 || pool[0].Content != "long task" || !strings.Contains(pool[1].Content, "ran x1 and x2") || pool[2].ToolCalls[0].ID != "x3" {
		t.Fatalf("pool after compaction = %+v", pool)
	}
	must(t, s.RecordResult(ctx, call("x4", "echo"), tool.Result{Success: true, Output: "x4"}))
	must(t, s.Commit(ctx))
	h := s.History()
	if !strings.Contains(h[3].Content, "ran x1 and x2") || len(s.State().Turns) != 2+1+9+3 {
		t.Errorf("history after commit = %+v", h)
	}
}

// TestOldCompressJournalsLoad: journals written when compress rewrote the
// turns still load: each compress becomes a compaction over the turns it
// covered (numbered as earlier compressions had left them), the turns come
// back whole, and the prompt is what it was.
func TestOldCompressJournalsLoad(t *testing.T) {
	st := newStore(t)
	var b bytes.Buffer
	b.WriteString(`{"wield_session":1,"id":"old","created_at":"2026-01-02T00:00:00Z"}` + "\n")
	for _, task := range []string{"one", "two", "three", "four"} {
		b.WriteString(`{"op":"begin"}` + "\n")
		b.WriteString(`{"op":"pool","turn":{"kind":"user_task","text":"` + task + `"}}` + "\n")
		b.WriteString(`{"op":"pool","turn":{"kind":"model_response","text":"did ` + task + `"}}` + "\n")
		b.WriteString(`{"op":"commit"}` + "\n")
	}
	// Turns 3-4 (task two) first; then, in the renumbered list (1-2, S,
	// 5-8 as 4-7), turns 1-5: one, S and task three with its answer.
	b.WriteString(`{"op":"compress","range":[3,4],"summary":"two was done"}` + "\n")
	b.WriteString(`{"op":"compress","range":[1,5],"summary":"one to three were done"}` + "\n")
	must(t, os.MkdirAll(st.Dir, 0o755))
	must(t, os.WriteFile(st.Path("old"), b.Bytes(), 0o644))

	got, err := st.Load(t.Context(), "old")
	must(t, err)
	if len(got.Turns) != 8 {
		t.Errorf("turns = %d, want all 8", len(got.Turns))
	}
	want := []Compaction{
		{Kind: CompactionSummary, Range: [2]int{3, 4}, Summary: "two was done", Trigger: TriggerLegacy},
		{Kind: CompactionSummary, Range: [2]int{1, 6}, Summary: "one to three were done", Trigger: TriggerLegacy},
	}
	if diff := cmp.Diff(want, got.Compactions); diff != "" {
		t.Errorf("compactions (-want +got):\n%s", diff)
	}
	h, _ := got.Project()
	if len(h) != 3 || !strings.Contains(h[0].Content, "one to three were done") || h[1].Content != "four" {
		t.Errorf("projection = %+v", h)
	}
	s, err := st.Open(t.Context(), "old")
	must(t, err)
	defer s.Close()
	round(t, s, "five")
	if h := s.History(); len(h) != 5 {
		t.Errorf("after a new round: %d messages, want 5", len(h))
	}
}
