package policy_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

type cmdIn struct {
	Command string `json:"command"`
}

// TestApprovalsThroughTheLoop pauses a run on calls the policy asks about,
// closes the session as a process exit would, reopens it, answers the calls
// one at a time (deny with a message, allow always) and checks that
// finished calls never run twice and the stored rule allows similar calls.
func TestApprovalsThroughTheLoop(t *testing.T) {
	var ran []string
	sh := tool.New(tool.Spec{Name: "run_shell_command", Description: "shell"}, func(_ context.Context, _ *tool.Call, in cmdIn) (tool.Result, error) {
		ran = append(ran, in.Command)
		return tool.Text("ok: " + in.Command), nil
	})
	reg, err := tool.NewRegistry(sh)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := replay.Parse([]byte(strings.Join([]string{
		`{"round":1,"tool_calls":[{"id":"a","name":"run_shell_command","arguments":{"command":"ls"}},{"id":"b","name":"run_shell_command","arguments":{"command":"rm -rf build"}},{"id":"c","name":"run_shell_command","arguments":{"command":"go test ./..."}}]}`,
		`{"round":2,"tool_calls":[{"id":"d","name":"run_shell_command","arguments":{"command":"go test -run X ./..."}}]}`,
		`{"round":3,"text":"all done"}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	provider, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	pol := &policy.Policy{Logger: slog.New(slog.DiscardHandler)}
	pol.Add(policy.Allow, policy.Rule{Tool: "run_shell_command", Specifier: "ls:*"})
	a, err := agent.New(agent.Config{Provider: provider, Tools: reg,
		RunnerOptions: tool.RunnerOptions{Gate: pol, PauseForApproval: true}})
	if err != nil {
		t.Fatal(err)
	}
	store := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(t.Context(), session.Header{ID: "approve"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(t.Context(), s, "clean and test")
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopApproval || len(out.Pending) != 2 || out.Pending[0].ID != "b" || !strings.Contains(out.Pending[0].Reason, "rm -rf build") {
		t.Fatalf("outcome = %+v, want b and c pending", out)
	}
	if strings.Join(ran, ",") != "ls" {
		t.Fatalf("ran %v before approval", ran)
	}
	// The process ends; a new one resumes from the journal.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Load(t.Context(), "approve")
	if err != nil || !st.Open() {
		t.Fatalf("paused session is not open in the journal: %v", err)
	}
	s, err = store.Open(t.Context(), "approve")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := s.State(); !st.Open() || len(st.Paused) != 2 {
		t.Fatalf("reopening closed the paused transaction: %+v", st.Pools)
	}
	// Deny one with a message for the model; the run stays paused.
	out, err = a.Resume(t.Context(), s, []agent.Answer{{CallID: "b", Verdict: tool.Deny, Message: "keep the build dir"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopApproval || len(out.Pending) != 1 || out.Pending[0].ID != "c" {
		t.Fatalf("after a partial answer: %+v", out)
	}
	// Allow always: the stored rule is the prefix, and the next round's
	// similar call runs without asking.
	rules, err := policy.AllowAlways(pol, "run_shell_command", json.RawMessage(`{"command":"go test ./..."}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].String() != "run_shell_command(go test:*)" {
		t.Fatalf("allow-always rules = %v", rules)
	}
	pol.Add(policy.Allow, rules...)
	out, err = a.Resume(t.Context(), s, []agent.Answer{{CallID: "c", Verdict: tool.Allow}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopAnswer || out.Text != "all done" {
		t.Fatalf("final outcome = %+v", out)
	}
	if got := strings.Join(ran, ","); got != "ls,go test ./...,go test -run X ./..." {
		t.Errorf("ran %q: finished calls must not run again, denied ones never", got)
	}
	st = s.State()
	var denied string
	for _, tr := range st.Turns {
		if tr.CallID == "b" && tr.Kind == session.TurnToolResponse {
			denied = tr.Output
		}
	}
	if !strings.Contains(denied, "keep the build dir") {
		t.Errorf("the model was not told why b was denied: %q", denied)
	}
	if st.Open() || st.Pools[0].Status != session.PoolCommitted {
		t.Errorf("session after the run: open %v, pools %+v", st.Open(), st.Pools)
	}
}
