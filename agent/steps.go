package agent

import (
	"context"
	"fmt"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// The methods in this file carry out one [Machine] command each against a
// session's open transaction, rebuilding what they need from the session
// itself. They are for executors other than [Agent.Run], which keep no
// state between commands: a durable runner calls them from activities
// that may run on any worker. Each reads the session, so a step costs in
// proportion to the session's length; the in-process loop keeps its
// state between commands instead.

// CallModel builds round's prompt from session s's history and open
// transaction, calls the model and records its reply in s. The reply is
// what the [Machine] is told with [InputModelReplied]. Deltas go to the
// agent's OnEvent as they stream.
func (a *Agent) CallModel(ctx context.Context, s Session, round int) (*llm.Response, error) {
	st, err := a.stateOf(s)
	if err != nil {
		return nil, err
	}
	reg := a.cfg.Telemetry.Instrument(ctx, &tool.RunnerOptions{}, a.cfg.Tools)
	return a.callModel(ctx, s, st, round, toolDefs(reg))
}

// RunCalls runs calls of round in session s's open transaction and records
// their results, returning what the [Machine] is told with
// [InputToolsDone]. With answers nil, the configured gate decides and
// calls it would ask about come back pending (whatever the runner options
// say: an executor without a person at hand asks through the machine's
// [CmdAwaitApproval]). With answers, the calls are ones that awaited
// approval and are already recorded: each runs, or is denied, as its
// answer says.
func (a *Agent) RunCalls(ctx context.Context, s Session, round int, calls []tool.Request, answers []Answer) (Input, error) {
	st, err := a.stateOf(s)
	if err != nil {
		return Input{}, err
	}
	var runner *tool.Runner
	if answers != nil {
		byID := make(map[string]Answer, len(answers))
		for _, ans := range answers {
			byID[ans.CallID] = ans
		}
		runner = a.runnerFor(ctx, s, answeredGate{byID}, recordedCalls(calls))
	} else {
		b := *a
		b.cfg.RunnerOptions.Approver, b.cfg.RunnerOptions.PauseForApproval = nil, true
		runner = b.runnerFor(ctx, s, nil, nil)
	}
	return a.runTools(ctx, s, runner, st, round, calls)
}

// Compact asks the configured Compactor about session s after round,
// given the last reply's usage, or, for a prompt over the context window
// (overflow), as if it filled any window; the [Machine] is then told
// [InputCompacted].
func (a *Agent) Compact(ctx context.Context, s Session, round int, usage llm.Usage, overflow bool) error {
	if overflow {
		usage = llm.Usage{InputTokens: OverflowTokens}
	}
	return a.compact(ctx, s, &runState{}, round, usage)
}

// stateOf rebuilds a run's state from s's open transaction.
func (a *Agent) stateOf(s Session) (*runState, error) {
	pool := s.Pool()
	if len(pool) == 0 || pool[0].Role != llm.RoleUser {
		return nil, fmt.Errorf("session %s has no open run", s.ID())
	}
	st := &runState{task: pool[0].Content, round: orderResults(pool[1:]),
		history: ExpireResults(s.History(), a.cfg.ExpireToolResults)}
	for _, m := range st.round {
		for _, c := range m.ToolCalls {
			st.invoked = append(st.invoked, tool.Invocation{ID: c.ID, Tool: c.Name, Arguments: c.Arguments})
		}
	}
	return st, nil
}

// Compacts reports whether the agent has a compactor: without one,
// [CmdCompact] needs no work and an executor may answer it at once.
func (a *Agent) Compacts() bool { return a.cfg.Compactor != nil }

// ReadOnly reports whether a call of the named tool with args only reads,
// as its annotations say: running it twice is harmless.
func (a *Agent) ReadOnly(name string, args []byte) bool {
	t, err := a.cfg.Tools.Lookup(name)
	return err == nil && t.CallAnnotations(args).ReadOnly
}

// ParallelSafe reports whether a call of the named tool may run beside
// other parallel-safe calls of the same reply, as [tool.Runner] decides
// for a batch; an unknown tool may, since it fails at once.
func (a *Agent) ParallelSafe(name string) bool {
	t, err := a.cfg.Tools.Lookup(name)
	return err != nil || t.Spec().Annotations.ParallelSafe
}
