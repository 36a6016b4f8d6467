package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// An Answer answers one call that awaits approval.
type Answer struct {
	CallID string `json:"call_id"`
	// Verdict is tool.Allow or tool.Deny.
	Verdict tool.Verdict `json:"verdict"`
	// Message is told to the model when the call is denied.
	Message string `json:"message,omitempty"`
}

// Resume continues a run that stopped with StopApproval, from the session's
// open transaction. Calls with an answer run (or are denied with the answer's
// message); calls without one stay pending, and the run stops again with
// StopApproval until all are answered. Finished calls are not run again.
func (a *Agent) Resume(ctx context.Context, s Session, answers []Answer) (*Outcome, error) {
	// Check the answers before touching the transaction: a bad answer must
	// not end the paused run.
	pool := s.Pool()
	if len(pool) == 0 || pool[0].Role != llm.RoleUser {
		return nil, fmt.Errorf("session %s has no paused run to resume", s.ID())
	}
	pending := pendingCalls(pool[1:])
	byID := map[string]Answer{}
	for _, ans := range answers {
		if ans.Verdict != tool.Allow && ans.Verdict != tool.Deny {
			return nil, fmt.Errorf("answer for call %s: verdict must be allow or deny, not %q", ans.CallID, ans.Verdict)
		}
		if !slices.ContainsFunc(pending, func(c llm.ToolCall) bool { return c.ID == ans.CallID }) {
			return nil, fmt.Errorf("answer for call %s: no such call awaits approval", ans.CallID)
		}
		byID[ans.CallID] = ans
	}
	return a.drive(ctx, s, func(m *Machine) (*runState, Command, error) {
		st := &runState{task: pool[0].Content, round: pool[1:], history: ExpireResults(s.History(), a.cfg.ExpireToolResults)}
		rounds := 0
		for _, msg := range st.round {
			if msg.Role == llm.RoleAssistant {
				rounds++
			}
		}
		var reqs []tool.Request
		var waiting []tool.PendingCall
		for _, c := range pending {
			waiting = append(waiting, tool.PendingCall{ID: c.ID, Tool: c.Name, Arguments: c.Arguments, Reason: "awaiting approval"})
			if _, ok := byID[c.ID]; ok {
				reqs = append(reqs, tool.Request{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
		}
		m.Resume(rounds, waiting)
		in := Input{Kind: InputToolsDone}
		if len(reqs) > 0 {
			runner := a.runnerFor(ctx, s, answeredGate{byID}, recordedCalls(reqs))
			var err error
			if in, err = a.runTools(ctx, s, runner, st, rounds, reqs); err != nil {
				return nil, Command{}, err
			}
		}
		for _, c := range pendingCalls(st.round) {
			in.Pending = append(in.Pending, tool.PendingCall{ID: c.ID, Tool: c.Name, Arguments: c.Arguments, Reason: "awaiting approval"})
		}
		cmd, err := m.Step(in)
		if cmd.Kind == CmdAwaitApproval {
			cmd.Outcome.Note = fmt.Sprintf("%d calls still await approval", len(in.Pending))
		}
		return st, cmd, err
	})
}

// pendingCalls returns the calls of the last assistant message in round
// that have no result.
func pendingCalls(round []llm.Message) []llm.ToolCall {
	answered := map[string]bool{}
	var last *llm.Message
	for i := range round {
		switch round[i].Role {
		case llm.RoleTool:
			answered[round[i].ToolCallID] = true
		case llm.RoleAssistant:
			last = &round[i]
		}
	}
	if last == nil {
		return nil
	}
	var out []llm.ToolCall
	for _, c := range last.ToolCalls {
		if !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// answeredGate allows or denies calls as the user answered.
type answeredGate struct{ answers map[string]Answer }

func (g answeredGate) Decide(_ context.Context, c *tool.Call, _ *tool.Tool, _ json.RawMessage) tool.Decision {
	ans, ok := g.answers[c.ID]
	if !ok {
		return tool.Decision{Verdict: tool.Deny, Reason: "no answer was given for this call"}
	}
	if ans.Verdict == tool.Allow {
		return tool.Decision{Verdict: tool.Allow}
	}
	msg := "the user denied this call"
	if ans.Message != "" {
		msg += ": " + ans.Message
	}
	return tool.Decision{Verdict: tool.Deny, Reason: msg}
}

// recordedCalls lists calls the session already holds, so they are not
// recorded twice.
type recordedCalls []tool.Request

// skipRecorder records results but not the calls the session already has.
type skipRecorder struct {
	tool.Recorder
	skip recordedCalls
}

func (r skipRecorder) RecordCall(ctx context.Context, c *tool.Call, args json.RawMessage) error {
	if slices.ContainsFunc(r.skip, func(q tool.Request) bool { return q.ID == c.ID }) {
		return nil
	}
	return r.Recorder.RecordCall(ctx, c, args)
}
