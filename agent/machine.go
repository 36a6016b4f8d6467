package agent

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// A Machine makes a run's decisions: given what just happened (an
// [Input]), it says what to do next (a [Command]). It does no I/O and
// reads no clock, so the same inputs always give the same commands: the
// in-process loop ([Agent.Run]) executes its commands directly, and a
// durable runner (package durable/temporal) replays it inside a workflow
// and maps its commands to activities and signals.
//
// A run starts with [InputStart] and alternates: [CmdCallModel] is
// answered with [InputModelReplied], [CmdRunTools] with [InputToolsDone],
// [CmdCompact] with [InputCompacted], and [CmdAwaitApproval] with
// [InputToolsDone] once the answered calls ran. [CmdStop] ends the run;
// its Outcome says why. An input the machine does not expect is an error
// and changes nothing.
//
// The machine's whole state is its [MachineState], which encodes to JSON,
// so a durable runner can carry a run across a restart of its history.
type Machine struct {
	lim Limits
	st  MachineState
}

// Limits are the decisions' parameters, taken from [Config].
type Limits struct {
	// MaxRounds caps the model calls of a run, counting those made before
	// a resumption.
	MaxRounds int `json:"max_rounds"`
	// LoopRepeats and LoopWindow define a loop: the same call with the
	// same result LoopRepeats times within LoopWindow rounds.
	LoopRepeats int `json:"loop_repeats"`
	LoopWindow  int `json:"loop_window"`
	// StopAtTools names tools after whose successful call the run stops.
	StopAtTools []string `json:"stop_at_tools,omitempty"`
	// CompactHint is [Config.CompactHint].
	CompactHint string `json:"compact_hint,omitempty"`
}

// Limits returns the machine limits the agent's config gives.
func (a *Agent) Limits() Limits {
	return Limits{MaxRounds: a.cfg.MaxRounds, LoopRepeats: a.cfg.LoopRepeats, LoopWindow: a.cfg.LoopWindow,
		StopAtTools: slices.Clone(a.cfg.StopAtTools), CompactHint: a.cfg.CompactHint}
}

// MachineState is a [Machine]'s progress through a run.
type MachineState struct {
	// Round is the number of model calls the run's transaction has had,
	// including those before a resumption.
	Round int `json:"round"`
	// Phase is what the machine waits for: the input that answers its
	// last command.
	Phase Phase `json:"phase"`
	// Calls are the calls of the last reply: those being run or awaiting
	// approval.
	Calls []tool.Request `json:"calls,omitempty"`
	// Usage is the last model reply's usage, which compaction is judged
	// by.
	Usage llm.Usage `json:"usage"`
	// Outcome accumulates the run's outcome: text, rounds, tool calls
	// and usage of this run (not of earlier runs of the transaction).
	Outcome Outcome `json:"outcome"`
	// Seen is the loop guard's memory: for each call and result, the
	// rounds it came back in, within the window.
	Seen map[string][]int `json:"seen,omitempty"`
	// Overflowed is the round whose prompt was over the context window,
	// being compacted and tried again; 0 when none.
	Overflowed int `json:"overflowed,omitempty"`
}

// Phase says which input a [Machine] waits for.
type Phase string

// The phases of a run.
const (
	PhaseStart    Phase = ""
	PhaseModel    Phase = "model"
	PhaseTools    Phase = "tools"
	PhaseApproval Phase = "approval"
	PhaseCompact  Phase = "compact"
	PhaseDone     Phase = "done"
)

// CommandKind says what a [Command] asks for.
type CommandKind string

// The commands.
const (
	// CmdCallModel: build the prompt from the session and call the model
	// for round Command.Round; answer with InputModelReplied.
	CmdCallModel CommandKind = "call_model"
	// CmdRunTools: run Command.Calls (in parallel where the tools allow)
	// and record their results in call order; answer with
	// InputToolsDone.
	CmdRunTools CommandKind = "run_tools"
	// CmdAwaitApproval: Command.Pending await a person's answer; run the
	// answered ones and answer with InputToolsDone. The in-process loop
	// pauses the run here ([StopApproval]); a durable runner waits.
	CmdAwaitApproval CommandKind = "await_approval"
	// CmdCompact: ask the compactor whether the session should be
	// compacted, given Command.Usage; answer with InputCompacted.
	CmdCompact CommandKind = "compact"
	// CmdStop: the run is over; Command.Outcome says how.
	CmdStop CommandKind = "stop"
)

// A Command is what a [Machine] asks its executor to do next.
type Command struct {
	Kind CommandKind `json:"kind"`
	// Round is the model call the command belongs to.
	Round int `json:"round"`
	// Calls are the calls to run, in the order the model made them.
	Calls []tool.Request `json:"calls,omitempty"`
	// Pending are the calls awaiting approval.
	Pending []tool.PendingCall `json:"pending,omitempty"`
	// Usage is the last reply's usage, for CmdCompact.
	Usage llm.Usage `json:"usage"`
	// Overflow says CmdCompact is for a prompt over the context window:
	// the compactor should compact whatever the usage says.
	Overflow bool `json:"overflow,omitempty"`
	// Outcome is the run's outcome, for CmdStop and CmdAwaitApproval.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// InputKind says what an [Input] reports.
type InputKind string

// The inputs.
const (
	// InputStart starts a run (or resumes one: see [Machine.Resume]).
	InputStart InputKind = "start"
	// InputModelReplied reports the model's reply, already recorded.
	InputModelReplied InputKind = "model_replied"
	// InputToolsDone reports the calls that finished, in call order, and
	// those that await approval.
	InputToolsDone InputKind = "tools_done"
	// InputCompacted reports that the compactor was asked.
	InputCompacted InputKind = "compacted"
	// InputModelOverflow answers CmdCallModel when the prompt was over
	// the model's context window ([llm.IsContextOverflow]) and a
	// compactor can shorten it: the machine compacts, then calls the
	// model again for the same round, once.
	InputModelOverflow InputKind = "model_overflow"
)

// An Input tells a [Machine] what happened.
type Input struct {
	Kind InputKind `json:"kind"`
	// Reply is the model's reply, for InputModelReplied: its message,
	// usage and stop reason.
	Reply *llm.Response `json:"reply,omitempty"`
	// Results are the finished calls, for InputToolsDone, in call order.
	Results []CallResult `json:"results,omitempty"`
	// Pending are the calls still awaiting approval.
	Pending []tool.PendingCall `json:"pending,omitempty"`
	// Usage is what tools reported spending on models (subagents).
	Usage llm.Usage `json:"usage"`
}

// A CallResult is what the machine needs of a finished call.
type CallResult struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Output    string          `json:"output,omitempty"`
	Error     string          `json:"error,omitempty"`
	Success   bool            `json:"success"`
}

// NewMachine returns a machine for a new run under lim; a zero limit
// means its default.
func NewMachine(lim Limits) *Machine {
	if lim.MaxRounds <= 0 {
		lim.MaxRounds = DefaultMaxRounds
	}
	if lim.LoopRepeats <= 0 {
		lim.LoopRepeats = DefaultLoopRepeats
	}
	if lim.LoopWindow <= 0 {
		lim.LoopWindow = DefaultLoopWindow
	}
	return &Machine{lim: lim}
}

// RestoreMachine returns a machine that goes on from st, as saved by
// [Machine.State].
func RestoreMachine(lim Limits, st MachineState) *Machine {
	m := NewMachine(lim)
	m.st = st
	m.st.Calls = slices.Clone(st.Calls)
	m.st.Seen = cloneSeen(st.Seen)
	return m
}

// State returns a copy of the machine's state.
func (m *Machine) State() MachineState {
	st := m.st
	st.Calls = slices.Clone(st.Calls)
	st.Seen = cloneSeen(st.Seen)
	st.Outcome.Pending = slices.Clone(st.Outcome.Pending)
	return st
}

// Outcome returns the run's outcome so far.
func (m *Machine) Outcome() Outcome {
	out := m.st.Outcome
	out.Pending = slices.Clone(out.Pending)
	return out
}

// Resume prepares a machine for a run that continues a transaction paused
// for approval: rounds model calls were made, and pending await answers.
// The next input is InputToolsDone with the answered calls' results.
func (m *Machine) Resume(rounds int, pending []tool.PendingCall) {
	m.st.Round = rounds
	m.st.Phase = PhaseApproval
	m.st.Calls = m.st.Calls[:0]
	for _, p := range pending {
		m.st.Calls = append(m.st.Calls, tool.Request{ID: p.ID, Name: p.Tool, Arguments: p.Arguments})
	}
}

// Step takes in what happened and returns what to do next.
func (m *Machine) Step(in Input) (Command, error) {
	want := map[Phase]InputKind{PhaseStart: InputStart, PhaseModel: InputModelReplied, PhaseTools: InputToolsDone,
		PhaseApproval: InputToolsDone, PhaseCompact: InputCompacted}[m.st.Phase]
	if m.st.Phase == PhaseModel && in.Kind == InputModelOverflow {
		return m.overflowed(), nil
	}
	if m.st.Phase == PhaseDone || in.Kind != want {
		return Command{}, fmt.Errorf("agent: machine in phase %q cannot take input %q", m.st.Phase, in.Kind)
	}
	switch in.Kind {
	case InputStart:
		return m.next(), nil
	case InputModelReplied:
		if in.Reply == nil {
			return Command{}, fmt.Errorf("agent: input %q without a reply", in.Kind)
		}
		return m.replied(in.Reply), nil
	case InputToolsDone:
		return m.toolsDone(in), nil
	default: // InputCompacted
		return m.next(), nil
	}
}

// next calls the model for the next round, unless the limit is reached.
func (m *Machine) next() Command {
	if m.st.Round >= m.lim.MaxRounds {
		return m.stop(StopMaxRounds, fmt.Sprintf("stopped after %d rounds, the limit; the task may be unfinished", m.lim.MaxRounds))
	}
	m.st.Phase = PhaseModel
	return Command{Kind: CmdCallModel, Round: m.st.Round + 1}
}

// overflowed compacts after a prompt over the context window, unless
// this round's prompt overflowed once already.
func (m *Machine) overflowed() Command {
	round := m.st.Round + 1
	if m.st.Overflowed == round {
		m.st.Overflowed = 0
		return m.stop(StopError, fmt.Sprintf("the prompt of round %d is over the model's context window even after compaction: start a new session, or compact it by hand (%s)",
			round, cmp.Or(m.lim.CompactHint, "compact.Compactor.Compact")))
	}
	m.st.Overflowed = round
	m.st.Phase = PhaseCompact
	return Command{Kind: CmdCompact, Round: m.st.Round, Usage: m.st.Usage, Overflow: true}
}

func (m *Machine) replied(resp *llm.Response) Command {
	m.st.Overflowed = 0
	m.st.Round++
	out := &m.st.Outcome
	out.Rounds++
	out.Usage = out.Usage.Add(resp.Usage)
	m.st.Usage = resp.Usage
	if resp.Message.Content != "" {
		out.Text = resp.Message.Content
	}
	calls := resp.Message.ToolCalls
	if resp.Stop == llm.StopMaxTokens {
		// Calls made before the cut are not run: the reply they belong
		// to is incomplete.
		calls = nil
	}
	if len(calls) == 0 {
		switch resp.Stop {
		case llm.StopMaxTokens:
			return m.stop(StopMaxTokens, "the model's reply was cut off at its output limit (max tokens): the text is incomplete; raise the limit or ask for less at once")
		case llm.StopRefusal:
			return m.stop(StopRefusal, "the model declined to answer")
		}
		return m.stop(StopAnswer, "")
	}
	m.st.Calls = make([]tool.Request, len(calls))
	for i, c := range calls {
		m.st.Calls[i] = tool.Request{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
	}
	m.st.Phase = PhaseTools
	return Command{Kind: CmdRunTools, Round: m.st.Round, Calls: slices.Clone(m.st.Calls)}
}

func (m *Machine) toolsDone(in Input) Command {
	out := &m.st.Outcome
	out.ToolCalls += len(in.Results)
	out.Usage = out.Usage.Add(in.Usage)
	if len(in.Pending) > 0 {
		m.st.Phase = PhaseApproval
		out.Reason, out.Pending = StopApproval, slices.Clone(in.Pending)
		out.Note = fmt.Sprintf("%d calls await approval", len(in.Pending))
		o := *out
		return Command{Kind: CmdAwaitApproval, Round: m.st.Round, Pending: slices.Clone(in.Pending), Outcome: &o}
	}
	out.Reason, out.Note, out.Pending = "", "", nil
	if name, ok := m.observe(in.Results); ok {
		return m.stop(StopLoop, fmt.Sprintf("stopped: %s was called with the same arguments and got the same result %d times within %d rounds",
			name, m.lim.LoopRepeats, m.lim.LoopWindow))
	}
	for _, r := range in.Results {
		if r.Success && slices.Contains(m.lim.StopAtTools, r.Tool) {
			return m.stop(StopTool, "stopped after "+r.Tool+", a stop tool")
		}
	}
	m.st.Phase = PhaseCompact
	return Command{Kind: CmdCompact, Round: m.st.Round, Usage: m.st.Usage}
}

// observe records a round's results in the loop guard and reports the
// first call that has now repeated too often.
func (m *Machine) observe(results []CallResult) (string, bool) {
	if m.st.Seen == nil {
		m.st.Seen = map[string][]int{}
	}
	round := m.st.Round
	for _, r := range results {
		key := guardKey(r)
		rounds := append(m.st.Seen[key], round)
		rounds = slices.DeleteFunc(rounds, func(n int) bool { return n <= round-m.lim.LoopWindow })
		m.st.Seen[key] = rounds
		if len(rounds) >= m.lim.LoopRepeats {
			return r.Tool, true
		}
	}
	// Forget what left the window, so the state stays small on long runs.
	for k, rounds := range m.st.Seen {
		if len(rounds) == 0 || rounds[len(rounds)-1] <= round-m.lim.LoopWindow {
			delete(m.st.Seen, k)
		}
	}
	return "", false
}

func (m *Machine) stop(reason StopReason, note string) Command {
	m.st.Phase = PhaseDone
	m.st.Calls = nil
	out := m.st.Outcome
	out.Reason, out.Note, out.Pending = reason, note, nil
	return Command{Kind: CmdStop, Round: m.st.Round, Outcome: &out}
}

// guardKey identifies a call and its result by a hash, so that the
// state stays small whatever the outputs' size.
func guardKey(r CallResult) string {
	h := sha256.New()
	for _, part := range []string{r.Tool, string(r.Arguments), r.Output, r.Error} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func cloneSeen(seen map[string][]int) map[string][]int {
	if seen == nil {
		return nil
	}
	c := make(map[string][]int, len(seen))
	for k, v := range seen {
		c[k] = slices.Clone(v)
	}
	return c
}
