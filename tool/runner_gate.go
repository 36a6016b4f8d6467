package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wieldhq/wield/schema"
)

// awaitingApproval is the error of a call left pending by
// RunnerOptions.PauseForApproval.
const awaitingApproval = "awaiting approval"

// A permit is the gate stage's leave to run a call: the tool and the
// arguments to pass it, which a hook may have rewritten.
type permit struct {
	tool *Tool
	args json.RawMessage
	// waited is how long the approver took to allow the call.
	waited time.Duration
}

// admit is the gate stage. It checks that the call may still start,
// validates the request and asks the gate (and the approver). It returns
// the permit to run the call and true, or the outcome of a call that may
// not run and false: a failure the model hears about, or a call left
// awaiting approval.
func (r *Runner) admit(ctx context.Context, c *Call, req Request) (permit, callOutcome, bool) {
	if err := ctx.Err(); err != nil {
		return permit{}, failed("cancelled before it started: " + causeText(ctx)), false
	}
	t, args, err := r.Check(req)
	if err != nil {
		res := Failure(err.Error())
		if ve, ok := errors.AsType[*schema.ValidationError](err); ok {
			res.Error += "\nFix the arguments to match the tool's input schema and call it again."
			res.Data = map[string]any{"violations": ve.Violations}
		}
		return permit{}, callOutcome{res: res}, false
	}
	if r.opts.Gate == nil {
		return permit{tool: t, args: args}, callOutcome{}, true
	}
	return r.gate(ctx, c, t, args, req)
}

// gate applies the gate (and the approver) to a validated call; see
// [Runner.admit].
func (r *Runner) gate(ctx context.Context, c *Call, t *Tool, args json.RawMessage, req Request) (permit, callOutcome, bool) {
	d := r.opts.Gate.Decide(ctx, c, t, args)
	var waited time.Duration
	if d.Verdict == Ask {
		switch {
		case r.opts.Approver != nil:
			asked := time.Now()
			d = r.opts.Approver.Approve(ctx, c, t, args, d)
			waited = time.Since(asked)
		case r.opts.PauseForApproval:
			o := failed(awaitingApproval)
			o.pending = &PendingCall{ID: c.ID, Tool: t.Name(), Arguments: args, Reason: d.Reason}
			return permit{}, o, false
		default:
			d = Decision{Verdict: Deny, Reason: "needs approval, which cannot be given here (no one to ask): " + d.Reason}
		}
	}
	switch d.Verdict {
	case Allow:
	case Deny:
		msg := "denied"
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		o := failed(msg)
		o.waited = waited
		return permit{}, o, false
	default:
		return permit{}, failed(fmt.Sprintf("denied: the policy gave no clear verdict (%q)", d.Verdict)), false
	}
	if d.Args == nil {
		return permit{t, args, waited}, callOutcome{}, true
	}
	req.Arguments = d.Args
	nt, nargs, err := r.Check(req)
	if err != nil {
		return permit{}, failed("the arguments rewritten by a hook are invalid: " + err.Error()), false
	}
	return permit{nt, nargs, waited}, callOutcome{}, true
}

// Check looks up the tool req names and validates its arguments without
// running anything. It returns the tool and the arguments to pass (empty
// arguments become {}), or an error the model can act on: a
// *[NotFoundError], a *[schema.ValidationError] or a size error.
func (r *Runner) Check(req Request) (*Tool, json.RawMessage, error) {
	t, err := r.reg.Lookup(req.Name)
	if err != nil {
		return nil, nil, err
	}
	args := req.Arguments
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if len(args) > r.opts.MaxArgumentBytes {
		return nil, nil, fmt.Errorf("arguments are %d bytes; at most %d are allowed: pass large content in smaller pieces", len(args), r.opts.MaxArgumentBytes)
	}
	sch, err := t.compiled()
	if err != nil {
		return nil, nil, err
	}
	if err := sch.Validate(args); err != nil {
		return nil, nil, err
	}
	return t, args, nil
}
