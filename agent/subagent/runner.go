package subagent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/schema"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Defaults and limits of [Config].
const (
	// DefaultMaxParallel is how many children run at once at each depth.
	DefaultMaxParallel = 4
	// DefaultMaxDepth lets the parent start children, and children none.
	DefaultMaxDepth = 1
	// DepthLimit is the deepest nesting a [Config] may allow.
	DepthLimit = 3
	// DefaultSpawnBudget is how many children one run may start, its
	// children's children included.
	DefaultSpawnBudget = 24
	// DefaultReportLimit caps the bytes of a report the parent reads.
	DefaultReportLimit = 16 << 10
	// DefaultMaxTurns caps a child's model calls when its definition
	// sets no maxTurns (gemini-cli's default).
	DefaultMaxTurns = 30
	// DefaultTimeout caps a child's run when its definition sets no
	// timeout.
	DefaultTimeout = 10 * time.Minute
	// DefaultGraceTimeout bounds the grace round of a child that stopped
	// without reporting.
	DefaultGraceTimeout = time.Minute
)

// Config configures a [Runner]. Provider and Tools are required; a zero
// value in any other field means its documented default. [New] copies it.
type Config struct {
	// Definitions are the agent types the parent may start; nil means
	// only the built-in [General].
	Definitions *Set
	// Internal are agent types the host runs itself through [Runner.Ask]
	// (such as a reviewer of compactions), never offered to a model. A
	// definition of the same name in Definitions replaces one of these,
	// so that a project can set its model or prompt, and is not offered
	// either.
	Internal []*Definition
	// Provider and Model are the parent's model, which children use
	// unless their definition names another.
	Provider llm.Provider
	Model    string
	// ProviderFor returns the provider and the model name to request for
	// a definition's model (as the file wrote it: an id or an alias). Nil
	// means children always run on the parent's model.
	ProviderFor func(model string) (llm.Provider, string, error)
	// Tools are the parent's tools. A child gets those its definition
	// allows and no others (see [Definition.ToolsFrom]); the agent and
	// complete_task tools are the runner's own and never taken from here.
	// The registry is read at each start, so tools registered later reach
	// later children.
	Tools *tool.Registry
	// RunnerOptions are the parent's: children's calls pass its Gate and
	// go to its Approver (tagged with the agent's name). A child cannot
	// pause for approval: a call its approver cannot answer is denied.
	RunnerOptions tool.RunnerOptions
	// Store keeps the children's sessions beside the parent's, in its
	// backend: files, or PostgreSQL, where reports name the child's
	// session but no transcript file. Nil keeps them in memory, and
	// reports then name no transcript.
	Store *session.Store
	// Root is the workspace root given to the children's tools, and where
	// long reports are spilled (.wield/spill); nil means no workspace.
	Root *os.Root
	// Instructions are the project instructions children see, as the
	// parent does.
	Instructions []agent.Document
	// MaxParallel caps the children running at once at each depth; zero
	// means DefaultMaxParallel.
	MaxParallel int
	// MaxDepth is how deep children may nest: 1 lets the parent start
	// children and children none. Zero means DefaultMaxDepth; more than
	// DepthLimit is an error.
	MaxDepth int
	// SpawnBudget caps the children one run of a top-level session starts,
	// descendants included; zero means DefaultSpawnBudget.
	SpawnBudget int
	// ReportLimit caps the bytes of a report the parent reads; the whole
	// report goes to a spill file named in the result. Zero means
	// DefaultReportLimit.
	ReportLimit int
	// MaxTurns and Timeout bound a child whose definition does not; zero
	// means DefaultMaxTurns and DefaultTimeout.
	MaxTurns int
	Timeout  time.Duration
	// GraceTimeout bounds the grace round; zero means DefaultGraceTimeout.
	GraceTimeout time.Duration
	// Telemetry, if set, traces each child's run: an invoke_agent span
	// named for its agent type, a child of the parent's execute_tool span
	// of the agent call. Nil records nothing.
	Telemetry *otel.Telemetry
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// A Runner starts child agents through its agent tool ([Runner.Tool]),
// runs each to completion in a session of its own and returns its report.
// It is safe for concurrent use; one Runner serves a parent and all its
// descendants.
type Runner struct {
	cfg Config

	agentTool  *tool.Tool // offered to the parent and to children that may nest
	agentDeep  *tool.Tool // the same, hidden: children at the depth limit
	complete   map[string]*tool.Tool
	final      map[string]*tool.Tool // complete_task without done, for grace rounds after a cut
	outputs    map[string]*schema.Schema
	sems       []chan struct{} // by the depth of the children they admit, from 1
	maxTimeout time.Duration

	internal map[string]*Definition // Config.Internal, replaced by Definitions of the same name

	mu       sync.Mutex
	children map[string]*child // running children by session id
	spawned  map[string]int    // children started, by run
	seq      map[string]int    // the last child number, by parent session
	asked    int               // the children Ask started
}

// New returns a runner, or an error naming what the config lacks.
func New(cfg Config) (*Runner, error) {
	if cfg.Provider == nil {
		return nil, errors.New("subagent: no model provider configured")
	}
	if cfg.Tools == nil {
		return nil, errors.New("subagent: no tool registry configured")
	}
	if cfg.MaxDepth > DepthLimit || cfg.MaxDepth < 0 {
		return nil, fmt.Errorf("subagent: depth %d is out of range: children nest at most %d levels deep", cfg.MaxDepth, DepthLimit)
	}
	for _, n := range []*int{&cfg.MaxParallel, &cfg.SpawnBudget, &cfg.ReportLimit, &cfg.MaxTurns} {
		if *n < 0 {
			return nil, errors.New("subagent: limits must not be negative")
		}
	}
	if cfg.Definitions == nil {
		cfg.Definitions, _ = Load()
	}
	cfg.MaxParallel = cmp.Or(cfg.MaxParallel, DefaultMaxParallel)
	cfg.MaxDepth = cmp.Or(cfg.MaxDepth, DefaultMaxDepth)
	cfg.SpawnBudget = cmp.Or(cfg.SpawnBudget, DefaultSpawnBudget)
	cfg.ReportLimit = cmp.Or(cfg.ReportLimit, DefaultReportLimit)
	cfg.MaxTurns = cmp.Or(cfg.MaxTurns, DefaultMaxTurns)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.GraceTimeout = cmp.Or(cfg.GraceTimeout, DefaultGraceTimeout)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{cfg: cfg, complete: map[string]*tool.Tool{}, final: map[string]*tool.Tool{}, outputs: map[string]*schema.Schema{},
		children: map[string]*child{}, spawned: map[string]int{}, seq: map[string]int{}, maxTimeout: cfg.Timeout}
	r.internal = map[string]*Definition{}
	defs := make([]*Definition, 0, len(cfg.Internal))
	for _, d := range cfg.Internal {
		if !namePattern.MatchString(d.Name) {
			return nil, fmt.Errorf("subagent: internal agent %q: the name must match %s", d.Name, namePattern)
		}
		if own, ok := cfg.Definitions.Get(d.Name); ok {
			d = own
		} else {
			defs = append(defs, d)
		}
		r.internal[d.Name] = d
	}
	for _, name := range cfg.Definitions.Names() {
		d, _ := cfg.Definitions.Get(name)
		defs = append(defs, d)
	}
	for _, d := range defs {
		name := d.Name
		if d.Output != nil {
			s, err := schema.Compile(d.Output, &schema.CompileOptions{URL: "wield:agent-output.json"})
			if err != nil {
				return nil, fmt.Errorf("subagent: agent %s: output schema: %w", name, err)
			}
			r.outputs[name] = s
		}
		r.complete[name] = r.newCompleteTask(d, true)
		r.final[name] = r.newCompleteTask(d, false)
		r.maxTimeout = max(r.maxTimeout, d.Timeout)
	}
	r.sems = make([]chan struct{}, cfg.MaxDepth+1)
	for i := range r.sems {
		r.sems[i] = make(chan struct{}, cfg.MaxParallel)
	}
	r.agentTool = r.newAgentTool(false)
	r.agentDeep = r.newAgentTool(true)
	return r, nil
}

// Tool returns the agent tool, to register with the parent's tools.
func (r *Runner) Tool() *tool.Tool { return r.agentTool }

// A child is a running child agent.
type child struct {
	id    string
	def   *Definition
	depth int
	// path names the agent and its ancestors below the top level:
	// "reviewer", "general/reviewer".
	path string
	// tools are the child's tools, without complete_task; its own children
	// draw from them.
	tools *tool.Registry
	// run is the key of the top-level run the child belongs to, for the
	// spawn budget.
	run string

	mu     sync.Mutex
	report *Report // set by complete_task
}

// reported returns the report complete_task recorded, if any.
func (ch *child) reported() (*Report, bool) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.report, ch.report != nil
}

// lookup returns the running child whose session is id.
func (r *Runner) lookup(id string) *child {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.children[id]
}

// admit checks the depth limit and the spawn budget for a child of the
// caller (nil for the top level) and counts it. A refusal is a message
// for the calling model.
func (r *Runner) admit(c *tool.Call, caller *child) (depth int, run, refusal string) {
	depth, run = 1, r.runKey(c.SessionID)
	if caller != nil {
		depth, run = caller.depth+1, caller.run
	}
	if depth > r.cfg.MaxDepth {
		return 0, "", fmt.Sprintf("agent depth limit reached: you are a subagent at depth %d of %d and may not start another; do the work yourself with your own tools",
			caller.depth, r.cfg.MaxDepth)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spawned[run] >= r.cfg.SpawnBudget {
		return 0, "", fmt.Sprintf("this run has started %d subagents, its budget; do the rest of the work yourself", r.cfg.SpawnBudget)
	}
	r.spawned[run]++
	return depth, run, ""
}

// runKey names the current run of the top-level session id: the session
// and the number of its closed transactions, so that each task of a
// conversation gets a budget of its own. A session the store does not
// have open is one run for as long as the runner lives.
func (r *Runner) runKey(id string) string {
	if r.cfg.Store != nil {
		if s, ok := r.cfg.Store.Writer(id); ok {
			return id + "#" + strconv.Itoa(len(s.State().Pools))
		}
	}
	return id
}

// acquire takes a place among the children running at depth.
func (r *Runner) acquire(ctx context.Context, depth int) error {
	select {
	case r.sems[depth] <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (r *Runner) release(depth int) { <-r.sems[depth] }

// newSession creates the child's session, linked to the call c that
// starts it. Its id is the parent's with the child's number appended
// ("<parent>.1", "<parent>.1.2" for a grandchild), or a fresh one when
// that would be too long.
func (r *Runner) newSession(ctx context.Context, c *tool.Call, def *Definition, depth int, model, purpose string) (agent.Session, error) {
	id := r.childID(ctx, c.SessionID)
	if r.cfg.Store == nil {
		return agent.NewMemorySession(id), nil
	}
	h := session.Header{ID: id, Agent: def.Name, Model: model, Purpose: purpose,
		Child: &session.ChildOf{Session: c.SessionID, Call: c.ID, Depth: depth, Agent: def.Name}}
	s, err := r.cfg.Store.Create(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("create the session of agent %s: %w", def.Name, err)
	}
	return s, nil
}

// maxIDLen is the longest session id the store accepts.
const maxIDLen = 128

// childID returns the next free child id of parent.
func (r *Runner) childID(ctx context.Context, parent string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		r.seq[parent]++
		id := parent + "." + strconv.Itoa(r.seq[parent])
		switch {
		case parent == "" || len(id) > maxIDLen:
			if r.cfg.Store == nil {
				return "agent-" + strconv.Itoa(r.seq[parent])
			}
			return r.cfg.Store.NewID()
		case r.cfg.Store == nil:
			return id
		}
		// An earlier process may have started children of this session. A
		// store that cannot tell gets the id, and its Create says why.
		if _, err := r.cfg.Store.Stat(ctx, id); err == nil {
			continue
		}
		return id
	}
}

// transcript returns the child's journal file, or "" when it has none: a
// session in memory, or in a store that keeps no files
// ([session.Store.Backend] set), which the parent's tools cannot read
// as a file.
func (r *Runner) transcript(id string) string {
	if r.cfg.Store == nil || r.cfg.Store.Backend != nil {
		return ""
	}
	return r.cfg.Store.Path(id)
}

// model returns the provider and model name a child of def runs on.
func (r *Runner) model(def *Definition) (llm.Provider, string, error) {
	if def.Model == "" || r.cfg.ProviderFor == nil {
		return r.cfg.Provider, r.cfg.Model, nil
	}
	p, name, err := r.cfg.ProviderFor(def.Model)
	if err != nil {
		return nil, "", fmt.Errorf("agent %s: model %s: %w", def.Name, def.Model, err)
	}
	return p, name, nil
}

// parentSession returns the parent's session when this process has it
// open, for the agent_started and agent_finished records.
func (r *Runner) parentSession(id string) (*session.Session, bool) {
	if r.cfg.Store == nil || id == "" {
		return nil, false
	}
	return r.cfg.Store.Writer(id)
}

// oneLine returns s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n]) + "…"
	}
	return s
}
