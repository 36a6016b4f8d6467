package wield

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/compact"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// Definitions reads the agent definitions of workspace ws, of the user
// and of the trusted plugins (after the user's own: a name found twice
// keeps the first), logging every problem worth a look. The workspace's
// definitions run on their parent's model unless it is trusted: a model
// is the user's to choose.
func Definitions(ws string, trusted bool, plugins []*plugin.Plugin, log *slog.Logger) *subagent.Set {
	user, _ := workspace.User()
	home, _ := os.UserHomeDir()
	set, problems := subagent.Load(append(subagent.Dirs(ws, user, home), PluginAgentDirs(plugins)...)...)
	for _, p := range problems {
		if p.Severity >= subagent.Warning {
			log.Warn("agent definition", "problem", p.Error())
		}
	}
	if !trusted {
		for _, name := range set.Names() {
			if d, _ := set.Get(name); d.Scope == subagent.ScopeWorkspace {
				d.Model = ""
			}
		}
	}
	return set
}

// PluginAgentDirs returns the directories of plugins' agent definitions.
// A plugin agent cannot set hooks or a permission mode: no agent can
// (package subagent ignores both), and plugin.Load warns about them.
func PluginAgentDirs(plugins []*plugin.Plugin) []subagent.Dir {
	var dirs []subagent.Dir
	for _, pl := range plugins {
		for _, f := range pl.AgentFiles {
			d := subagent.Dir{Path: filepath.Dir(f), Scope: subagent.ScopeUser}
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// addSubagents registers the agent tool in reg, built with cfg, unless
// the policy keeps it from the model. Children run on the parent's
// provider; a definition's own model is used when modelFor resolves it,
// else the parent's, with a warning.
func addSubagents(reg *tool.Registry, pol *policy.Policy, cfg subagent.Config, modelFor func(string) (llm.Provider, string, error), log *slog.Logger) error {
	cfg.Tools, cfg.Logger = reg, log
	if modelFor != nil {
		var warned sync.Map
		parent, parentModel := cfg.Provider, cfg.Model
		cfg.ProviderFor = func(model string) (llm.Provider, string, error) {
			p, name, err := modelFor(model)
			if err != nil {
				if _, done := warned.LoadOrStore(model, true); !done {
					log.Warn("a subagent's model is not available; it runs on the parent's", "model", model, "err", err)
				}
				return parent, parentModel, nil
			}
			return p, name, nil
		}
	}
	if cfg.MaxParallel < 0 {
		return &OptionError{"Subagents.MaxParallel", fmt.Errorf("%d: give a positive number", cfg.MaxParallel)}
	}
	r, err := subagent.New(cfg)
	if err != nil {
		return &OptionError{"Subagents.MaxDepth", err}
	}
	if !pol.Offered(r.Tool()) {
		return nil
	}
	return reg.Register(r.Tool())
}

// An OptionError reports an [Options] field whose value cannot be used.
type OptionError struct {
	// Field names the field, as "Subagents.MaxDepth".
	Field string
	Err   error
}

func (e *OptionError) Error() string { return "wield: Options." + e.Field + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *OptionError) Unwrap() error { return e.Err }

// compactionSetup is what [compaction] configures a session's compaction
// from.
type compactionSetup struct {
	ws                string
	trusted           bool
	plugins           []*plugin.Plugin
	store             *session.Store
	provider          llm.Provider
	model             string
	window, maxOutput int
	hooks             *policy.Hooks
	modelFor          func(string) (llm.Provider, string, error)
	tools             func(name string) (tool.Spec, bool)
	log               *slog.Logger
}

// compaction returns how a session is compacted: the configuration an
// on-demand compaction uses, and the compactor the loop uses between
// rounds, nil when the window is unknown (then runs do not compact by
// themselves). Summaries are reviewed by the compaction-reviewer agent.
func compaction(s compactionSetup) (compact.Config, agent.Compactor, error) {
	cfg := compact.Config{Store: s.store, Provider: s.provider, Model: s.model, Tools: s.tools, Logger: s.log}
	CompactionHooks(&cfg, s.hooks, "")
	ReviewCompactions(&cfg, func() *subagent.Set { return Definitions(s.ws, s.trusted, s.plugins, s.log) }, s.modelFor, s.log)
	if s.maxOutput < s.window {
		cfg.Window, cfg.MaxOutput = s.window, s.maxOutput
	}
	if cfg.Window <= 0 {
		return cfg, nil, nil
	}
	c, err := compact.New(cfg)
	if err != nil {
		return cfg, nil, err
	}
	return cfg, c, nil
}

// ReviewerAgent is the name of the agent that reviews compactions: a
// definition file of this name (.wield/agents/compaction-reviewer.md)
// sets its model or prompt.
const ReviewerAgent = "compaction-reviewer"

// compactionReviewer is the built-in reviewer: no tools, the checklist,
// and a verdict as data.
func compactionReviewer() *subagent.Definition {
	return &subagent.Definition{
		Name:        ReviewerAgent,
		Description: "Reviews a summary before it replaces turns of a session.",
		Tools:       []string{},
		MaxTurns:    2,
		Output:      json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"missing":{"type":"array","items":{"type":"string"}}},"required":["approved","missing"]}`),
		Prompt: compact.ReviewChecklist + `

When you have checked, call complete_task once: status "done", result a one-line verdict, and data {"approved": true or false, "missing": ["what is missing or wrong, one item each"]}.`,
		Scope: subagent.ScopeBuiltin,
	}
}

// ReviewCompactions makes cfg's reviews go to the [ReviewerAgent], a
// child session of the session compacted, on cfg's model unless a
// definition names another (resolved by modelFor; nil means cfg's model
// always). defs, which reads the definitions, is called when the first
// summary is reviewed, not at every start. Without a provider or a store
// in cfg, reviews stay as they are.
func ReviewCompactions(cfg *compact.Config, defs func() *subagent.Set, modelFor func(string) (llm.Provider, string, error), log *slog.Logger) {
	if cfg.Provider == nil || cfg.Store == nil {
		return
	}
	provider, model, store := cmp.Or(cfg.Reviewer, cfg.Provider), cmp.Or(cfg.ReviewerModel, cfg.Model), cfg.Store
	runner := sync.OnceValues(func() (*subagent.Runner, error) {
		none, err := tool.NewRegistry()
		if err != nil {
			return nil, err
		}
		return subagent.New(subagent.Config{Definitions: defs(), Internal: []*subagent.Definition{compactionReviewer()},
			Provider: provider, Model: model, ProviderFor: modelFor, Tools: none, Store: store, Logger: log})
	})
	cfg.Review = func(ctx context.Context, id, material string) (string, string, error) {
		r, err := runner()
		if err != nil {
			return "", ReviewerAgent, err
		}
		rep, err := r.Ask(ctx, id, ReviewerAgent, material)
		if err != nil {
			return "", ReviewerAgent, err
		}
		who := ReviewerAgent + " (session " + rep.Session + ")"
		if len(rep.Data) > 0 {
			return string(rep.Data), who, nil
		}
		return rep.Result, who, nil // a partial report: its text may hold the verdict
	}
}

// CompactionHooks makes the PreCompact and PostCompact hooks of h (nil
// for none) cfg's Before and After; ws, if set, is where they run.
func CompactionHooks(cfg *compact.Config, h *policy.Hooks, ws string) {
	if h == nil {
		return
	}
	if ws != "" {
		h.Dir = ws
	}
	cfg.Before = func(ctx context.Context, id string, req compact.Request) (string, error) {
		return h.PreCompact(ctx, policy.CompactEvent{SessionID: id, Trigger: req.Trigger, CustomInstructions: req.Focus})
	}
	cfg.After = func(ctx context.Context, id string, x *session.Compaction) {
		h.PostCompact(ctx, policy.CompactEvent{SessionID: id, Trigger: x.Trigger, CustomInstructions: x.Focus, Kind: x.Kind,
			Range: x.Range[:], TokensBefore: x.TokensBefore, TokensAfter: x.TokensAfter, Summary: x.Summary})
	}
}
