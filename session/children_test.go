package session

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

// TestChildrenAndRecordsSurviveTheJournal checks what subagents and
// features write: a child session's link to its parent, the parent's
// agent_started/agent_finished turns (bookkeeping the prompt never sees),
// and a feature's records around a transaction, all read back from disk.
func TestChildrenAndRecordsSurviveTheJournal(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	parent, err := st.Create(ctx, Header{Agent: "wield"})
	must(t, err)
	child, err := st.Create(ctx, Header{Agent: "reviewer", Child: &ChildOf{Session: parent.ID(), Call: "call_1", Depth: 1, Agent: "reviewer"}})
	must(t, err)
	must(t, child.Close())

	_, err = parent.Append("mode", map[string]string{"mode": "plan"})
	must(t, err)
	must(t, parent.Begin(ctx, "review it"))
	must(t, parent.AgentStarted(ctx, "call_1", "reviewer", child.ID()))
	usage := llm.Usage{InputTokens: 500, OutputTokens: 50, Cost: 0.002}
	must(t, parent.AgentFinished(ctx, "call_1", "reviewer", child.ID(), "partial", "found two bugs; ran out of turns", usage))
	must(t, parent.Commit(ctx))
	_, err = parent.Append("mode", map[string]string{"mode": "default", "plan": ".wield/plans/s/fix-bugs.md"})
	must(t, err)
	must(t, parent.Close())

	got, err := st.Load(ctx, parent.ID())
	must(t, err)
	var rounds []int
	for _, r := range got.RecordsOf("mode") {
		rounds = append(rounds, r.Round)
	}
	if latest, _ := got.Latest("mode"); !cmp.Equal(rounds, []int{0, 1}) || !strings.Contains(string(latest.Data), `"plan":".wield/plans/s/fix-bugs.md"`) {
		t.Errorf("mode records in rounds %v, the latest %s", rounds, latest.Data)
	}
	var kinds []TurnKind
	for _, turn := range got.Turns {
		kinds = append(kinds, turn.Kind)
	}
	if diff := cmp.Diff([]TurnKind{TurnUserTask, TurnAgentStarted, TurnAgentFinished}, kinds); diff != "" {
		t.Fatalf("turns (-want +got):\n%s", diff)
	}
	fin := got.Turns[2]
	if fin.Child != child.ID() || fin.Status != "partial" || fin.Output != "found two bugs; ran out of turns" || *fin.Usage != usage {
		t.Errorf("agent_finished = %+v", fin)
	}
	if msgs := Messages(got.Turns); len(msgs) != 1 || msgs[0].Role != llm.RoleUser {
		t.Errorf("the prompt sees the bookkeeping: %+v", msgs)
	}
	c, err := st.Load(ctx, child.ID())
	must(t, err)
	if diff := cmp.Diff(&ChildOf{Session: parent.ID(), Call: "call_1", Depth: 1, Agent: "reviewer"}, c.Header.Child); diff != "" {
		t.Errorf("child link (-want +got):\n%s", diff)
	}
}

func TestCheckTodos(t *testing.T) {
	tests := []struct {
		todos []Todo
		err   string
	}{
		{[]Todo{{Title: "a", Status: TodoInProgress}, {Title: "b", Status: TodoBlocked}, {Title: "c", Status: TodoCancelled}, {Title: "d", Status: TodoCompleted}, {Title: "e", Status: TodoDone}}, ""},
		{nil, ""},
		{[]Todo{{Title: "a", Status: TodoInProgress}, {Title: "b", Status: TodoInProgress}}, `2 todos are in_progress ("a", "b")`},
		{[]Todo{{Title: "a", Status: "finished"}}, `status "finished" is not one of`},
		{[]Todo{{Status: TodoPending}}, "todo 1 has no title"},
	}
	for _, tt := range tests {
		err := CheckTodos(tt.todos)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckTodos(%+v) = %v, want %q", tt.todos, err, tt.err)
		}
	}
}
