package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// A Gate decides whether a call may run. The runner asks it after the
// arguments validated and before the tool runs; a policy (rules, modes,
// hooks) implements it. Decide may be called concurrently.
type Gate interface {
	Decide(ctx context.Context, c *Call, t *Tool, args json.RawMessage) Decision
}

// Verdict is a gate's answer.
type Verdict string

// The verdicts.
const (
	// Allow lets the call run.
	Allow Verdict = "allow"
	// Deny refuses it; the model is told Reason.
	Deny Verdict = "deny"
	// Ask needs a person's approval; see [RunnerOptions.Approver] and
	// [RunnerOptions.PauseForApproval].
	Ask Verdict = "ask"
)

// A Reviewer is a [Gate] that also sees the result of every call it let
// run, before the result is recorded and returned: hooks that run after a
// tool (PostToolUse) implement it. Review returns the result to keep.
type Reviewer interface {
	Review(ctx context.Context, c *Call, args json.RawMessage, r Result) Result
}

// A Decision is a gate's verdict on one call.
type Decision struct {
	Verdict Verdict `json:"verdict"`
	// Reason says why, in words for the model and the user.
	Reason string `json:"reason,omitempty"`
	// Args, if not nil, replaces the call's arguments (a hook rewrote
	// them); they are validated again before the call runs.
	Args json.RawMessage `json:"args,omitempty"`
}

// An Approver asks a person about a call the gate could not decide. It
// returns Allow or Deny (with a Reason for the model). Approve is called for
// one call at a time.
type Approver interface {
	Approve(ctx context.Context, c *Call, t *Tool, args json.RawMessage, why Decision) Decision
}

// A PendingCall is a call that awaits approval.
type PendingCall struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Reason    string          `json:"reason"`
}

// ApprovalError is returned by [Runner.Run] when RunnerOptions.PauseForApproval
// is set and calls await approval. Those calls were recorded but neither run
// nor given a result: their results say "awaiting approval" and are not
// recorded. Answer
// them and run them again (with a gate that knows the answers) to finish.
// It may be joined with faults: use errors.As.
type ApprovalError struct {
	Calls []PendingCall
}

func (e *ApprovalError) Error() string {
	names := make([]string, len(e.Calls))
	for i, c := range e.Calls {
		names[i] = c.Tool + " (" + c.ID + ")"
	}
	return fmt.Sprintf("%d calls await approval: %s", len(e.Calls), strings.Join(names, ", "))
}
