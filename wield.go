package wield

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/compact"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/env"
	"github.com/wieldhq/wield/tools/shell"
	skilltools "github.com/wieldhq/wield/tools/skills"
)

// Options are what [New] assembles an agent from. Provider or Model is
// required; a zero value in any other field means the default its comment
// gives, which is what the wield command does.
type Options struct {
	// Workspace is the folder the agent works in: the root of the paths
	// its tools accept, where it finds its instructions (AGENTS.md) and
	// keeps its state (.wield/). "" means the workspace of the current
	// directory ([workspace.Find]).
	Workspace string
	// Trusted reports whether the workspace's own configuration applies in
	// full: its settings' allow rules and hooks, its declared tools, its
	// skills' allowed-tools, its agent definitions' models and its git
	// hooks. Untrusted, only what restricts applies (see package trust).
	Trusted bool

	// Provider answers for the model Model names. Nil means the provider
	// [ChooseModel] and [OpenModel] give for Model ("provider:model" or a
	// name the catalogue knows, the key from the provider's variables in
	// the environment).
	Provider llm.Provider
	// Model is the model's name as Provider knows it, or, without a
	// Provider, as the catalogue knows it.
	Model string
	// ModelFor resolves another model by name, for agent definitions that
	// name theirs and for the compaction reviewer. Nil means Provider
	// answers for every name, or, when New chose the provider, that the
	// catalogue resolves them as it did Model.
	ModelFor func(model string) (llm.Provider, string, error)
	// Window is the model's context window in tokens, and MaxOutput its
	// output limit. With a Window the session is compacted automatically
	// near it; zero means it is not (or, when New chose the provider, the
	// catalogue's window), and the skill listing gets the smallest budget.
	Window, MaxOutput int

	// Store keeps the sessions. Nil means the store [OpenStore] chooses
	// ($WIELD_SESSIONS, else .wield/sessions or $WIELD_HOME), which
	// Close closes.
	Store *session.Store
	// Policy decides which calls run, ask or are denied. Nil means the
	// policy of the settings files: the user's, and the workspace's
	// (whole when Trusted, else only what restricts), in the default mode.
	// New adds to it the grants of active skills and the hooks of Plugins.
	Policy *policy.Policy
	// Approver answers the calls the policy asks about. Nil means nobody
	// can: such calls are denied, with the reason in their result.
	Approver tool.Approver
	// Tools names the tools offered: names and "prefix*" patterns, as
	// wield run --tools takes them. Nil means every tool but the opt-in
	// ones (delete_session, register_mcp_server), which only a list that
	// names them offers. ask_user is offered only with ToolsConfig.Asker.
	Tools []string
	// Registry, when set, is the registry the tools are taken from (the
	// wield command builds its own, with its flags). Nil means
	// [NewRegistry] with Toolbox, ToolsConfig, Extra and MCP.
	Registry *tool.Registry
	// Toolbox builds wield's own tools and keeps their shell jobs; nil
	// means one of the agent's own, which Close closes.
	Toolbox *Toolbox
	// ToolsConfig is what wield's own tools are built with; New fills its
	// Workspace, Trusted, Store, Logger and Memory when they are zero.
	ToolsConfig ToolsConfig
	// Extra are the program's own tools, offered beside wield's.
	Extra []*tool.Tool
	// MCP, when set, mounts the tools of its servers and offers the tools
	// that manage them; its servers' tools that the agent registered ask
	// until the user confirms them. Nil means no MCP servers.
	MCP *mcp.Manager
	// Memory holds the notes whose index the system prompt carries; nil
	// means ToolsConfig.Memory, else [DefaultMemory].
	Memory *memory.Store
	// Skills holds the skills listed in the system prompt and offered by
	// the skill tools; nil means ToolsConfig.Skills, else
	// [DefaultSkills] of the workspace and Plugins.
	Skills *skill.Catalog
	// Plugins are the plugins the user trusts: their hooks join the
	// policy's and their agent definitions the workspace's.
	Plugins []*plugin.Plugin
	// Secrets are the secrets to hide from the journal, the events, the
	// tool results and the log; nil means ToolsConfig.Env.Secrets, else
	// Store's own set (Store.Live), else the ones wield knows of
	// ([WorkspaceSecrets]) and the key of the model New opens.
	Secrets *session.SecretSet
	// Subagents configures the agent tool; its Provider, Model, Tools,
	// RunnerOptions, Store, Root, Instructions, Definitions and Telemetry
	// are set by New.
	Subagents subagent.Config
	// Loop is the loop's configuration: name, system prompt, limits,
	// stop tools, events. New sets its Provider, Model, Tools, Root,
	// RunnerOptions (Gate, Approver, Logger), Compactor, Rounds and
	// Telemetry, adds its instructions after Loop.Instructions, and hides
	// Secrets in the events OnEvent receives. A zero Name means "wield".
	Loop agent.Config

	// Getenv reads the environment; nil means [os.Getenv].
	Getenv func(string) string
	// Logger receives what goes wrong without stopping the agent; nil
	// discards it.
	Logger *slog.Logger
	// Telemetry traces runs, model calls and tool calls; nil means none.
	Telemetry *otel.Telemetry
}

// An Agent is the agent [New] assembled, with what it opened. Run its
// loop with [agent.Agent.Run] on a session of Store; Close releases what
// New opened, in the reverse order.
type Agent struct {
	*agent.Agent
	// Tools are the tools offered, Policy the rules calls are judged by,
	// Store the sessions.
	Tools  *tool.Registry
	Policy *policy.Policy
	Store  *session.Store
	// Compaction is how a session is compacted on demand: the agent's
	// model, store and window, without a human gate.
	Compaction compact.Config

	mcp     *mcp.Manager
	vars    *env.Vars
	log     *slog.Logger
	closers []func() error
}

// New assembles an agent from opts: wield's tools and opts.Extra,
// filtered by opts.Tools and the policy; the instructions of the
// workspace, its memory index and skill listing; subagents, compaction
// and undo. What it opens is closed by [Agent.Close], or by New itself
// when it fails.
func New(ctx context.Context, opts Options) (_ *Agent, err error) {
	a := &Agent{log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))}
	defer func() {
		if err != nil {
			err = errors.Join(err, a.Close())
		}
	}()
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ws := opts.Workspace
	if ws == "" {
		if ws, err = workingWorkspace(); err != nil {
			return nil, fmt.Errorf("wield: the workspace: %w", err)
		}
	}
	secrets := cmp.Or(opts.Secrets, opts.ToolsConfig.Env.Secrets)
	if secrets == nil && opts.Store != nil {
		secrets = opts.Store.Live // the store's own set stays the one it hides
	}
	if secrets == nil {
		secrets = &session.SecretSet{}
		AddSecrets(secrets, WorkspaceSecrets(ws), a.log)
		a.log = slog.New(env.RedactLogs(a.log.Handler(), secrets))
	}
	if opts.Provider == nil {
		if opts.Model == "" {
			return nil, &OptionError{"Provider", errors.New("nil, and no Model to choose one by: an agent needs a model")}
		}
		if err := openModel(&opts, getenv, secrets, a.log); err != nil {
			return nil, &OptionError{"Model", err}
		}
	}
	a.Store = opts.Store
	if a.Store == nil {
		var closeStore func() error
		a.Store, closeStore = OpenStore(ws, getenv, a.log)
		a.closers = append(a.closers, closeStore)
	}
	a.Store.Live = secrets
	a.vars = cmp.Or(opts.ToolsConfig.Env.Vars, &env.Vars{})
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, fmt.Errorf("wield: %w", err)
	}
	a.closers = append(a.closers, root.Close)

	pol := opts.Policy
	if pol == nil {
		if pol, err = DefaultPolicy(ws, opts.Trusted, a.log); err != nil {
			return nil, err
		}
	}
	a.Policy = pol
	tc := opts.ToolsConfig
	tc.Workspace = cmp.Or(tc.Workspace, ws)
	tc.Trusted = tc.Trusted || opts.Trusted
	tc.Logger = cmp.Or(tc.Logger, a.log)
	tc.Env.Secrets, tc.Env.Vars = secrets, a.vars
	if tc.Store == nil {
		tc.Store = a.Store
	}
	mem := cmp.Or(opts.Memory, tc.Memory)
	if mem == nil {
		mem = DefaultMemory(ws, getenv, a.log)
	}
	tc.Memory = mem
	skills := cmp.Or(opts.Skills, tc.Skills)
	if skills == nil {
		skills = DefaultSkills(ws, opts.Plugins)
	}
	tc.Skills = skills
	if tc.SkillBudget == 0 {
		tc.SkillBudget = skill.Budget(opts.Window)
	}
	extend(pol, skilltools.Config{Catalog: skills, Sessions: a.Store}, opts.Plugins, ws, opts.Trusted, a.log)

	reg := opts.Registry
	if reg == nil {
		box := opts.Toolbox
		if box == nil {
			box = &Toolbox{}
			a.closers = append(a.closers, box.Close)
		}
		rc := RegistryConfig{Toolbox: box, Tools: tc, Extra: opts.Extra, MCP: opts.MCP,
			Warn: func(msg string, err error) { a.log.Warn(msg, "err", err) }}
		if reg, err = NewRegistry(ctx, rc); err != nil {
			return nil, err
		}
	}
	a.mcp = opts.MCP
	reg, wantAgents, err := SelectTools(reg, opts.Tools, tc.Asker != nil)
	if err != nil {
		return nil, err
	}
	if reg, err = pol.Filter(reg); err != nil {
		return nil, err
	}
	for _, w := range pol.Warnings(reg) {
		a.log.Warn("permission rule", "warning", w)
	}
	a.Tools = reg

	instructions := slices.Clone(opts.Loop.Instructions)
	found, err := agent.FindInstructions(ws)
	if err != nil {
		a.log.Warn("project instructions", "err", err)
	}
	instructions = append(instructions, found...)
	instructions = append(instructions, MemoryIndex(mem, a.log)...)
	instructions = append(instructions, SkillListing(skills, opts.Window, a.log)...)

	var gate tool.Gate = pol
	if opts.MCP != nil {
		gate = mcp.ConfirmGate(opts.MCP, pol)
	}
	runnerOptions := opts.Loop.RunnerOptions
	runnerOptions.Logger = cmp.Or(runnerOptions.Logger, a.log)
	runnerOptions.Gate = env.RedactResults(gate, secrets)
	runnerOptions.Approver = opts.Approver
	if wantAgents {
		sc := opts.Subagents
		sc.Provider, sc.Model, sc.RunnerOptions, sc.Store, sc.Root = opts.Provider, opts.Model, runnerOptions, a.Store, root
		sc.Instructions, sc.Telemetry = instructions, opts.Telemetry
		sc.Definitions = Definitions(ws, opts.Trusted, opts.Plugins, a.log)
		if err := addSubagents(reg, pol, sc, opts.ModelFor, a.log); err != nil {
			return nil, err
		}
	}
	cc, compactor, err := compaction(compactionSetup{ws: ws, trusted: opts.Trusted, plugins: opts.Plugins, store: a.Store,
		provider: opts.Provider, model: opts.Model, window: opts.Window, maxOutput: opts.MaxOutput, hooks: pol.Hooks, modelFor: opts.ModelFor, tools: reg.Spec, log: a.log})
	if err != nil {
		return nil, err
	}
	a.Compaction = cc

	lc := opts.Loop
	lc.Provider, lc.Model, lc.Tools, lc.Root = opts.Provider, opts.Model, reg, root
	lc.RunnerOptions, lc.Instructions, lc.Compactor = runnerOptions, instructions, compactor
	lc.Rounds = UndoTracker(ws, a.Store, getenv, a.log)
	lc.Name = cmp.Or(lc.Name, "wield")
	lc.Logger = cmp.Or(lc.Logger, a.log)
	lc.Telemetry = opts.Telemetry
	lc.OnEvent = redactEvents(lc.OnEvent, secrets)
	if a.Agent, err = agent.New(lc); err != nil {
		return nil, err
	}
	return a, nil
}

// openModel sets opts.Provider to the model opts.Model names, as
// [ChooseModel] and [OpenModel] give it, with the catalogue's window and
// a ModelFor that resolves other names the same way, unless set.
func openModel(opts *Options, getenv func(string) string, secrets *session.SecretSet, log *slog.Logger) error {
	settings := ModelSettings{Getenv: getenv}
	open := func(name string) (llm.Provider, string, error) {
		s := settings
		s.Model = name
		mc, err := ChooseModel(s)
		if err != nil {
			return nil, "", err
		}
		AddSecrets(secrets, ModelKeys(getenv, nil, mc.APIKey), log)
		p, err := OpenModel(mc, log)
		if err != nil {
			return nil, "", err
		}
		if opts.Window == 0 && mc.Known && name == opts.Model {
			opts.Window, opts.MaxOutput = mc.Info.ContextWindow, mc.Info.MaxOutput
		}
		return p, mc.Model, nil
	}
	p, model, err := open(opts.Model)
	if err != nil {
		return err
	}
	if opts.ModelFor == nil {
		opts.ModelFor = open
	}
	opts.Provider, opts.Model = p, model
	return nil
}

// Resume readies session s, which a run of an earlier process may have
// left, for a run of a: what is left of the shell commands s recorded as
// running is killed (their process is gone), and the MCP servers its
// agent registered are mounted again. From here on, servers the agent
// registers join a's tools.
func (a *Agent) Resume(ctx context.Context, s *session.Session) {
	sweepShellJobs(s.State(), a.log)
	if a.mcp == nil {
		return
	}
	a.mcp.Track(a.Tools)
	servers := registered.Servers(s.State())
	if len(servers) == 0 {
		return
	}
	for _, err := range a.mcp.Restore(ctx, servers, a.lookup) {
		a.log.Warn("MCP server the agent registered", "session", s.ID(), "err", err)
	}
}

// lookup finds the values of a registered MCP server's variables when it
// is mounted again: the values the user gave request_env in this
// process, then the environment.
func (a *Agent) lookup(name string) (string, bool) {
	if a.vars != nil {
		if v, _, ok := a.vars.Lookup(name); ok {
			return v, true
		}
	}
	return os.LookupEnv(name)
}

// Close releases what New opened, in the reverse order. The MCP manager,
// the Toolbox and the Store given in [Options] stay open: they are the
// caller's.
func (a *Agent) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

// sweepShellJobs kills what is left of the shell commands that results in
// session st recorded as still running. The session's writer lock is
// held, so the process that ran them is gone; had it stopped them, no
// process would carry their markers any more.
func sweepShellJobs(st *session.State, log *slog.Logger) {
	var markers []string
	for _, turns := range [][]session.Turn{st.Turns, st.Pool} {
		for _, t := range turns {
			if t.Kind != session.TurnToolResponse || t.Tool != "run_shell_command" && t.Tool != "shell_output" {
				continue
			}
			var d shell.RunData
			if json.Unmarshal(t.Data, &d) == nil && d.Running && d.Marker != "" {
				markers = append(markers, d.Marker)
			}
		}
	}
	if n := shell.Sweep(markers); n > 0 {
		log.Warn("killed processes of shell commands left running by the session's last run", "session", st.Header.ID, "processes", n)
	}
}

// redactEvents returns f, with secrets hidden in every tool event first:
// a shell command's streamed output reaches the events before its result
// is redacted. A nil f stays nil.
func redactEvents(f func(agent.Event), secrets *session.SecretSet) func(agent.Event) {
	if f == nil || secrets == nil {
		return f
	}
	return func(e agent.Event) {
		if e.Call != nil {
			c := env.RedactEvent(*e.Call, secrets)
			e.Call = &c
		}
		f(e)
	}
}
