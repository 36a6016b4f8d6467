package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gateByPath decides by the "path" argument: "ok" allows, "no" denies,
// "ask" asks, "rewrite" allows with rewritten arguments.
type gateByPath struct{}

func (gateByPath) Decide(_ context.Context, _ *Call, _ *Tool, args json.RawMessage) Decision {
	var in pathInput
	_ = json.Unmarshal(args, &in)
	switch in.Path {
	case "ok":
		return Decision{Verdict: Allow}
	case "no":
		return Decision{Verdict: Deny, Reason: "no writes to no"}
	case "rewrite":
		return Decision{Verdict: Allow, Args: json.RawMessage(`{"path":"rewritten"}`)}
	case "badrewrite":
		return Decision{Verdict: Allow, Args: json.RawMessage(`{"path":7}`)}
	case "ask":
		return Decision{Verdict: Ask, Reason: "path ask is sensitive"}
	}
	return Decision{Verdict: "maybe"}
}

type approverFunc func(ctx context.Context, c *Call, t *Tool, args json.RawMessage, why Decision) Decision

func (f approverFunc) Approve(ctx context.Context, c *Call, t *Tool, args json.RawMessage, why Decision) Decision {
	return f(ctx, c, t, args, why)
}

func TestRunner_Gate(t *testing.T) {
	reg := mustRegistry(t, textTool("w", Spec{}, echoPath))
	req := func(id, path string) Request {
		return Request{ID: id, Name: "w", Arguments: json.RawMessage(`{"path":"` + path + `"}`)}
	}
	reqs := []Request{req("1", "ok"), req("2", "no"), req("3", "rewrite"), req("4", "badrewrite"), req("5", "ask"), req("6", "weird")}
	outputs := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Output+r.Error)
		}
		return out
	}
	common := []string{"ok", "denied: no writes to no", "rewritten",
		"the arguments rewritten by a hook are invalid: invalid arguments: at /path: got number, want string"}
	weird := `denied: the policy gave no clear verdict ("maybe")`

	t.Run("headless ask means deny", func(t *testing.T) {
		rec := &recorded{}
		res, err := NewRunner(reg, &RunnerOptions{Gate: gateByPath{}, Recorder: rec}).Run(t.Context(), Call{}, reqs)
		if err != nil {
			t.Fatal(err)
		}
		want := append(common[:4:4], "denied: needs approval, which cannot be given here (no one to ask): path ask is sensitive", weird)
		if diff := cmp.Diff(want, outputs(res)); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if len(rec.events) != 12 {
			t.Errorf("recorded %d events, want a call and a result for each of 6 calls", len(rec.events))
		}
	})
	t.Run("approver", func(t *testing.T) {
		var asked []string
		approve := approverFunc(func(_ context.Context, c *Call, _ *Tool, _ json.RawMessage, why Decision) Decision {
			asked = append(asked, c.ID+": "+why.Reason)
			return Decision{Verdict: Allow}
		})
		res, err := NewRunner(reg, &RunnerOptions{Gate: gateByPath{}, Approver: approve}).Run(t.Context(), Call{}, reqs)
		if err != nil {
			t.Fatal(err)
		}
		if got := outputs(res)[4]; got != "ask" {
			t.Errorf("approved call = %q, want it run", got)
		}
		if diff := cmp.Diff([]string{"5: path ask is sensitive"}, asked); diff != "" {
			t.Errorf("asked (-want +got):\n%s", diff)
		}
	})
	t.Run("pause for approval", func(t *testing.T) {
		rec := &recorded{}
		res, err := NewRunner(reg, &RunnerOptions{Gate: gateByPath{}, PauseForApproval: true, Recorder: rec}).Run(t.Context(), Call{}, reqs)
		ae, ok := errors.AsType[*ApprovalError](err)
		if !ok || len(ae.Calls) != 1 || ae.Calls[0].ID != "5" || ae.Calls[0].Reason != "path ask is sensitive" {
			t.Fatalf("err = %v, want an ApprovalError for call 5", err)
		}
		if got := outputs(res)[4]; got != "awaiting approval" {
			t.Errorf("pending result = %q", got)
		}
		for _, e := range rec.events {
			if strings.HasPrefix(e, "result 5") {
				t.Errorf("a pending call's result was recorded: %q", e)
			}
		}
		_, err = NewRunner(reg, &RunnerOptions{Gate: gateByPath{}, PauseForApproval: true}).Call(t.Context(), Call{}, req("9", "ask"))
		if _, ok := errors.AsType[*ApprovalError](err); !ok {
			t.Errorf("Call: err = %v, want an ApprovalError", err)
		}
	})
}

// TestRunner_PendingCallCarriesNoMarker checks that a call left awaiting
// approval reports a plain failed result, in the events as in the
// results: no runner-internal value rides along in Result.Data.
func TestRunner_PendingCallCarriesNoMarker(t *testing.T) {
	fatal := textTool("fatal", Spec{}, func(context.Context, *Call, pathInput) (Result, error) {
		return Result{}, Fatal(errors.New("disk full"))
	})
	reg := mustRegistry(t, textTool("w", Spec{}, echoPath), fatal)
	var finished []Result
	r := NewRunner(reg, &RunnerOptions{Gate: gateByPath{}, PauseForApproval: true, OnEvent: func(e Event) {
		if e.Kind == EventFinished {
			finished = append(finished, *e.Result)
		}
	}})
	reqs := []Request{
		{ID: "1", Name: "w", Arguments: json.RawMessage(`{"path":"ask"}`)},
		{ID: "2", Name: "fatal", Arguments: json.RawMessage(`{"path":"ok"}`)},
	}
	res, err := r.Run(t.Context(), Call{}, reqs)
	if _, ok := errors.AsType[*ApprovalError](err); !ok {
		t.Errorf("err = %v, want an ApprovalError", err)
	}
	if _, ok := errors.AsType[*FatalError](err); !ok {
		t.Errorf("err = %v, want the fatal tool's fault joined to it", err)
	}
	if len(finished) != 2 {
		t.Fatalf("got %d finished events, want 2", len(finished))
	}
	for name, got := range map[string]Result{"event": finished[0], "result": res[0]} {
		if got.Success || got.Error != "awaiting approval" || got.Output != "" || got.Data != nil {
			t.Errorf("pending call's %s = %+v, want a plain failure saying it awaits approval", name, got)
		}
	}
}
