package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/tool"
)

// askFor asks about every call of the named tool.
type askFor string

func (g askFor) Decide(_ context.Context, _ *tool.Call, t *tool.Tool, _ json.RawMessage) tool.Decision {
	if t.Name() == string(g) {
		return tool.Decision{Verdict: tool.Ask, Reason: "deletes files"}
	}
	return tool.Decision{Verdict: tool.Allow}
}

func TestAgent_ApprovalPauseAndResume(t *testing.T) {
	var deletes, echoes atomic.Int32
	rm := tool.New(tool.Spec{Name: "rm", Description: "delete"}, func(_ context.Context, _ *tool.Call, in textIn) (tool.Result, error) {
		deletes.Add(1)
		return tool.Text("deleted " + in.Text), nil
	})
	echo := tool.New(tool.Spec{Name: "echo", Description: "echo"}, func(_ context.Context, _ *tool.Call, in textIn) (tool.Result, error) {
		echoes.Add(1)
		return tool.Text(in.Text), nil
	})
	reg, err := tool.NewRegistry(rm, echo)
	if err != nil {
		t.Fatal(err)
	}
	p := script(t,
		`{"round":1,"tool_calls":[{"id":"e1","name":"echo","arguments":{"text":"look"}},{"id":"r1","name":"rm","arguments":{"text":"a.txt"}},{"id":"r2","name":"rm","arguments":{"text":"b.txt"}}]}`,
		`{"round":2,"text":"cleaned up"}`)
	a, err := New(Config{Provider: p, Tools: reg,
		RunnerOptions: tool.RunnerOptions{Gate: askFor("rm"), PauseForApproval: true}})
	if err != nil {
		t.Fatal(err)
	}
	s := NewMemorySession("s")

	out, err := a.Run(t.Context(), s, "clean")
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != StopApproval || len(out.Pending) != 2 || out.Pending[0].ID != "r1" || out.Pending[0].Reason != "deletes files" {
		t.Fatalf("outcome = %+v, want two pending rm calls", out)
	}
	if deletes.Load() != 0 || echoes.Load() != 1 || len(s.History()) != 0 || len(s.Pool()) == 0 {
		t.Fatalf("after pause: %d deletes, %d echoes, history %d, pool %d", deletes.Load(), echoes.Load(), len(s.History()), len(s.Pool()))
	}

	// Answer one of the two: the run stays paused on the other.
	out, err = a.Resume(t.Context(), s, []Answer{{CallID: "r1", Verdict: tool.Allow}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != StopApproval || len(out.Pending) != 1 || out.Pending[0].ID != "r2" || deletes.Load() != 1 {
		t.Fatalf("after a partial answer: %+v, %d deletes", out, deletes.Load())
	}

	out, err = a.Resume(t.Context(), s, []Answer{{CallID: "r2", Verdict: tool.Deny, Message: "keep b.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != StopAnswer || out.Text != "cleaned up" {
		t.Fatalf("after the last answer: %+v", out)
	}
	if deletes.Load() != 1 || echoes.Load() != 1 {
		t.Errorf("%d deletes and %d echoes, want finished calls not run again", deletes.Load(), echoes.Load())
	}
	want := []string{"user:clean",
		`assistant: call(e1 echo {"text":"look"}) call(r1 rm {"text":"a.txt"}) call(r2 rm {"text":"b.txt"})`,
		"tool(e1):look", "tool(r1):deleted a.txt", "tool(r2):Error: denied: the user denied this call: keep b.txt",
		"assistant:cleaned up"}
	if diff := cmp.Diff(want, roles(s.History())); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	checkOneResultPerCall(t, s.History())

	for _, bad := range [][]Answer{{{CallID: "zz", Verdict: tool.Allow}}} {
		if _, err := a.Resume(t.Context(), s, bad); err == nil || !strings.Contains(err.Error(), "no paused run") {
			t.Errorf("Resume on a finished run = %v, want an error", err)
		}
	}
}

func TestAgent_ResumeRejectsBadAnswers(t *testing.T) {
	rm := tool.New(tool.Spec{Name: "rm", Description: "delete"}, func(context.Context, *tool.Call, textIn) (tool.Result, error) { return tool.Text("x"), nil })
	reg, _ := tool.NewRegistry(rm)
	p := script(t, `{"round":1,"tool_calls":[{"id":"r1","name":"rm","arguments":{"text":"a"}}]}`)
	a, _ := New(Config{Provider: p, Tools: reg, RunnerOptions: tool.RunnerOptions{Gate: askFor("rm"), PauseForApproval: true}})
	s := NewMemorySession("s")
	if out, err := a.Run(t.Context(), s, "go"); err != nil || out.Reason != StopApproval {
		t.Fatalf("Run = %+v, %v", out, err)
	}
	tests := []struct {
		answers []Answer
		want    string
	}{
		{[]Answer{{CallID: "nope", Verdict: tool.Allow}}, "answer for call nope: no such call awaits approval"},
		{[]Answer{{CallID: "r1", Verdict: "maybe"}}, `verdict must be allow or deny, not "maybe"`},
		{[]Answer{{CallID: "r1", Verdict: tool.Allow}}, ""},
	}
	for _, tt := range tests {
		out, err := a.Resume(t.Context(), s, tt.answers)
		if tt.want == "" {
			// After the bad answers, the paused run is intact and a good
			// answer finishes it (the script has no round 2: a model error).
			if err == nil || !strings.Contains(err.Error(), "no scripted response for turn 1, round 2") || out.ToolCalls != 1 {
				t.Errorf("good answer after bad ones: %+v, %v", out, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resume(%v) = %v, want %q", tt.answers, err, tt.want)
		}
	}
}
