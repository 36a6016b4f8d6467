package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// Defaults of [Config].
const (
	DefaultMaxRounds   = 10
	DefaultLoopRepeats = 5
	DefaultLoopWindow  = 10
)

// Config configures an [Agent]. Provider and Runner are required; a zero
// value in any other field means its documented default.
type Config struct {
	// Provider is the model.
	Provider llm.Provider
	// Model is passed in each request; empty means the provider's default.
	Model string
	// Runner executes tool calls; the tools offered are the visible tools
	// of its registry. The agent sets the session as the runner's recorder
	// for each run, so Runner must not have a Recorder of its own.
	Runner *tool.Runner
	// RunnerOptions are used to build a runner per run (with the session as
	// its recorder) when they are given; Runner's registry is still used.
	RunnerOptions *tool.RunnerOptions
	// Name is the agent's name, passed to tools in [tool.Call].
	Name string
	// SystemPrompt replaces DefaultSystemPrompt.
	SystemPrompt string
	// Instructions and Roles go into the system prompt; see [Prompt].
	Instructions []Document
	Roles        []Document
	// Root is the workspace root given to tools and used to read file
	// references; nil means tools get no workspace.
	Root *os.Root
	// MaxRounds caps the model calls of a run; zero means DefaultMaxRounds.
	MaxRounds int
	// ExpireToolResults, if positive, replaces in prompts the tool results
	// older than this many user tasks with a short note (see
	// [ExpireResults]); the session keeps them. Zero keeps every result.
	ExpireToolResults int
	// LoopRepeats and LoopWindow define a loop: the same call with the same
	// result LoopRepeats times within LoopWindow rounds. Zero means the
	// defaults, 5 within 10.
	LoopRepeats, LoopWindow int
	// StopAtTools names tools after whose call the run stops.
	StopAtTools []string
	// MaxTokens and Temperature are passed to the model.
	MaxTokens   int
	Temperature *float64
	// OnEvent receives the run's events, on the goroutine running the loop
	// or the runner's (serialised).
	OnEvent func(Event)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// An Agent runs tasks. It is safe for concurrent use on different sessions.
type Agent struct {
	cfg Config
}

// New returns an agent, or an error naming what the config lacks.
func New(cfg Config) (*Agent, error) {
	if cfg.Provider == nil {
		return nil, errors.New("agent: no model provider configured")
	}
	if cfg.Runner == nil {
		return nil, errors.New("agent: no tool runner configured")
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.LoopRepeats <= 0 {
		cfg.LoopRepeats = DefaultLoopRepeats
	}
	if cfg.LoopWindow <= 0 {
		cfg.LoopWindow = DefaultLoopWindow
	}
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = DefaultSystemPrompt
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Agent{cfg: cfg}, nil
}

// StopReason says why a run ended.
type StopReason string

// The reasons a run ends.
const (
	StopAnswer    StopReason = "answer"
	StopMaxRounds StopReason = "max_rounds"
	StopLoop      StopReason = "loop"
	StopTool      StopReason = "stop_tool"
	StopCancelled StopReason = "cancelled"
	// StopApproval: calls await approval; answer them with [Agent.Resume].
	// The session's transaction stays open meanwhile.
	StopApproval StopReason = "approval"
	StopError    StopReason = "error"
)

// An Outcome is the result of a run.
type Outcome struct {
	// Text is the model's last text.
	Text string `json:"text"`
	// Reason says why the run ended; Note explains it in words when it was
	// not a plain answer.
	Reason StopReason `json:"reason"`
	Note   string     `json:"note,omitempty"`
	// Rounds is the number of model calls made.
	Rounds int `json:"rounds"`
	// ToolCalls is the number of tool calls run.
	ToolCalls int `json:"tool_calls"`
	// Usage adds up the tokens of every model call.
	Usage llm.Usage `json:"usage"`
	// Pending lists the calls that await approval, when Reason is
	// StopApproval.
	Pending []tool.PendingCall `json:"pending,omitempty"`
}

// Run works task in session s and returns how it ended. The error is
// non-nil when the run could not complete: the model endpoint failed, the
// session could not be written, or ctx was cancelled (then the Outcome says
// StopCancelled too). Whatever happens, s is left consistent: committed on
// success, aborted otherwise.
func (a *Agent) Run(ctx context.Context, s Session, task string) (*Outcome, error) {
	return a.drive(ctx, s, func(out *Outcome) (*runState, error) {
		if err := s.Begin(ctx, task); err != nil {
			return nil, fmt.Errorf("begin round in session %s: %w", s.ID(), err)
		}
		return &runState{task: task, history: ExpireResults(s.History(), a.cfg.ExpireToolResults)}, nil
	})
}

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
	return a.drive(ctx, s, func(out *Outcome) (*runState, error) {
		st := &runState{task: pool[0].Content, round: pool[1:], history: ExpireResults(s.History(), a.cfg.ExpireToolResults)}
		for _, m := range st.round {
			if m.Role == llm.RoleAssistant {
				st.n++
			}
		}
		var reqs []tool.Request
		for _, c := range pending {
			if _, ok := byID[c.ID]; ok {
				reqs = append(reqs, tool.Request{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
		}
		if len(reqs) > 0 {
			runner := a.runnerFor(s, answeredGate{byID}, recordedCalls(reqs))
			if err := a.runTools(ctx, s, runner, st, reqs, out); err != nil {
				return nil, err
			}
		}
		if rest := pendingCalls(st.round); len(rest) > 0 {
			out.Reason, out.Note = StopApproval, fmt.Sprintf("%d calls still await approval", len(rest))
			for _, c := range rest {
				out.Pending = append(out.Pending, tool.PendingCall{ID: c.ID, Tool: c.Name, Arguments: c.Arguments, Reason: "awaiting approval"})
			}
		}
		return st, nil
	})
}

// runState is a run's progress: the task, the transaction's messages after
// it, and the number of model calls made.
type runState struct {
	task    string
	history []llm.Message
	round   []llm.Message
	n       int
	invoked []tool.Invocation
}

// drive runs the loop from the state start gives, then commits, aborts, or
// (while calls await approval) leaves the transaction open.
func (a *Agent) drive(ctx context.Context, s Session, start func(*Outcome) (*runState, error)) (*Outcome, error) {
	begun := time.Now()
	out := &Outcome{}
	a.emit(Event{Kind: EventRunStarted, Session: s.ID()})
	st, err := start(out)
	if err == nil && out.Reason != StopApproval {
		err = a.loop(ctx, s, st, out)
	}
	switch {
	case err != nil:
		if ctx.Err() != nil {
			out.Reason, out.Note = StopCancelled, "the run was cancelled"
			err = fmt.Errorf("run cancelled: %w", context.Cause(ctx))
		} else if out.Reason == "" {
			out.Reason, out.Note = StopError, err.Error()
		}
		// A detached context: the abort must land even though ctx is done.
		if aerr := s.Abort(context.WithoutCancel(ctx), out.Note); aerr != nil {
			err = errors.Join(err, fmt.Errorf("abort session %s: %w", s.ID(), aerr))
		}
	case out.Reason == StopApproval:
		// The transaction stays open until Resume; a durable session
		// records the pause so that reopening it does not close it.
		if p, ok := s.(Pauser); ok {
			if perr := p.Pause(ctx, out.Pending); perr != nil {
				err = fmt.Errorf("pause session %s: %w", s.ID(), perr)
				out.Reason, out.Note = StopError, err.Error()
			}
		}
	default:
		if cerr := s.Commit(ctx); cerr != nil {
			err = fmt.Errorf("commit session %s: %w", s.ID(), cerr)
			out.Reason, out.Note = StopError, err.Error()
		}
	}
	a.emit(Event{Kind: EventRunFinished, Session: s.ID(), Outcome: out, Duration: time.Since(begun)})
	return out, err
}

func (a *Agent) loop(ctx context.Context, s Session, st *runState, out *Outcome) error {
	runner := a.runnerFor(s, nil, nil)
	tools := toolDefs(runner.Registry())
	base := Prompt{System: a.cfg.SystemPrompt, Instructions: a.cfg.Instructions, Roles: a.cfg.Roles,
		History: st.history, Task: st.task}
	var pc PromptContext
	if p, ok := s.(PromptContext); ok {
		pc = p
	}
	guard := newLoopGuard(a.cfg.LoopRepeats, a.cfg.LoopWindow)
	for {
		n := st.n + 1
		if n > a.cfg.MaxRounds {
			out.Reason = StopMaxRounds
			out.Note = fmt.Sprintf("stopped after %d rounds, the limit; the task may be unfinished", a.cfg.MaxRounds)
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p := base
		p.Round = st.round
		if pc != nil {
			p.Todos = pc.Todos()
			if a.cfg.Root != nil {
				p.References = ReadReferences(a.cfg.Root, pc.References())
			}
		}
		req := &llm.Request{Model: a.cfg.Model, Messages: BuildPrompt(p), Tools: tools,
			MaxTokens: a.cfg.MaxTokens, Temperature: a.cfg.Temperature}
		a.emit(Event{Kind: EventRoundStarted, Session: s.ID(), Round: n})
		resp, err := a.cfg.Provider.Stream(ctx, req, func(e llm.Event) {
			switch e.Kind {
			case llm.EventText:
				a.emit(Event{Kind: EventText, Round: n, Text: e.Text})
			case llm.EventReasoning:
				a.emit(Event{Kind: EventReasoning, Round: n, Text: e.Text})
			}
		})
		if err != nil {
			return fmt.Errorf("model call in round %d: %w", n, err)
		}
		st.n = n
		out.Rounds++
		out.Usage = out.Usage.Add(resp.Usage)
		resp.Message.Role = llm.RoleAssistant
		if resp.Message.Content != "" {
			out.Text = resp.Message.Content
		}
		if err := s.RecordResponse(ctx, resp); err != nil {
			return fmt.Errorf("record response of round %d: %w", n, err)
		}
		st.round = append(st.round, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			out.Reason = StopAnswer
			a.emit(Event{Kind: EventRoundFinished, Round: n, Usage: &resp.Usage})
			return nil
		}
		reqs := make([]tool.Request, len(resp.Message.ToolCalls))
		for i, c := range resp.Message.ToolCalls {
			reqs[i] = tool.Request{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		err = a.runTools(ctx, s, runner, st, reqs, out)
		a.emit(Event{Kind: EventRoundFinished, Round: n, Usage: &resp.Usage})
		if err != nil || out.Reason == StopApproval {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if call, ok := guard.observe(n, reqs, st.results(reqs)); ok {
			out.Reason = StopLoop
			out.Note = fmt.Sprintf("stopped: %s was called with the same arguments and got the same result %d times within %d rounds",
				call, a.cfg.LoopRepeats, a.cfg.LoopWindow)
			return nil
		}
		for _, r := range reqs {
			if slices.Contains(a.cfg.StopAtTools, r.Name) {
				out.Reason = StopTool
				out.Note = "stopped after " + r.Name + ", a stop tool"
				return nil
			}
		}
	}
}

// runTools runs reqs and puts their results into the round, in call order
// after the assistant message that made them. Calls that await approval
// set out.Reason to StopApproval.
func (a *Agent) runTools(ctx context.Context, s Session, runner *tool.Runner, st *runState, reqs []tool.Request, out *Outcome) error {
	tmpl := tool.Call{SessionID: s.ID(), Agent: a.cfg.Name, Iteration: st.n, History: slices.Clone(st.invoked), Root: a.cfg.Root}
	results, err := runner.Run(ctx, tmpl, reqs)
	if ae, ok := errors.AsType[*tool.ApprovalError](err); ok {
		out.Reason, out.Pending = StopApproval, ae.Calls
		out.Note = ae.Error()
		err = withoutApproval(err)
	}
	pending := map[string]bool{}
	for _, p := range out.Pending {
		pending[p.ID] = true
	}
	for i, res := range results {
		if pending[reqs[i].ID] {
			continue
		}
		out.ToolCalls++
		st.round = append(st.round, llm.Message{Role: llm.RoleTool, ToolCallID: reqs[i].ID, ToolName: reqs[i].Name, Content: res.ForModel()})
		st.invoked = append(st.invoked, tool.Invocation{ID: reqs[i].ID, Tool: reqs[i].Name, Arguments: reqs[i].Arguments, Success: res.Success})
	}
	st.round = orderResults(st.round)
	if err != nil {
		return fmt.Errorf("tools in round %d: %w", st.n, err)
	}
	return nil
}

// results returns the tool messages' contents for reqs, as results for the
// loop guard.
func (st *runState) results(reqs []tool.Request) []tool.Result {
	byID := map[string]string{}
	for _, m := range st.round {
		if m.Role == llm.RoleTool {
			byID[m.ToolCallID] = m.Content
		}
	}
	out := make([]tool.Result, len(reqs))
	for i, r := range reqs {
		out[i] = tool.Result{Output: byID[r.ID]}
	}
	return out
}

// withoutApproval removes an ApprovalError from a joined error.
func withoutApproval(err error) error {
	var rest []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if _, ok := e.(*tool.ApprovalError); !ok {
				rest = append(rest, e)
			}
		}
		return errors.Join(rest...)
	}
	if _, ok := err.(*tool.ApprovalError); ok {
		return nil
	}
	return err
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

// orderResults puts the tool messages after each assistant message in the
// order of its calls.
func orderResults(round []llm.Message) []llm.Message {
	for i := 0; i < len(round); i++ {
		if round[i].Role != llm.RoleAssistant || len(round[i].ToolCalls) < 2 {
			continue
		}
		pos := map[string]int{}
		for k, c := range round[i].ToolCalls {
			pos[c.ID] = k
		}
		j := i + 1
		for j < len(round) && round[j].Role == llm.RoleTool {
			j++
		}
		slices.SortStableFunc(round[i+1:j], func(x, y llm.Message) int { return pos[x.ToolCallID] - pos[y.ToolCallID] })
		i = j - 1
	}
	return round
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

// runnerFor returns a runner that records into s. A non-nil gate replaces
// the configured one (to apply a user's answers); calls listed in skip are
// not recorded again.
func (a *Agent) runnerFor(s Session, gate tool.Gate, skip recordedCalls) *tool.Runner {
	var opts tool.RunnerOptions
	if a.cfg.RunnerOptions != nil {
		opts = *a.cfg.RunnerOptions
	}
	opts.Recorder = s
	if len(skip) > 0 {
		opts.Recorder = skipRecorder{Recorder: s, skip: skip}
	}
	if gate != nil {
		opts.Gate, opts.Approver, opts.PauseForApproval = gate, nil, false
	}
	user := opts.OnEvent
	opts.OnEvent = func(e tool.Event) {
		if user != nil {
			user(e)
		}
		a.emit(Event{Kind: EventKind(e.Kind), Call: &e})
	}
	if opts.Logger == nil {
		opts.Logger = a.cfg.Logger
	}
	return tool.NewRunner(a.cfg.Runner.Registry(), &opts)
}

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

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent != nil {
		a.cfg.OnEvent(e)
	}
}

// toolDefs lists the tools a model is offered.
func toolDefs(reg *tool.Registry) []llm.ToolDef {
	visible := reg.Visible()
	defs := make([]llm.ToolDef, len(visible))
	for i, t := range visible {
		s := t.Spec()
		defs[i] = llm.ToolDef{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema}
	}
	return defs
}

// loopGuard notices the same call with the same result repeating.
type loopGuard struct {
	repeats, window int
	seen            map[string][]int // call+result key → rounds
}

func newLoopGuard(repeats, window int) *loopGuard {
	return &loopGuard{repeats: repeats, window: window, seen: map[string][]int{}}
}

// observe records a round's calls and reports the first call that has now
// repeated too often.
func (g *loopGuard) observe(round int, reqs []tool.Request, results []tool.Result) (string, bool) {
	for i, r := range reqs {
		key := r.Name + "\x00" + string(r.Arguments) + "\x00" + results[i].Output + "\x00" + results[i].Error
		rounds := append(g.seen[key], round)
		rounds = slices.DeleteFunc(rounds, func(n int) bool { return n <= round-g.window })
		g.seen[key] = rounds
		if len(rounds) >= g.repeats {
			return r.Name, true
		}
	}
	return "", false
}
