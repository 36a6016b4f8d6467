package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/compact"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/env"
)

// runFlags are the flags `wield run` and `wield chat` share.
type runFlags struct {
	cfg       wield.Config
	tools     string
	replay    string
	record    string
	sessionID string
	newSess   bool
	cont      bool   // --continue: the workspace's latest session
	resume    string // --resume: a session id prefix
	json      bool
	mode      string
	context   string
	plan      bool // wield run --plan: see plan.go
	window    int  // --context-window: see compact.go
	agents    agentFlags
	// worker builds the agent of `wield worker`, which opens no session
	// (see worker.go).
	worker bool
	// screen, when set, is wield chat's screen, which asks for
	// approvals and answers instead of the terminal: see chat_ask.go.
	screen *chatScreen
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.cfg.Model, "model", "", "`provider:model` (anthropic:claude-sonnet-4-5, gemini:gemini-2.5-pro, openai:gpt-5, ollama:qwen3) or a name wield models lists (default: $WIELD_MODEL or the config files)")
	fl.StringVar(&f.cfg.BaseURL, "base-url", "", "send the model's requests to this `URL` (a proxy, a gateway, a local server) instead of the provider's")
	fl.IntVar(&f.cfg.MaxRounds, "max-rounds", 0, "stop after `N` model calls (default 10)")
	fl.IntVar(&f.cfg.ExpireToolResults, "expire-results", 0, "in prompts, replace tool results older than `N` tasks with a short note (default 0: keep all; the session keeps them anyway)")
	fl.IntVar(&f.cfg.MaxImages, "max-images", 0, "keep only the newest `N` tool images (screenshots, pictures read) in prompts; older ones become a one-line note (default 3; -1: none)")
	fl.StringVar(&f.tools, "tools", "", "comma-separated `list` of tools to offer (default: all; 'prefix*' matches a family)")
	fl.StringVar(&f.replay, "replay", "", "play the scripted model in this JSON Lines `file` instead of calling one")
	fl.StringVar(&f.record, "record", "", "append every model response to this JSON Lines `file`, a script --replay plays back offline")
	fl.StringVar(&f.sessionID, "session", "", "continue the session with this `id` (with --new: start it)")
	fl.BoolVarP(&f.cont, "continue", "c", false, "continue the workspace's latest session")
	fl.StringVarP(&f.resume, "resume", "r", "", "continue the session whose id starts with `prefix`")
	fl.BoolVar(&f.newSess, "new", false, "start a new session (the default without --session, --continue or --resume)")
	fl.BoolVar(&f.json, "json", false, "print the run's events as JSON lines on stdout (schema: docs/cli.md)")
	fl.StringVar(&f.context, "context", "", "for a new session, how file tools share content: `inline` (in results, the default) or references (re-read fresh at every prompt)")
	fl.StringVar(&f.mode, "mode", "", "permission `mode`: default (read-only tools run, others ask), auto-edit, plan or yolo")
	fl.IntVar(&f.window, "context-window", 0, "compact the session automatically near this many `tokens` (default: the model's window from the catalogue; none with --replay)")
	f.agents.register(fl)
}

// runEnv is what a run needs, built once per command.
type runEnv struct {
	agent   *agent.Agent
	session agent.Session
	// model is the model as "provider:model"; priced says whether the
	// catalogue knows its prices.
	model  string
	priced bool
	// compact is how /compact in chat compacts the session: the run's
	// model, store and window, without a gate (chat adds its own).
	compact compact.Config
	// denied counts the calls denied because nobody could approve them;
	// nil when a person is there to ask.
	denied *headlessApprover
	// logFile is where the run logs, "" for stderr.
	logFile string
	// tools, policy and store are what the run offers, the rules it
	// asks by and its sessions' store, for chat's /tools, /permissions
	// and /sessions.
	tools  *tool.Registry
	policy *policy.Policy
	store  *session.Store
	close  func() error
}

func (g *globals) setupRun(ctx context.Context, f *runFlags, task string, onEvent func(agent.Event)) (*runEnv, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, err
	}
	logFile := g.logToFile(ws)
	// Whether the workspace's own configuration applies is settled before
	// any of it is read: at a terminal the user is asked (see project.go).
	if err := g.resolveTrust(ws, !f.json && !f.worker && (f.screen != nil || isTerminal(g.stderr))); err != nil {
		return nil, err
	}
	for _, r := range wield.UnknownKeys(ws) {
		g.warn("%s", r)
	}
	cfg, err := wield.LoadConfig(f.cfg, ws, os.Getenv, g.trusted(ws))
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	store := g.store(ws)
	// The log hides every secret wield knows from here on (what was
	// built with the logger before logs nothing of a tool's).
	g.log = slog.New(env.RedactLogs(g.logger().Handler(), g.extensions(ws).secrets))
	if err := resolveSession(ctx, store, f); err != nil {
		return nil, err
	}
	var recorded session.Header // the header of the session a run goes on with
	if f.sessionID != "" && !f.newSess && f.replay == "" {
		if h, err := store.Load(ctx, f.sessionID); err == nil {
			recorded = h.Header
		}
		// A session goes on with the model it was recorded with, unless
		// --model names another.
		if f.cfg.Model == "" && recorded.Model != "" && recorded.Model != "replay" {
			cfg.Model = recorded.Model
		}
	}
	var provider llm.Provider
	var modelFor func(string) (llm.Provider, string, error) // a subagent's own model
	modelName, priced := "replay", false
	var chosen *modelChoice // the catalogue's model, for its window
	endpoint := ""          // where requests go, as the session records it
	if f.replay != "" {
		if provider, err = replay.Load(f.replay); err != nil {
			return nil, &exitError{exitUsage, err}
		}
		cfg.Model = cmp.Or(cfg.Model, "replay")
	} else {
		if cfg.Model == "" {
			return nil, &exitError{exitUsage, helpError(noModelHelp)}
		}
		cat, err := catalogFor(cfg)
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		mc, err := chooseModel(cfg, f.cfg.BaseURL, cat, os.Getenv)
		if err != nil {
			if recorded.Endpoint != "" && cfg.Model == recorded.Model {
				err = fmt.Errorf("%w\nsession %s was recorded against %s: pass --base-url %s to go on there", err, recorded.ID, recorded.Endpoint, recorded.Endpoint)
			}
			return nil, &exitError{exitUsage, err}
		}
		endpoint = recordedEndpoint(mc.BaseURL)
		if recorded.Endpoint != "" && recorded.Endpoint != endpoint && cfg.Model == recorded.Model {
			// The endpoint is never taken from a journal, which a
			// repository may bring: the person says where to go on.
			g.warn("session %s was recorded against %s; this run sends %s to %s (pass --base-url %s to go on there)",
				recorded.ID, recorded.Endpoint, mc, cmp.Or(endpoint, "the provider's own endpoint"), recorded.Endpoint)
		}
		g.hideModelKeys(ws, cat, cfg.APIKey, mc.APIKey) // the key in use and the config's providers' keys: see secrets.go
		metered, err := newProvider(mc, g)
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		provider, cfg.Model, modelName, priced = metered, mc.Model, mc.String(), metered.Known()
		g.tracing.provider = mc.Provider.Name // see tracing.go
		chosen = &mc
		modelFor = g.modelResolver(cfg, f.cfg.BaseURL, cat)
	}
	closeRecord := func() error { return nil }
	if f.record != "" {
		rec, err := os.OpenFile(f.record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, &exitError{exitUsage, fmt.Errorf("--record: %w", err)}
		}
		closeRecord = rec.Close
		provider = replay.Record(provider, rec)
	}
	// The policy comes first: whether a person is there to answer
	// decides what ask_user is built with.
	pol, approver, err := g.policy(ws, f.mode, !f.json && !f.worker)
	if err != nil {
		closeRecord()
		return nil, err
	}
	if f.screen != nil { // chat's screen asks: see chat_ask.go
		approver, pol.Headless = g.newApprover(nil, pol, ws), false
	}
	window := listingWindow(chosen, f.window)
	g.extensions(ws).window = window // the skill tools' budget: see extensions.go
	deps := toolDeps{store: store, code: g.codeDepsFor(provider, modelName, modelFor)}
	if approver != nil { // a person is at the terminal
		deps.asker = f.screen.asker(approver)
	}
	reg, err := g.registry(ctx, ws, deps)
	if err != nil {
		closeRecord()
		return nil, err
	}
	var denier *headlessApprover
	var approve tool.Approver
	if approver != nil { // a person is at the terminal
		approve = f.screen.approver(approver)
	} else {
		// Nobody can answer: calls that need approval are denied with a
		// reason the model reads, and counted for the exit code.
		pol.Headless = false
		denier = &headlessApprover{hint: pol.HeadlessHint, rules: g.rulesFile(ws)}
		approve = denier
	}
	x := g.extensions(ws)
	opts := wield.Options{
		Workspace: ws,
		Trusted:   g.trusted(ws),
		Provider:  provider,
		Model:     cfg.Model,
		ModelFor:  modelFor,
		Store:     store,
		Policy:    pol,
		Approver:  approve,
		Tools:     splitList(f.tools, cfg.Tools),
		Registry:  reg,
		ToolsConfig: wield.ToolsConfig{Asker: deps.asker, Memory: g.memoryStore(ws), Skills: g.skillCatalog(ws),
			Env: env.Config{Vars: x.vars, Secrets: x.secrets}},
		Plugins:   g.trustedPlugins(),
		Secrets:   x.secrets,
		Subagents: subagent.Config{MaxParallel: f.agents.maxParallel, MaxDepth: f.agents.depth},
		Loop: agent.Config{
			SystemPrompt:      cfg.SystemPrompt,
			MaxRounds:         cfg.MaxRounds,
			StopAtTools:       planStops(f, approver != nil),
			ExpireToolResults: cfg.ExpireToolResults,
			MaxImages:         cfg.MaxImages,
			OnEvent:           onEvent,
			CompactHint:       "wield chat /compact",
		},
		Logger:    g.logger(),
		Telemetry: g.telemetry(ws), // see tracing.go
	}
	if !g.noMCP {
		opts.MCP = g.mcp
	}
	opts.Window = window
	if f.window == 0 && chosen != nil && chosen.Known {
		opts.MaxOutput = chosen.Info.MaxOutput // compaction leaves room for it
	}
	a, err := wield.New(ctx, opts)
	if err != nil {
		closeRecord()
		var oe *wield.OptionError
		switch {
		case errors.As(err, &oe) && oe.Field == "Subagents.MaxParallel":
			return nil, &exitError{exitUsage, fmt.Errorf("--max-agents %d: give a positive number", f.agents.maxParallel)}
		case errors.As(err, &oe) && oe.Field == "Subagents.MaxDepth":
			return nil, &exitError{exitUsage, fmt.Errorf("--agent-depth: %w", oe.Err)}
		case errors.As(err, &oe):
			return nil, &exitError{exitUsage, err}
		}
		return nil, err
	}
	env := &runEnv{agent: a.Agent, model: modelName, priced: priced, compact: a.Compaction, denied: denier, logFile: logFile,
		tools: a.Tools, policy: pol, store: store}
	// A worker's agent serves many sessions, which its activities open
	// themselves (see worker.go): it opens none here.
	var sess *session.Session
	if !f.worker {
		if sess, err = g.openSession(ctx, store, f, session.Header{Model: modelName, Endpoint: endpoint}, task); err != nil {
			closeRecord()
			a.Close()
			return nil, err
		}
		g.reportOpenChange(sess)                                   // see undo.go
		a.Resume(ctx, sess)                                        // shell jobs and MCP servers left by its last run
		if err := startPlanMode(sess, store, pol, f); err != nil { // see plan.go
			sess.Close()
			a.Close()
			closeRecord()
			return nil, err
		}
		if !f.json && (g.tty || isTerminal(g.stderr)) {
			pal := palette{color: !g.noColor()}
			fmt.Fprintln(g.stderr, pal.dim(fmt.Sprintf("session %s (%s)", sess.ID(), modelName)))
		}
		env.session = sess
	}
	env.close = func() error {
		var err error
		if sess != nil {
			err = sess.Close()
		}
		return errors.Join(err, a.Close(), closeRecord())
	}
	return env, nil
}

// openSession returns the session a run works in: the one named with
// --session, or a new one, which records the model and endpoint of h. It
// is journaled in the workspace's store.
func (g *globals) openSession(ctx context.Context, st *session.Store, f *runFlags, h session.Header, task string) (*session.Session, error) {
	if f.sessionID != "" && !f.newSess {
		s, err := st.Open(ctx, f.sessionID)
		if errors.Is(err, session.ErrNotFound) {
			err = fmt.Errorf("%w; to start a session with this id, add --new", err)
		}
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		return s, nil
	}
	switch f.context {
	case "", session.ContextInline, session.ContextReferences:
	default:
		return nil, &exitError{exitUsage, fmt.Errorf("--context %q: use inline or references", f.context)}
	}
	s, err := st.Create(ctx, session.Header{ID: f.sessionID, Agent: "wield", Model: h.Model, Endpoint: h.Endpoint, Purpose: oneLine(task, 120), ContextMode: f.context})
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	return s, nil
}

func splitList(flag string, fallback []string) []string {
	if flag == "" {
		return fallback
	}
	var out []string
	for p := range strings.SplitSeq(flag, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func newRunCommand(g *globals) *cobra.Command {
	f := &runFlags{}
	d := &durableFlags{}
	cmd := &cobra.Command{
		Use:   "run [flags] TASK...",
		Short: "work a task with a model and tools",
		Long: `Run gives TASK to a model together with wield's tools and works it to the
end: the model calls tools, wield runs them (validated, bounded, in parallel
where safe) and feeds the results back, until the model answers, the round
limit is reached or a loop is detected. TASK is its words (wield run fix the
failing test works; quote what the shell would change, such as * or ?), and is
read from standard input when it is - or absent.

The answer streams to standard output. Standard error shows one line as each
tool call starts (the tool and its path, command, pattern or URL) and one when
it is done (lines read, matches, exit code; why it failed); -v adds the full
arguments and outputs. Without a terminal, or with NO_COLOR set, the output is
plain text. With --json, standard output carries the run's events as JSON
lines instead (schema: docs/cli.md). Log records go to .wield/logs/wield.log
(--debug: to standard error).

At a terminal, calls the permission rules do not allow ask first, showing an
edit as a diff and a shell line command by command, wrapped at the
terminal's width, and wait for an answer, the same as in wield chat: y yes,
n no, e no and say why (the model reads it), a always in this session, p
always in this project (a narrow rule saved in .wield/settings.local.json).
Without a terminal such calls are denied
(the model is told why) and the run ends with exit status 3. Exit statuses:
0 done, 1 failed, 2 usage, 3 denied for want of approval, 130 interrupted.

--continue goes on in the workspace's latest session and --resume in the one
whose id starts with a prefix, with the model it was recorded with unless
--model names another.

The model: flags beat the environment (WIELD_MODEL, OPENAI_BASE_URL,
OPENAI_API_KEY and the providers' key variables), which beats
.wield/config.json in the workspace, which beats ~/.config/wield/config.json;
unknown keys in these files are reported. With --replay FILE a scripted model
(see package llm/replay) plays instead, for demos and tests.

With --plan the model plans before it acts: the session starts in plan mode,
where only read-only tools and read-only shell commands run and only the
session's plan file under .wield/plans/ may be written. At a terminal you
approve the plan (or say what to change) and the run goes on; headless, the
run ends with the plan on standard output, and a later run with --session ID
--mode default carries it out.

See also: wield chat, wield session, wield doctor, docs/cli.md.`,
		Args: cobra.ArbitraryArgs, // the task's words, or /COMMAND ARGS: see extensions.go
		RunE: func(cmd *cobra.Command, args []string) error {
			task, err := readTask(g.stdin, taskWords(args))
			if err != nil {
				return &exitError{exitUsage, err}
			}
			task, _ = g.expandCommand(task) // a plugin's command: see extensions.go
			// Durable, on Temporal: see durable.go.
			if d.addr != "" {
				return g.runDurable(cmd.Context(), f, d, task)
			}
			out := newRunPrinter(g, f.json)
			var plans planCapture
			env, err := g.setupRun(cmd.Context(), f, task, plans.wrap(out.event))
			if err != nil {
				return err
			}
			defer env.close()
			out.model, out.priced = env.model, env.priced
			outcome, err := env.agent.Run(cmd.Context(), env.session, task)
			plans.finish(out, outcome, env.session.ID())
			return g.endRun(cmd.Context(), out, env, outcome, err)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&f.plan, "plan", false, planFlagHelp)
	d.register(cmd.Flags(), "run the task durably, as a workflow on the Temporal frontend at `host:port`, served by wield worker")
	return cmd
}

// endRun turns how a run of wield run ended into its exit status: 130
// when interrupted, 1 when it failed, exitDenied when calls were denied
// for want of approval (each was shown once, in its tool line), else 0.
// It says where the log is when warnings went there.
func (g *globals) endRun(ctx context.Context, out *runPrinter, env *runEnv, o *agent.Outcome, err error) error {
	if n := g.warnings.Load(); n > 0 && env.logFile != "" && !out.json {
		out.note("wield: %s logged to %s", count(int(n), "warning", "warnings"), env.logFile)
	}
	switch {
	case ctx.Err() != nil:
		return &exitError{exitInterrupted, errors.New("interrupted")}
	case err != nil && o != nil && o.Note == err.Error() && !out.json:
		return &exitError{exitToolFailure, nil} // finish printed it
	case err != nil:
		return &exitError{exitToolFailure, err}
	}
	if env.denied != nil {
		if n := env.denied.denied.Load(); n > 0 {
			return &exitError{exitDenied, fmt.Errorf("%s needed approval, which nobody could give here: allow %s with a rule in %s, or run wield at a terminal",
				count(int(n), "call", "calls"), plural(int(n), "it", "them"), cmp.Or(env.denied.rules, ".wield/settings.json"))}
		}
	}
	return nil
}

func readTask(stdin io.Reader, args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
	if err != nil {
		return "", fmt.Errorf("reading the task: %w", err)
	}
	task := strings.TrimSpace(string(b))
	if task == "" {
		return "", errors.New("no task: give it as an argument or on standard input")
	}
	return task, nil
}

// usageLine sums up what a run used: rounds, tokens and, when the model's
// prices are known, the cost. It is empty when no tokens were counted.
func usageLine(o *agent.Outcome, model string, priced bool) string {
	u := o.Usage
	if u.InputTokens+u.OutputTokens == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s, %s tokens in", model, o.Rounds, plural(o.Rounds, "round", "rounds"), thousands(u.InputTokens))
	if u.CachedTokens > 0 || u.CacheWriteTokens > 0 {
		fmt.Fprintf(&b, " (%s cached", thousands(u.CachedTokens))
		if u.CacheWriteTokens > 0 {
			fmt.Fprintf(&b, ", %s written to the cache", thousands(u.CacheWriteTokens))
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", %s out", thousands(u.OutputTokens))
	if priced {
		fmt.Fprintf(&b, ", $%.4f", u.Cost)
	} else {
		b.WriteString(", cost unknown (no prices for this model; see wield models)")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// recordedEndpoint returns base URL u as a session header records it:
// without user information, query or fragment, which may hold a key; ""
// for the provider's own endpoint or a URL that does not parse.
func recordedEndpoint(u string) string {
	p, err := url.Parse(u)
	if u == "" || err != nil {
		return ""
	}
	p.User, p.RawQuery, p.Fragment, p.ForceQuery = nil, "", "", false
	return p.String()
}
