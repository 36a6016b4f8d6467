package agent

import (
	"context"
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
	StopError     StopReason = "error"
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
}

// Run works task in session s and returns how it ended. The error is
// non-nil when the run could not complete: the model endpoint failed, the
// session could not be written, or ctx was cancelled (then the Outcome says
// StopCancelled too). Whatever happens, s is left consistent: committed on
// success, aborted otherwise.
func (a *Agent) Run(ctx context.Context, s Session, task string) (*Outcome, error) {
	start := time.Now()
	out := &Outcome{}
	a.emit(Event{Kind: EventRunStarted, Session: s.ID()})
	err := a.run(ctx, s, task, out)
	if err != nil {
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
	} else if cerr := s.Commit(ctx); cerr != nil {
		err = fmt.Errorf("commit session %s: %w", s.ID(), cerr)
		out.Reason, out.Note = StopError, err.Error()
	}
	a.emit(Event{Kind: EventRunFinished, Session: s.ID(), Outcome: out, Duration: time.Since(start)})
	return out, err
}

func (a *Agent) run(ctx context.Context, s Session, task string, out *Outcome) error {
	if err := s.Begin(ctx, task); err != nil {
		return fmt.Errorf("begin round in session %s: %w", s.ID(), err)
	}
	runner := a.runnerFor(s)
	tools := toolDefs(runner.Registry())
	base := Prompt{System: a.cfg.SystemPrompt, Instructions: a.cfg.Instructions, Roles: a.cfg.Roles,
		History: s.History(), Task: task}
	var pc PromptContext
	if p, ok := s.(PromptContext); ok {
		pc = p
	}
	var round []llm.Message
	var history []tool.Invocation
	guard := newLoopGuard(a.cfg.LoopRepeats, a.cfg.LoopWindow)
	for n := 1; ; n++ {
		if n > a.cfg.MaxRounds {
			out.Reason = StopMaxRounds
			out.Note = fmt.Sprintf("stopped after %d rounds, the limit; the task may be unfinished", a.cfg.MaxRounds)
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p := base
		p.Round = round
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
		out.Rounds = n
		out.Usage = out.Usage.Add(resp.Usage)
		resp.Message.Role = llm.RoleAssistant
		if resp.Message.Content != "" {
			out.Text = resp.Message.Content
		}
		if err := s.RecordResponse(ctx, resp); err != nil {
			return fmt.Errorf("record response of round %d: %w", n, err)
		}
		round = append(round, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			out.Reason = StopAnswer
			a.emit(Event{Kind: EventRoundFinished, Round: n, Usage: &resp.Usage})
			return nil
		}
		reqs := make([]tool.Request, len(resp.Message.ToolCalls))
		for i, c := range resp.Message.ToolCalls {
			reqs[i] = tool.Request{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		tmpl := tool.Call{SessionID: s.ID(), Agent: a.cfg.Name, Iteration: n, History: slices.Clone(history), Root: a.cfg.Root}
		results, err := runner.Run(ctx, tmpl, reqs)
		out.ToolCalls += len(results)
		for i, res := range results {
			round = append(round, llm.Message{Role: llm.RoleTool, ToolCallID: reqs[i].ID, ToolName: reqs[i].Name, Content: res.ForModel()})
			history = append(history, tool.Invocation{ID: reqs[i].ID, Tool: reqs[i].Name, Arguments: reqs[i].Arguments, Success: res.Success})
		}
		a.emit(Event{Kind: EventRoundFinished, Round: n, Usage: &resp.Usage})
		if err != nil {
			return fmt.Errorf("tools in round %d: %w", n, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if call, ok := guard.observe(n, reqs, results); ok {
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

// runnerFor returns a runner that records into s.
func (a *Agent) runnerFor(s Session) *tool.Runner {
	var opts tool.RunnerOptions
	if a.cfg.RunnerOptions != nil {
		opts = *a.cfg.RunnerOptions
	}
	opts.Recorder = s
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
