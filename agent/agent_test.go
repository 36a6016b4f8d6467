package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/tool"
)

type textIn struct {
	Text string `json:"text"`
}

func testRegistry(t testing.TB, extra ...*tool.Tool) *tool.Registry {
	t.Helper()
	echo := tool.New(tool.Spec{Name: "echo", Description: "echo", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, _ *tool.Call, in textIn) (tool.Result, error) { return tool.Text(in.Text), nil })
	reg, err := tool.NewRegistry(append([]*tool.Tool{echo}, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func script(t testing.TB, lines ...string) *replay.Provider {
	t.Helper()
	entries, err := replay.Parse([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newAgent(t testing.TB, p llm.Provider, reg *tool.Registry, cfg Config) *Agent {
	t.Helper()
	cfg.Provider, cfg.Tools = p, reg
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// roles summarises a conversation as role:content lines.
func roles(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		s := string(m.Role) + ":" + m.Content
		for _, c := range m.ToolCalls {
			s += fmt.Sprintf(" call(%s %s %s)", c.ID, c.Name, c.Arguments)
		}
		if m.Role == llm.RoleTool {
			s = "tool(" + m.ToolCallID + "):" + m.Content
		}
		out = append(out, s)
	}
	return out
}

func TestAgent_ToolLoop(t *testing.T) {
	p := script(t,
		`{"turn":1,"round":1,"tool_calls":[{"id":"a","name":"echo","arguments":{"text":"one"}},{"id":"b","name":"echo","arguments":{"text":"two"}},{"id":"c","name":"echo","arguments":{"text":"three"}}]}`,
		`{"turn":1,"round":2,"tool_calls":[{"id":"d","name":"ecko","arguments":{}},{"id":"e","name":"echo","arguments":{"txt":1}},{"id":"f","name":"echo","arguments":"{bad json"}]}`,
		`{"turn":1,"round":3,"text":"done","usage":{"input_tokens":7,"output_tokens":2}}`,
		`{"turn":2,"round":1,"text":"second task"}`)
	var kinds []EventKind
	a := newAgent(t, p, testRegistry(t), Config{OnEvent: func(e Event) { kinds = append(kinds, e.Kind) }})
	s := NewMemorySession("s1")
	out, err := a.Run(t.Context(), s, "say things")
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "done" || out.Reason != StopAnswer || out.Rounds != 3 || out.ToolCalls != 6 || out.Usage.InputTokens != 7 {
		t.Errorf("outcome = %+v", out)
	}
	got := roles(s.History())
	want := []string{
		"user:say things",
		`assistant: call(a echo {"text":"one"}) call(b echo {"text":"two"}) call(c echo {"text":"three"})`,
		"tool(a):one", "tool(b):two", "tool(c):three",
		`assistant: call(d ecko {}) call(e echo {"txt":1}) call(f echo {bad json)`,
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	fed := got[len(want):]
	for i, w := range []string{"tool ecko not found; did you mean echo?", "missing property 'text'", "not valid JSON"} {
		if !strings.Contains(fed[i], w) {
			t.Errorf("result %d fed back = %q, want it to contain %q", i, fed[i], w)
		}
	}
	if got[len(got)-1] != "assistant:done" {
		t.Errorf("last message = %q, want the answer", got[len(got)-1])
	}
	if kinds[0] != EventRunStarted || kinds[len(kinds)-1] != EventRunFinished {
		t.Errorf("events start %s and end %s", kinds[0], kinds[len(kinds)-1])
	}
	// The next task sees the whole committed history.
	out, err = a.Run(t.Context(), s, "again")
	if err != nil || out.Text != "second task" {
		t.Errorf("second run = %+v, %v", out, err)
	}
}

func TestAgent_Stops(t *testing.T) {
	loopCall := `{"round":%d,"tool_calls":[{"name":"echo","arguments":{"text":"same"}}]}`
	freshCall := `{"round":%d,"tool_calls":[{"name":"echo","arguments":{"text":"r%d"}}],"text":"working %d"}`
	var loop, fresh []string
	for r := 1; r <= 12; r++ {
		loop = append(loop, fmt.Sprintf(loopCall, r))
		fresh = append(fresh, fmt.Sprintf(freshCall, r, r, r))
	}
	finish := tool.New(tool.Spec{Name: "finish", Description: "end"}, func(context.Context, *tool.Call, textIn) (tool.Result, error) {
		return tool.Text("finished"), nil
	})
	tests := []struct {
		name       string
		script     []string
		cfg        Config
		wantReason StopReason
		wantRounds int
		wantNote   string
	}{
		{"max rounds", fresh, Config{MaxRounds: 4}, StopMaxRounds, 4, "stopped after 4 rounds"},
		{"loop guard", loop, Config{}, StopLoop, 5, "echo was called with the same arguments and got the same result 5 times within 10 rounds"},
		{"stop tool", []string{`{"round":1,"tool_calls":[{"name":"finish","arguments":{"text":"x"}}]}`}, Config{StopAtTools: []string{"finish"}}, StopTool, 1, "stopped after finish"},
		// A reply cut off at the output limit is an outcome of its own, never
		// an answer, and the calls it made before the cut are not run.
		{"max tokens", []string{`{"round":1,"text":"partial","finish_reason":"length","tool_calls":[{"name":"finish","arguments":{"text":"x"}}]}`}, Config{}, StopMaxTokens, 1, "cut off at its output limit"},
		{"refusal", []string{`{"round":1,"text":"I can't help with that.","stop":"refusal"}`}, Config{}, StopRefusal, 1, "declined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, script(t, tt.script...), testRegistry(t, finish), tt.cfg)
			s := NewMemorySession("s")
			out, err := a.Run(t.Context(), s, "go")
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != tt.wantReason || out.Rounds != tt.wantRounds || !strings.Contains(out.Note, tt.wantNote) {
				t.Errorf("outcome = %+v, want %s after %d rounds with note %q", out, tt.wantReason, tt.wantRounds, tt.wantNote)
			}
			if tt.wantReason == StopMaxRounds && out.Text != "working 4" {
				t.Errorf("Text = %q, want the last text", out.Text)
			}
			if tt.wantReason == StopMaxTokens && (out.ToolCalls != 0 || out.Text != "partial") {
				t.Errorf("outcome = %+v; want the partial text and no call run", out)
			}
			if len(s.History()) == 0 || len(s.Aborts()) != 0 {
				t.Errorf("session not committed: history %d, aborts %v", len(s.History()), s.Aborts())
			}
		})
	}
}

func TestAgent_CancelMidTool(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var started atomic.Bool
	block := tool.New(tool.Spec{Name: "block", Description: "blocks"}, func(ctx context.Context, _ *tool.Call, _ textIn) (tool.Result, error) {
		started.Store(true)
		cancel() // the user presses Ctrl-C while the tool runs
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	})
	p := script(t, `{"round":1,"tool_calls":[{"id":"x","name":"block","arguments":{"text":"a"}},{"id":"y","name":"echo","arguments":{"text":"b"}}]}`)
	a := newAgent(t, p, testRegistry(t, block), Config{})
	s := NewMemorySession("s")
	out, err := a.Run(ctx, s, "block")
	if !errors.Is(err, context.Canceled) || out.Reason != StopCancelled || !started.Load() {
		t.Fatalf("Run = %+v, %v; want a cancelled run", out, err)
	}
	got := roles(s.History())
	if len(got) != 4 || !strings.HasPrefix(got[2], "tool(x):Error: cancelled") || !strings.HasPrefix(got[3], "tool(y):Error: cancelled before it started") {
		t.Errorf("history = %q, want one cancelled result per call", got)
	}
	if len(s.Aborts()) != 1 {
		t.Errorf("aborts = %v, want the run's transaction aborted", s.Aborts())
	}
	checkOneResultPerCall(t, s.History())
}

func TestAgent_ModelFailureAbortsConsistently(t *testing.T) {
	p := script(t, `{"round":1,"tool_calls":[{"id":"k","name":"echo","arguments":{"text":"a"}}]}`,
		`{"round":2,"error":{"status":500,"message":"overloaded"}}`)
	s := NewMemorySession("s")
	out, err := newAgent(t, p, testRegistry(t), Config{}).Run(t.Context(), s, "x")
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 500 || out.Reason != StopError {
		t.Fatalf("Run = %+v, %v; want the 500 returned", out, err)
	}
	if diff := cmp.Diff([]string{"user:x", `assistant: call(k echo {"text":"a"})`, "tool(k):a"}, roles(s.History())); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	checkOneResultPerCall(t, s.History())
}

func TestCloseCalls(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "x"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "a"}, {ID: "2", Name: "b"}}},
		{Role: llm.RoleTool, ToolCallID: "1", Content: "ok"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "3", Name: "c"}}},
	}
	got := roles(CloseCalls(msgs))
	want := []string{"user:x", "assistant: call(1 a ) call(2 b )", "tool(1):ok", "tool(2):Error: " + Interrupted,
		"assistant: call(3 c )", "tool(3):Error: " + Interrupted}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CloseCalls (-want +got):\n%s", diff)
	}
}

func checkOneResultPerCall(t *testing.T, msgs []llm.Message) {
	t.Helper()
	results := map[string]int{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID]++
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if results[c.ID] != 1 {
				t.Errorf("call %s has %d results, want 1", c.ID, results[c.ID])
			}
		}
	}
}

func TestNew_RequiresProviderAndTools(t *testing.T) {
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "no model provider") {
		t.Errorf("New(Config{}) = %v", err)
	}
	if _, err := New(Config{Provider: script(t)}); err == nil || !strings.Contains(err.Error(), "no tool registry") {
		t.Errorf("New without a tool registry = %v", err)
	}
}

// TestNew_CopiesConfig checks that an agent is configured by value: a
// caller that changes its Config's slices after New does not change the
// agent.
func TestNew_CopiesConfig(t *testing.T) {
	finish := tool.New(tool.Spec{Name: "finish", Description: "end"}, func(context.Context, *tool.Call, textIn) (tool.Result, error) {
		return tool.Text("finished"), nil
	})
	cfg := Config{StopAtTools: []string{"finish"}}
	a := newAgent(t, script(t, `{"round":1,"tool_calls":[{"name":"finish","arguments":{"text":"x"}}]}`), testRegistry(t, finish), cfg)
	cfg.StopAtTools[0] = "echo"
	out, err := a.Run(t.Context(), NewMemorySession("s"), "go")
	if err != nil || out.Reason != StopTool {
		t.Errorf("Run after the caller changed its Config = %+v, %v; want %s", out, err, StopTool)
	}
}

// reportedUsage is the Data of a tool result that spent model tokens.
type reportedUsage struct{ u llm.Usage }

func (r reportedUsage) ModelUsage() llm.Usage { return r.u }

// TestAgent_SubagentHooks checks what the subagent runner relies on: a
// stop tool stops the run only when its call succeeds, every call of an
// agent with a ParentCall says so, and usage reported by a tool's result
// joins the run's.
func TestAgent_SubagentHooks(t *testing.T) {
	type finishIn struct {
		Status string `json:"status" enum:"done"`
	}
	var calls []tool.Call
	finish := tool.New(tool.Spec{Name: "finish", Description: "end"}, func(_ context.Context, c *tool.Call, _ finishIn) (tool.Result, error) {
		calls = append(calls, *c)
		return tool.Result{Success: true, Output: "finished", Data: reportedUsage{llm.Usage{InputTokens: 100, OutputTokens: 10, Cost: 0.5}}}, nil
	})
	p := script(t,
		`{"round":1,"tool_calls":[{"name":"finish","arguments":{"status":"nearly"}}],"usage":{"input_tokens":1,"output_tokens":1}}`,
		`{"round":2,"tool_calls":[{"name":"finish","arguments":{"status":"done"}}],"usage":{"input_tokens":2,"output_tokens":1}}`,
		`{"round":3,"text":"not reached"}`)
	a := newAgent(t, p, testRegistry(t, finish), Config{StopAtTools: []string{"finish"}, ParentCall: "call_7", Name: "reviewer"})
	out, err := a.Run(t.Context(), NewMemorySession("child"), "review")
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != StopTool || out.Rounds != 2 {
		t.Errorf("outcome = %+v; want a stop after the successful call in round 2", out)
	}
	want := llm.Usage{InputTokens: 103, OutputTokens: 12, Cost: 0.5}
	if diff := cmp.Diff(want, out.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if len(calls) != 1 || !calls[0].Subagent || calls[0].ParentID != "call_7" || calls[0].Agent != "reviewer" {
		t.Errorf("calls = %+v; want one subagent call with parent call_7", calls)
	}
}
