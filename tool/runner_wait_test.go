package tool

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"
)

type askGate struct{}

func (askGate) Decide(context.Context, *Call, *Tool, json.RawMessage) Decision {
	return Decision{Verdict: Ask, Reason: "test"}
}

// slowPerson answers after a minute of (fake) thought.
type slowPerson struct{ verdict Verdict }

func (p slowPerson) Approve(context.Context, *Call, *Tool, json.RawMessage, Decision) Decision {
	time.Sleep(time.Minute)
	return Decision{Verdict: p.verdict}
}

// TestApprovalWaitIsNotToolTime: the minute a person takes to answer
// counts neither in the result's duration nor as a slow call, whether the
// answer allows or denies; the started event carries the arguments.
func TestApprovalWaitIsNotToolTime(t *testing.T) {
	for _, v := range []Verdict{Allow, Deny} {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				quick := textTool("quick", Spec{}, func(context.Context, *Call, pathInput) (Result, error) {
					return Result{Success: true, Output: "ok"}, nil
				})
				var events []Event
				r := NewRunner(mustRegistry(t, quick), &RunnerOptions{Gate: askGate{}, Approver: slowPerson{v}, SlowCall: time.Second,
					OnEvent: func(e Event) { events = append(events, e) }})
				res, _ := r.Call(t.Context(), Call{}, Request{Name: "quick", Arguments: json.RawMessage(`{"path":"x"}`)})
				if res.Duration >= time.Second {
					t.Errorf("Duration = %v, want the tool's time only, without the minute of waiting", res.Duration)
				}
				if len(events) == 0 || events[0].Kind != EventStarted || string(events[0].Arguments) != `{"path":"x"}` {
					t.Errorf("first event = %+v, want started with the arguments", events)
				}
			})
		})
	}
}
