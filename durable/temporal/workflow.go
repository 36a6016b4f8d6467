package temporal

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/tool"
)

// Names under which the workflow, its signal and its query are
// registered. They are part of the wire contract between clients and
// workers of different versions: never change them.
const (
	WorkflowName   = "wield.run"
	SignalApproval = "wield.approval"
	QueryStatus    = "wield.status"
)

// Defaults of [RunInput].
const (
	// DefaultContinueEvery is the number of model calls after which a
	// run continues in a new workflow history.
	DefaultContinueEvery = 100
	// DefaultModelTimeout bounds one model call, streaming included.
	DefaultModelTimeout = 10 * time.Minute
	// DefaultToolTimeout bounds one tool call.
	DefaultToolTimeout = 30 * time.Minute
	// DefaultHeartbeat is how long an activity may go without a
	// heartbeat before Temporal gives it to another worker.
	DefaultHeartbeat = 30 * time.Second
	// MaxTaskBytes bounds a run's task, which travels in the workflow's
	// input; a longer task belongs in a file the task names.
	MaxTaskBytes = 64 << 10
)

// RunInput starts a run, or continues one in a new history.
type RunInput struct {
	// SessionID names the session the run works in, in the store the
	// workers share; the Begin activity creates it when it is missing.
	SessionID string `json:"session_id"`
	// Task is the user's task.
	Task string `json:"task"`
	// Limits are the agent's decision limits; zero values mean the
	// defaults.
	Limits agent.Limits `json:"limits"`
	// ContinueEvery is the number of model calls after which the run
	// continues as new; zero means DefaultContinueEvery. Temporal's own
	// suggestion to continue is followed too.
	ContinueEvery int `json:"continue_every,omitempty"`
	// ModelTimeout and ToolTimeout bound one model call and one tool
	// call; zero means DefaultModelTimeout and DefaultToolTimeout.
	ModelTimeout time.Duration `json:"model_timeout,omitempty"`
	ToolTimeout  time.Duration `json:"tool_timeout,omitempty"`
	// Heartbeat is how long a model or tool call may go without a
	// heartbeat before it is given to another worker (the worker was
	// lost); zero means DefaultHeartbeat. Activities heartbeat every
	// third of it.
	Heartbeat time.Duration `json:"heartbeat,omitempty"`

	// Machine and Next carry a run across continue-as-new: the loop's
	// state and the command it was about to carry out. Both are nil for
	// a new run.
	Machine *agent.MachineState `json:"machine,omitempty"`
	Next    *agent.Command      `json:"next,omitempty"`
	// Generation counts the histories the run has had.
	Generation int `json:"generation,omitempty"`
}

// Status is what the QueryStatus query answers.
type Status struct {
	SessionID string `json:"session_id"`
	// Phase is what the run waits for (see [agent.Phase]).
	Phase agent.Phase `json:"phase"`
	// Round is the number of model calls made.
	Round int `json:"round"`
	// Pending lists the calls awaiting approval.
	Pending []PendingCall `json:"pending,omitempty"`
	// Generation counts the histories the run has had.
	Generation int `json:"generation"`
}

// A PendingCall awaits approval; answer it with [Approve].
type PendingCall struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Reason string `json:"reason,omitempty"`
}

// Run is the workflow of one agent run. It drives an [agent.Machine]:
// each model call and each tool call is an activity that reads and writes
// the session in the store the workers share, and only references
// (the session id, the round, call ids, hashes) travel through the
// workflow's history, so that it grows by about the same number of bytes
// each round however long the conversation gets.
func Run(ctx workflow.Context, in RunInput) (*agent.Outcome, error) {
	if len(in.Task) > MaxTaskBytes {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the task is %d bytes, over the %d a workflow input carries: put it in a file and name the file in the task", len(in.Task), MaxTaskBytes),
			"PayloadTooLarge", nil)
	}
	every := in.ContinueEvery
	if every <= 0 {
		every = DefaultContinueEvery
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumInterval: 10 * time.Second},
	})
	modelCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: cmpOr(in.ModelTimeout, DefaultModelTimeout),
		HeartbeatTimeout:    cmpOr(in.Heartbeat, DefaultHeartbeat),
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: time.Minute, MaximumAttempts: 10},
	})
	toolCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: cmpOr(in.ToolTimeout, DefaultToolTimeout),
		HeartbeatTimeout:    cmpOr(in.Heartbeat, DefaultHeartbeat),
		WaitForCancellation: true,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 5},
	})

	m := agent.NewMachine(in.Limits)
	var cmd agent.Command
	if in.Machine == nil {
		owner := workflow.GetInfo(ctx).WorkflowExecution.ID
		if err := workflow.ExecuteActivity(ctx, activityBegin, BeginInput{SessionID: in.SessionID, Task: in.Task, Owner: owner}).Get(ctx, nil); err != nil {
			return nil, err
		}
		var err error
		if cmd, err = m.Step(agent.Input{Kind: agent.InputStart}); err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), "Machine", err)
		}
	} else {
		m = agent.RestoreMachine(in.Limits, *in.Machine)
		cmd = *in.Next
	}

	status := Status{SessionID: in.SessionID, Generation: in.Generation}
	if err := workflow.SetQueryHandler(ctx, QueryStatus, func() (Status, error) {
		st := status
		ms := m.State()
		st.Phase, st.Round = ms.Phase, ms.Round
		st.Pending = slices.Clone(st.Pending)
		return st, nil
	}); err != nil {
		return nil, err
	}
	approvals := workflow.GetSignalChannel(ctx, SignalApproval)
	var answers []agent.Answer // received and not yet used
	var parallel map[string]bool
	compacts := true // until a reply says

	calls := 0 // model calls in this history
	finish := func(out *agent.Outcome, cause error) (*agent.Outcome, error) {
		// A disconnected context: the session is closed even when the
		// run was cancelled.
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		fin := FinishInput{SessionID: in.SessionID, Outcome: *out}
		if cause != nil {
			fin.Abort = cause.Error()
			if temporal.IsCanceledError(cause) {
				fin.Abort = "the run was cancelled"
				out.Reason, out.Note = agent.StopCancelled, fin.Abort
			}
		}
		if err := workflow.ExecuteActivity(dctx, activityFinish, fin).Get(dctx, nil); err != nil {
			return out, errors.Join(cause, err)
		}
		return out, cause
	}
	for {
		var next agent.Input
		switch cmd.Kind {
		case agent.CmdStop:
			return finish(cmd.Outcome, nil)
		case agent.CmdCallModel:
			if calls >= every || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
				st, c, cont := m.State(), cmd, in
				cont.Task, cont.Machine, cont.Next, cont.Generation = "", &st, &c, in.Generation+1
				return nil, workflow.NewContinueAsNewError(ctx, WorkflowName, cont)
			}
			var reply ModelReply
			if err := workflow.ExecuteActivity(modelCtx, activityCallModel, ModelInput{SessionID: in.SessionID, Round: cmd.Round}).Get(ctx, &reply); err != nil {
				return finish(outcomeOf(m), err)
			}
			calls++
			if reply.Overflow {
				compacts = true
				next = agent.Input{Kind: agent.InputModelOverflow}
				break
			}
			next = agent.Input{Kind: agent.InputModelReplied, Reply: reply.response()}
			compacts = reply.Compacts
			parallel = map[string]bool{}
			for _, c := range reply.Calls {
				parallel[c.ID] = c.Parallel
			}
		case agent.CmdRunTools:
			reqs := make([]ToolInput, len(cmd.Calls))
			for i, c := range cmd.Calls {
				reqs[i] = ToolInput{SessionID: in.SessionID, Round: cmd.Round, CallID: c.ID, Tool: c.Name, Parallel: parallel[c.ID]}
			}
			var err error
			if next, err = runCalls(toolCtx, reqs); err != nil {
				return finish(outcomeOf(m), err)
			}
		case agent.CmdAwaitApproval:
			status.Pending = status.Pending[:0]
			for _, p := range cmd.Pending {
				status.Pending = append(status.Pending, PendingCall{ID: p.ID, Tool: p.Tool, Reason: p.Reason})
			}
			if err := workflow.ExecuteActivity(ctx, activityPause, PauseInput{SessionID: in.SessionID, Pending: cmd.Pending}).Get(ctx, nil); err != nil {
				return finish(outcomeOf(m), err)
			}
			var err error
			if answers, err = awaitAnswers(ctx, approvals, cmd.Pending, answers); err != nil {
				return finish(outcomeOf(m), err)
			}
			reqs := make([]ToolInput, len(cmd.Pending))
			for i, p := range cmd.Pending {
				k := slices.IndexFunc(answers, func(a agent.Answer) bool { return a.CallID == p.ID })
				ans := answers[k]
				answers = slices.Delete(answers, k, k+1)
				reqs[i] = ToolInput{SessionID: in.SessionID, Round: cmd.Round, CallID: p.ID, Tool: p.Tool, Parallel: parallel[p.ID], Answer: &ans}
			}
			status.Pending = nil
			if next, err = runCalls(toolCtx, reqs); err != nil {
				return finish(outcomeOf(m), err)
			}
		case agent.CmdCompact:
			// Histories recorded before replies said whether the agent
			// compacts always ran the activity: they replay as they were.
			skip := workflow.GetVersion(ctx, "skip-compact", workflow.DefaultVersion, 1) == 1
			if skip && !compacts && !cmd.Overflow {
				next = agent.Input{Kind: agent.InputCompacted}
				break
			}
			if err := workflow.ExecuteActivity(ctx, activityCompact, CompactInput{SessionID: in.SessionID, Round: cmd.Round, Usage: cmd.Usage, Overflow: cmd.Overflow}).Get(ctx, nil); err != nil {
				return finish(outcomeOf(m), err)
			}
			next = agent.Input{Kind: agent.InputCompacted}
		default:
			return finish(outcomeOf(m), temporal.NewNonRetryableApplicationError("unknown command "+string(cmd.Kind), "Machine", nil))
		}
		var err error
		if cmd, err = m.Step(next); err != nil {
			return finish(outcomeOf(m), temporal.NewNonRetryableApplicationError(err.Error(), "Machine", err))
		}
	}
}

// runCalls runs one activity per call: consecutive parallel-safe calls
// at once, the others one at a time, as the in-process runner does. It
// collects the results in call order, whatever order they finish in.
func runCalls(ctx workflow.Context, reqs []ToolInput) (agent.Input, error) {
	in := agent.Input{Kind: agent.InputToolsDone}
	outs := make([]ToolOutput, len(reqs))
	for i := 0; i < len(reqs); {
		j := i + 1
		if reqs[i].Parallel {
			for j < len(reqs) && reqs[j].Parallel {
				j++
			}
		}
		futures := make([]workflow.Future, j-i)
		for k := i; k < j; k++ {
			futures[k-i] = workflow.ExecuteActivity(ctx, activityCallTool, reqs[k])
		}
		var errs []error
		for k, f := range futures {
			if err := f.Get(ctx, &outs[i+k]); err != nil {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			return in, err
		}
		i = j
	}
	for _, o := range outs {
		if o.Pending != nil {
			in.Pending = append(in.Pending, *o.Pending)
			continue
		}
		in.Results = append(in.Results, o.Result)
		in.Usage = in.Usage.Add(o.Usage)
	}
	return in, nil
}

// outcomeOf is the outcome of a run that failed.
func outcomeOf(m *agent.Machine) *agent.Outcome {
	out := m.Outcome()
	out.Reason, out.Pending = agent.StopError, nil
	return &out
}

// awaitAnswers waits until every pending call has an answer among have
// and those the channel brings, and returns them all. Answers to calls
// that are not pending are dropped, and a second answer to a call
// replaces the first.
func awaitAnswers(ctx workflow.Context, ch workflow.ReceiveChannel, pending []tool.PendingCall, have []agent.Answer) ([]agent.Answer, error) {
	isPending := func(id string) bool {
		return slices.ContainsFunc(pending, func(p tool.PendingCall) bool { return p.ID == id })
	}
	have = slices.DeleteFunc(have, func(a agent.Answer) bool { return !isPending(a.CallID) })
	answered := func() bool {
		for _, p := range pending {
			if !slices.ContainsFunc(have, func(a agent.Answer) bool { return a.CallID == p.ID }) {
				return false
			}
		}
		return true
	}
	logger := workflow.GetLogger(ctx)
	var got agent.Answer
	cancelled := false
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &got) })
	sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { cancelled = true })
	for !answered() {
		got = agent.Answer{}
		sel.Select(ctx)
		if cancelled {
			return have, temporal.NewCanceledError()
		}
		switch {
		case !isPending(got.CallID):
			logger.Warn("approval for a call that does not await one; dropped", "call", got.CallID)
			continue
		case got.Verdict != tool.Allow && got.Verdict != tool.Deny:
			logger.Warn("approval with an unknown verdict; dropped", "call", got.CallID, "verdict", got.Verdict)
			continue
		}
		a := got
		have = slices.DeleteFunc(have, func(b agent.Answer) bool { return b.CallID == a.CallID })
		have = append(have, a)
	}
	return have, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
