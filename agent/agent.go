package agent

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
)

// Defaults of [Config].
const (
	DefaultMaxRounds   = 10
	DefaultLoopRepeats = 5
	DefaultLoopWindow  = 10
)

// Config configures an [Agent] by value: [New] copies it, and the agent
// builds what it needs (a [tool.Runner] per run) from it. Provider and
// Tools are required; a zero value in any other field means its documented
// default.
type Config struct {
	// Provider is the model.
	Provider llm.Provider
	// Model is passed in each request; empty means the provider's default.
	Model string
	// Tools holds the tools; the model is offered its visible tools. The
	// registry is shared, not copied: tools registered later are offered
	// from the next run on.
	Tools *tool.Registry
	// RunnerOptions configure the [tool.Runner] the agent builds for each
	// run; the zero value means the runner's defaults. The agent sets the
	// session as the runner's Recorder and passes the runner's events on
	// as [Event]s after calling OnEvent; a nil Logger means Config.Logger.
	RunnerOptions tool.RunnerOptions
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
	// MaxImages is the number of tool images (screenshots, image files
	// read) a prompt keeps, the newest; older ones are replaced by a
	// one-line note (see [KeepImages]) while the session keeps them.
	// Zero means DefaultMaxImages; negative keeps none.
	MaxImages int
	// LoopRepeats and LoopWindow define a loop: the same call with the same
	// result LoopRepeats times within LoopWindow rounds. Zero means the
	// defaults, 5 within 10.
	LoopRepeats, LoopWindow int
	// StopAtTools names tools after whose successful call the run stops.
	// A failed call of one (bad arguments, refused) goes back to the model
	// like any other failure, so that it can call it again correctly.
	StopAtTools []string
	// ParentCall, when set, makes this agent a subagent: it is the id of
	// the parent agent's tool call that started it, and every
	// [tool.Call] this agent makes says Subagent and carries it as
	// ParentID.
	ParentCall string
	// MaxTokens and Temperature are passed to the model.
	MaxTokens   int
	Temperature *float64
	// Compactor, if set, is asked between rounds whether to compact the
	// session (package compact implements it); when it reports that the
	// session's prompt view changed, the loop rebuilds the history and
	// the round from the session's History and Pool.
	Compactor Compactor
	// CompactHint, if set, says how a person compacts a session by hand
	// where the agent runs (a program's command); the note of a run
	// stopped because its prompt stayed over the context window after
	// compaction ends with it. Empty names the API,
	// compact.Compactor.Compact.
	CompactHint string
	// Rounds, if set, is told when each transaction of a run (a round of
	// work: a task, or its continuation after approvals) starts and ends;
	// package ledger's Tracker snapshots the workspace there.
	Rounds RoundObserver
	// Telemetry, if set, traces each run (an invoke_agent span with its
	// chat and execute_tool spans) and records its metrics; nil records
	// nothing, at no cost. See package otel.
	Telemetry *otel.Telemetry
	// OnEvent receives the run's events, on the goroutine running the loop
	// or the runner's (serialised).
	OnEvent func(Event)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// OverflowTokens is the input tokens of the usage a [Compactor] is given
// after the model said the prompt is over its context window: more than
// any window holds, so that a compactor judging by usage compacts.
const OverflowTokens = 1 << 30

// A Compactor keeps a session's prompt within the model's context
// window. MaybeCompact is called between rounds with the latest response's
// usage; it reports whether the session's prompt view changed (by it or
// by anyone else since the last call). Its error stops the run: it means
// the session could not be written.
type Compactor interface {
	MaybeCompact(ctx context.Context, sessionID string, usage llm.Usage) (bool, error)
}

// A RoundObserver is told when a run's transaction starts (before the
// session's Begin or the resumption, before any tool runs) and when it
// ends (after the last tool, before the commit, abort or pause). An error
// stops the run: it means the session could not be written.
type RoundObserver interface {
	RoundStarted(ctx context.Context, sessionID string) error
	RoundEnded(ctx context.Context, sessionID string) error
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
	if cfg.Tools == nil {
		return nil, errors.New("agent: no tool registry configured")
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.MaxImages == 0 {
		cfg.MaxImages = DefaultMaxImages
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
	cfg.Instructions = slices.Clone(cfg.Instructions)
	cfg.Roles = slices.Clone(cfg.Roles)
	cfg.StopAtTools = slices.Clone(cfg.StopAtTools)
	return &Agent{cfg: cfg}, nil
}

// StopReason says why a run ended.
type StopReason string

// The reasons a run ends.
const (
	StopAnswer    StopReason = "answer"
	StopMaxRounds StopReason = "max_rounds"
	StopLoop      StopReason = "loop"
	// StopMaxTokens: the model's reply was cut off at its output limit;
	// Text holds what it wrote, which is incomplete.
	StopMaxTokens StopReason = "max_tokens"
	// StopRefusal: the model declined to go on.
	StopRefusal   StopReason = "refusal"
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
	// Usage adds up the tokens of every model call, including those that
	// tools made and reported ([UsageReporter]), such as subagents.
	Usage llm.Usage `json:"usage"`
	// Pending lists the calls that await approval, when Reason is
	// StopApproval.
	Pending []tool.PendingCall `json:"pending,omitempty"`
}

// A UsageReporter is the Data of a tool result whose tool called models
// itself, such as a subagent's report: the loop adds ModelUsage to the
// run's [Outcome.Usage] when the result comes back, so that a run's usage
// includes its children's.
type UsageReporter interface {
	ModelUsage() llm.Usage
}

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent != nil {
		a.cfg.OnEvent(e)
	}
}
