package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
)

// Run works task in session s and returns how it ended. The error is
// non-nil when the run could not complete: the model endpoint failed, the
// session could not be written, or ctx was cancelled (then the Outcome says
// StopCancelled too). Whatever happens, s is left consistent: committed on
// success, aborted otherwise.
func (a *Agent) Run(ctx context.Context, s Session, task string) (*Outcome, error) {
	return a.drive(ctx, s, func(m *Machine) (*runState, Command, error) {
		if err := s.Begin(ctx, task); err != nil {
			return nil, Command{}, fmt.Errorf("begin round in session %s: %w", s.ID(), err)
		}
		cmd, err := m.Step(Input{Kind: InputStart})
		return &runState{task: task, history: ExpireResults(s.History(), a.cfg.ExpireToolResults)}, cmd, err
	})
}

// runState is what the in-process loop keeps between commands: the task,
// the transaction's messages after it, and the calls made.
type runState struct {
	task    string
	history []llm.Message
	round   []llm.Message
	invoked []tool.Invocation
	// images caches the bytes of the prompt's images loaded from the
	// session between rounds, by hash.
	images map[string][]byte
	// built is the last prompt, which the next one extends.
	built builtPrompt
}

// builtPrompt is the last prompt a run built: the system message, the
// history, the task message and the first round messages of the round.
type builtPrompt struct {
	msgs   []llm.Message // nil when the next prompt is built whole
	round  int           // how many of the round's messages msgs ends with
	images bool          // whether msgs carries images
}

// messages returns the messages of the prompt p with only the images
// maxImages says left in them: KeepImages(BuildPrompt(p), maxImages).
// While nothing but the round changes, and the round only grows, with no
// images in it (which [loadImages] changes in place), the prompt is the
// last one with the round's new messages appended, so that a round
// costs what it adds rather than a copy of the whole conversation. The
// last prompt's messages are not changed: messages past their length
// are, and the prompt returned has no room past its own. A change of st's
// history or of the order of its round's messages calls for
// [runState.rebuild].
func (st *runState) messages(p Prompt, maxImages int) (msgs []llm.Message, images bool) {
	b := &st.built
	sys, task := systemText(p), taskText(p)
	h := len(p.History)
	if b.msgs != nil && !b.images && b.round <= len(p.Round) && len(b.msgs) == h+2+b.round &&
		b.msgs[0].Content == sys && b.msgs[h+1].Content == task {
		add := p.Round[b.round:]
		if !hasImages(add) {
			b.msgs = append(b.msgs, add...)
			b.round = len(p.Round)
			return slices.Clip(b.msgs), false
		}
	}
	msgs = assemblePrompt(sys, p.History, task, p.Round)
	images = hasImages(msgs)
	*b = builtPrompt{msgs: msgs, round: len(p.Round), images: images}
	if images {
		// loadImages changes the messages in place: the next prompt is
		// built whole, from fresh ones.
		return KeepImages(msgs, maxImages), true
	}
	return slices.Clip(msgs), false
}

// rebuild makes the next prompt be built whole.
func (st *runState) rebuild() { st.built = builtPrompt{} }

// hasImages reports whether a tool message of msgs carries images.
func hasImages(msgs []llm.Message) bool {
	for i := range msgs {
		if msgs[i].Role == llm.RoleTool && len(msgs[i].Images) > 0 {
			return true
		}
	}
	return false
}

// drive runs the loop from the state and first command start gives, then
// commits, aborts, or (while calls await approval) leaves the transaction
// open.
func (a *Agent) drive(ctx context.Context, s Session, start func(*Machine) (*runState, Command, error)) (*Outcome, error) {
	begun := time.Now()
	out := &Outcome{}
	m := NewMachine(a.Limits())
	ctx, run := a.cfg.Telemetry.StartAgent(ctx, otel.AgentInfo{Name: a.cfg.Name, ConversationID: s.ID(), Model: a.cfg.Model, ParentCall: a.cfg.ParentCall})
	a.emit(Event{Kind: EventRunStarted, Session: s.ID()})
	var err error
	if a.cfg.Rounds != nil {
		err = a.cfg.Rounds.RoundStarted(ctx, s.ID())
	}
	var st *runState
	var cmd Command
	if err == nil {
		st, cmd, err = start(m)
		*out = m.Outcome()
	}
	if err == nil {
		err = a.execute(ctx, s, st, m, cmd, out)
	}
	if a.cfg.Rounds != nil {
		// Detached: the round's changes are recorded even when ctx is done.
		if rerr := a.cfg.Rounds.RoundEnded(context.WithoutCancel(ctx), s.ID()); rerr != nil {
			err = errors.Join(err, fmt.Errorf("record the round's changes in session %s: %w", s.ID(), rerr))
		}
	}
	switch {
	case err != nil:
		if ctx.Err() != nil {
			out.Reason, out.Note = StopCancelled, "the run was cancelled"
			err = fmt.Errorf("run cancelled: %w", context.Cause(ctx))
		} else if out.Reason == "" || out.Reason == StopApproval {
			out.Reason, out.Note, out.Pending = StopError, err.Error(), nil
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
		// Detached, as the abort is: the run's work is done, and its
		// commit (which merges the session's inbox) must land even when
		// ctx ends now.
		if cerr := s.Commit(context.WithoutCancel(ctx)); cerr != nil {
			err = fmt.Errorf("commit session %s: %w", s.ID(), cerr)
			out.Reason, out.Note = StopError, err.Error()
		}
	}
	run.End(otel.RunOutcome{StopReason: string(out.Reason), Rounds: out.Rounds, ToolCalls: out.ToolCalls, Usage: out.Usage}, err)
	a.emit(Event{Kind: EventRunFinished, Session: s.ID(), Outcome: out, Duration: time.Since(begun)})
	return out, err
}

// execute carries out m's commands, from cmd, until it stops or pauses
// for approval. out follows the machine's outcome after every step.
func (a *Agent) execute(ctx context.Context, s Session, st *runState, m *Machine, cmd Command, out *Outcome) error {
	var runner *tool.Runner
	var tools []llm.ToolDef
	for {
		var in Input
		switch cmd.Kind {
		case CmdStop, CmdAwaitApproval:
			*out = *cmd.Outcome
			return nil
		case CmdCallModel:
			if err := ctx.Err(); err != nil {
				return err
			}
			if runner == nil {
				runner = a.runnerFor(ctx, s, nil, nil)
				tools = toolDefs(runner.Registry())
			}
			resp, err := a.callModel(ctx, s, st, cmd.Round, tools)
			switch {
			case err != nil && a.cfg.Compactor != nil && llm.IsContextOverflow(err):
				a.cfg.Logger.Warn("the prompt is over the model's context window; compacting", "session", s.ID(), "round", cmd.Round, "err", err)
				in = Input{Kind: InputModelOverflow}
			case err != nil:
				return err
			default:
				in = Input{Kind: InputModelReplied, Reply: resp}
			}
		case CmdRunTools:
			if runner == nil {
				runner = a.runnerFor(ctx, s, nil, nil)
				tools = toolDefs(runner.Registry())
			}
			var err error
			in, err = a.runTools(ctx, s, runner, st, cmd.Round, cmd.Calls)
			usage := m.st.Usage
			a.emit(Event{Kind: EventRoundFinished, Round: cmd.Round, Usage: &usage})
			if err != nil {
				// The calls that finished count, though the run fails.
				out.ToolCalls += len(in.Results)
				return err
			}
			if err := ctx.Err(); err != nil {
				out.ToolCalls += len(in.Results)
				return err
			}
		case CmdCompact:
			usage := cmd.Usage
			if cmd.Overflow {
				usage = llm.Usage{InputTokens: OverflowTokens}
			}
			if err := a.compact(ctx, s, st, cmd.Round, usage); err != nil {
				return err
			}
			in = Input{Kind: InputCompacted}
		default:
			return fmt.Errorf("agent: unknown command %q", cmd.Kind)
		}
		next, err := m.Step(in)
		if err != nil {
			return err
		}
		*out = m.Outcome()
		if cmd.Kind == CmdCallModel && in.Reply != nil && next.Kind != CmdRunTools {
			usage := in.Reply.Usage
			a.emit(Event{Kind: EventRoundFinished, Round: cmd.Round, Usage: &usage})
		}
		cmd = next
	}
}

// callModel builds round n's prompt, calls the model and records its
// reply.
func (a *Agent) callModel(ctx context.Context, s Session, st *runState, n int, tools []llm.ToolDef) (*llm.Response, error) {
	msgs, images := st.messages(a.prompt(s, st), a.cfg.MaxImages)
	switch {
	case images:
		if st.images == nil {
			st.images = map[string][]byte{}
		}
		loadImages(ctx, s, msgs, st.images)
	default:
		clear(st.images) // what loadImages does with a prompt without images
	}
	req := &llm.Request{Model: a.cfg.Model, Messages: msgs, Tools: tools,
		MaxTokens: a.cfg.MaxTokens, Temperature: a.cfg.Temperature}
	a.emit(Event{Kind: EventRoundStarted, Session: s.ID(), Round: n})
	cctx, chat := a.cfg.Telemetry.StartChat(ctx, req)
	resp, err := a.cfg.Provider.Stream(cctx, req, func(e llm.Event) {
		chat.Chunk()
		switch e.Kind {
		case llm.EventText:
			a.emit(Event{Kind: EventText, Round: n, Text: e.Text})
		case llm.EventReasoning:
			a.emit(Event{Kind: EventReasoning, Round: n, Text: e.Text})
		}
	})
	chat.End(cctx, resp, err)
	if err != nil {
		return nil, fmt.Errorf("model call in round %d: %w", n, err)
	}
	resp.Message.Role = llm.RoleAssistant
	if resp.Stop == llm.StopMaxTokens {
		// Calls made before the cut are not run: the reply they belong
		// to is incomplete, and the run stops here.
		resp.Message.ToolCalls = nil
	}
	if err := s.RecordResponse(cctx, resp); err != nil {
		return nil, fmt.Errorf("record response of round %d: %w", n, err)
	}
	st.round = append(st.round, resp.Message)
	return resp, nil
}

// compact asks the configured Compactor about s between rounds and, when
// the session's prompt view changed, rebuilds st's history and round from
// it: the task stays pinned, the rest is the session's projection.
func (a *Agent) compact(ctx context.Context, s Session, st *runState, n int, usage llm.Usage) error {
	if a.cfg.Compactor == nil {
		return nil
	}
	changed, err := a.cfg.Compactor.MaybeCompact(ctx, s.ID(), usage)
	if err != nil {
		return fmt.Errorf("compact session %s after round %d: %w", s.ID(), n, err)
	}
	if !changed {
		return nil
	}
	st.history = ExpireResults(s.History(), a.cfg.ExpireToolResults)
	if pool := s.Pool(); len(pool) > 0 {
		st.round = orderResults(slices.Clone(pool[1:]))
	}
	st.rebuild()
	return nil
}

// runTools runs reqs and puts their results into the round, in call order
// after the assistant message that made them. It returns what the machine
// is told: the finished calls and those awaiting approval.
func (a *Agent) runTools(ctx context.Context, s Session, runner *tool.Runner, st *runState, n int, reqs []tool.Request) (Input, error) {
	tmpl := tool.Call{SessionID: s.ID(), Agent: a.cfg.Name, Iteration: n, History: slices.Clip(st.invoked), Root: a.cfg.Root,
		Subagent: a.cfg.ParentCall != "", ParentID: a.cfg.ParentCall}
	in := Input{Kind: InputToolsDone}
	results, err := runner.Run(ctx, tmpl, reqs)
	if ae, ok := errors.AsType[*tool.ApprovalError](err); ok {
		in.Pending = ae.Calls
		err = withoutApproval(err)
	}
	pending := map[string]bool{}
	for _, p := range in.Pending {
		pending[p.ID] = true
	}
	for i, res := range results {
		if pending[reqs[i].ID] {
			continue
		}
		if u, ok := res.Data.(UsageReporter); ok {
			in.Usage = in.Usage.Add(u.ModelUsage())
		}
		st.round = append(st.round, toolMessage(reqs[i], res))
		st.invoked = append(st.invoked, tool.Invocation{ID: reqs[i].ID, Tool: reqs[i].Name, Arguments: reqs[i].Arguments, Success: res.Success})
		in.Results = append(in.Results, CallResult{ID: reqs[i].ID, Tool: reqs[i].Name, Arguments: reqs[i].Arguments,
			Output: res.Output, Error: res.Error, Success: res.Success})
	}
	if reorder(st.round) < st.built.round {
		st.rebuild() // the last prompt has messages out of their new order
	}
	if err != nil {
		return in, fmt.Errorf("tools in round %d: %w", n, err)
	}
	return in, nil
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

// orderResults puts the tool messages after each assistant message in the
// order of its calls.
func orderResults(round []llm.Message) []llm.Message {
	reorder(round)
	return round
}

// reorder puts the tool messages after each assistant message in the
// order of its calls and returns the index of the first message it moved,
// len(round) when it moved none.
func reorder(round []llm.Message) int {
	first := len(round)
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
		cmp := func(x, y llm.Message) int { return pos[x.ToolCallID] - pos[y.ToolCallID] }
		if !slices.IsSortedFunc(round[i+1:j], cmp) {
			slices.SortStableFunc(round[i+1:j], cmp)
			first = min(first, i+1)
		}
		i = j - 1
	}
	return first
}

// runnerFor returns a runner that records into s, traced as part of the
// run ctx belongs to. A non-nil gate replaces the configured one (to apply
// a user's answers); calls listed in skip are not recorded again.
func (a *Agent) runnerFor(ctx context.Context, s Session, gate tool.Gate, skip recordedCalls) *tool.Runner {
	opts := a.cfg.RunnerOptions
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
	reg := a.cfg.Telemetry.Instrument(ctx, &opts, a.cfg.Tools)
	return tool.NewRunner(reg, &opts)
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
