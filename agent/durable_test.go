package agent

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// TestDurableSessionCancelAndContinue cancels a run mid-tool in a
// journaled session, reopens the journal as a new process would, and runs
// the next task in it: the cancelled round is kept with an interrupted
// result, and the next prompt has exactly one result per call.
func TestDurableSessionCancelAndContinue(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	block := tool.New(tool.Spec{Name: "block", Description: "blocks until cancelled"}, func(ctx context.Context, _ *tool.Call, _ textIn) (tool.Result, error) {
		close(started)
		<-ctx.Done()
		return tool.Failure("stopped"), nil
	})
	echo := tool.New(tool.Spec{Name: "echo", Description: "echo", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, _ *tool.Call, in textIn) (tool.Result, error) { return tool.Text(in.Text), nil })
	reg, err := tool.NewRegistry(block, echo)
	if err != nil {
		t.Fatal(err)
	}
	p := script(t,
		`{"turn":1,"round":1,"tool_calls":[{"id":"e1","name":"echo","arguments":{"text":"first"}},{"id":"b1","name":"block","arguments":{"text":"x"}}]}`,
		`{"turn":2,"round":1,"text":"second task done"}`)
	a, err := New(Config{Provider: p, Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	store := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(ctx, session.Header{ID: "durable"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-started; cancel() }()
	out, err := a.Run(ctx, s, "first task")
	if err == nil || out.Reason != StopCancelled {
		t.Fatalf("cancelled run: %+v, %v", out, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = store.Open(t.Context(), "durable")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := s.State()
	if st.Open() || len(st.Pools) != 1 || st.Pools[0].Status != session.PoolAborted {
		t.Fatalf("after the cancelled run: open %v, pools %+v", st.Open(), st.Pools)
	}
	out, err = a.Run(t.Context(), s, "second task")
	if err != nil || out.Text != "second task done" {
		t.Fatalf("second run: %+v, %v", out, err)
	}
	// The second request saw the first round whole: both calls, each with
	// one result, the blocked one marked as stopped.
	reqs := p.Requests()
	last := reqs[len(reqs)-1]
	results := map[string]int{}
	var blocked string
	for _, m := range last.Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID]++
			if m.ToolCallID == "b1" {
				blocked = m.Content
			}
		}
	}
	if results["e1"] != 1 || results["b1"] != 1 {
		t.Errorf("results per call in the next prompt = %v, want one each", results)
	}
	if !strings.Contains(blocked, "cancelled") && !strings.Contains(blocked, "interrupted") {
		t.Errorf("the blocked call's result does not say it was stopped: %q", blocked)
	}
}
