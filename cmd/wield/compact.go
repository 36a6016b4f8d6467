package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/compact"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// newSessionCompactCommand is wield session compact.
func newSessionCompactCommand(g *globals) *cobra.Command {
	var (
		focus, model, replayFile string
		window                   int
		yes, undo, asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "compact ID [--focus TEXT]",
		Short: "compact a session's older turns into a checked summary, or undo the last compaction",
		Long: `Compact shortens what the model reads of a session: the older turns (all
but the newest share) are summarised by the model, with a ledger wield keeps
itself (files written and read, commands and their exit codes, failed calls,
child agents, todos, your messages verbatim), and the summary is checked
before it is recorded: by Go, then by the model as a reviewer, with one repair
round, else the turns are truncated instead. Nothing is deleted: the session
keeps every turn, and the prompt shows the summary in their place.

On a terminal the summary is shown and you are asked before it is recorded;
--yes records it without asking. --undo drops the last compaction again, so
that the prompt is what it was before. Runs compact by themselves near the
model's context window.

See also: wield session show, wield run --session.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			st := g.store(ws)
			s, err := st.Open(args[0])
			if err != nil {
				return &exitError{exitUsage, err}
			}
			defer s.Close()
			if undo {
				c, err := s.Uncompact()
				if err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "undid the %s of turns %d-%d; the prompt shows them again\n", c.Kind, c.Range[0], c.Range[1])
				return nil
			}
			cfg := compact.Config{Store: st, Logger: g.logger()}
			modelFor, err := g.compactModel(&cfg, ws, model, replayFile, window)
			if err != nil {
				return err
			}
			pol := &policy.Policy{Root: ws, Logger: g.logger()}
			if err := g.loadSettings(pol, ws); err != nil {
				return &exitError{exitUsage, err}
			}
			compactHooks(&cfg, pol.Hooks, ws)
			g.useReviewAgent(&cfg, ws, modelFor)
			if !yes && isTerminal(g.stderr) {
				cfg.Confirm = g.confirmCompaction
			}
			c, err := compact.New(cfg)
			if err != nil {
				return err
			}
			x, err := c.Compact(cmd.Context(), s.ID(), compact.Request{Trigger: session.TriggerManual, Focus: focus})
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(x)
			}
			printCompaction(g, s.ID(), x)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&focus, "focus", "", "what the summary should keep in view")
	fl.StringVar(&model, "model", "", "the `provider:model` that summarises and reviews (default: as wield run chooses)")
	fl.StringVar(&replayFile, "replay", "", "summarise and review with the scripted model in this JSON Lines `file`")
	fl.IntVar(&window, "context-window", 0, "the model's context window in `tokens` (default: the catalogue's)")
	fl.BoolVar(&yes, "yes", false, "record the compaction without asking")
	fl.BoolVar(&undo, "undo", false, "drop the last compaction instead")
	fl.BoolVar(&asJSON, "json", false, "print the compaction record as JSON")
	return cmd
}

// compactModel sets cfg's model and window as wield run would choose
// them, or the replay script's, and returns how an agent definition's
// model is resolved (nil: the replay script answers for every model).
func (g *globals) compactModel(cfg *compact.Config, ws, model, replayFile string, window int) (func(string) (llm.Provider, string, error), error) {
	if replayFile != "" {
		p, err := replay.Load(replayFile)
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		cfg.Provider, cfg.Model, cfg.Window = p, "replay", window
		return nil, nil
	}
	rc, err := loadRunConfig(runConfig{Model: model}, ws, os.Getenv, g.trusted(ws))
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	if rc.Model == "" {
		return nil, &exitError{exitUsage, helpError(noModelHelp)}
	}
	cat, err := catalogFor(rc)
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	mc, err := chooseModel(rc, "", cat, os.Getenv)
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	p, err := newProvider(mc, g)
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	var provider llm.Provider = p
	cfg.Provider, cfg.Model = provider, mc.Model
	cfg.Window, cfg.MaxOutput = window, 0
	if window == 0 && mc.Known {
		cfg.Window, cfg.MaxOutput = mc.Info.ContextWindow, mc.Info.MaxOutput
	}
	return g.modelResolver(rc, "", cat), nil
}

// runCompaction returns how a run compacts its session: the
// configuration /compact in chat uses, and the compactor the loop uses
// between rounds, nil when the model's window is unknown (then runs do
// not compact by themselves). window overrides the catalogue's; summaries
// are reviewed by the compaction-reviewer agent, whose model a
// definition file may name (resolved by modelFor).
func (g *globals) runCompaction(ws string, store *session.Store, p llm.Provider, model string, info *modelChoice, window int,
	hooks *policy.Hooks, modelFor func(string) (llm.Provider, string, error)) (compact.Config, agent.Compactor, error) {
	cfg := compact.Config{Store: store, Provider: p, Model: model, Window: window, Logger: g.logger()}
	compactHooks(&cfg, hooks, "")
	g.useReviewAgent(&cfg, ws, modelFor)
	if window == 0 && info != nil && info.Known && info.Info.MaxOutput < info.Info.ContextWindow {
		cfg.Window, cfg.MaxOutput = info.Info.ContextWindow, info.Info.MaxOutput
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

// reviewerAgent is the name of the agent that reviews compactions: a
// definition file of this name (.wield/agents/compaction-reviewer.md)
// sets its model or prompt.
const reviewerAgent = "compaction-reviewer"

// compactionReviewer is the built-in reviewer: no tools, the checklist,
// and a verdict as data.
func compactionReviewer() *subagent.Definition {
	return &subagent.Definition{
		Name:        reviewerAgent,
		Description: "Reviews a summary before it replaces turns of a session.",
		Tools:       []string{},
		MaxTurns:    2,
		Output:      json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"missing":{"type":"array","items":{"type":"string"}}},"required":["approved","missing"]}`),
		Prompt: compact.ReviewChecklist + `

When you have checked, call complete_task once: status "done", result a one-line verdict, and data {"approved": true or false, "missing": ["what is missing or wrong, one item each"]}.`,
		Scope: subagent.ScopeBuiltin,
	}
}

// useReviewAgent makes cfg's reviews go to the compaction-reviewer agent,
// a child session of the session compacted, on cfg's model unless a
// definition file names another (resolved by modelFor; nil means cfg's
// model always). The agent definitions are read when the first summary
// is reviewed, not at every start.
func (g *globals) useReviewAgent(cfg *compact.Config, ws string, modelFor func(string) (llm.Provider, string, error)) {
	if cfg.Provider == nil || cfg.Store == nil {
		return
	}
	provider, model, store := cmp.Or(cfg.Reviewer, cfg.Provider), cmp.Or(cfg.ReviewerModel, cfg.Model), cfg.Store
	runner := sync.OnceValues(func() (*subagent.Runner, error) {
		none, err := tool.NewRegistry()
		if err != nil {
			return nil, err
		}
		return subagent.New(subagent.Config{Definitions: g.loadAgents(ws), Internal: []*subagent.Definition{compactionReviewer()},
			Provider: provider, Model: model, ProviderFor: modelFor, Tools: none, Store: store, Logger: g.logger()})
	})
	cfg.Review = func(ctx context.Context, id, material string) (string, string, error) {
		r, err := runner()
		if err != nil {
			return "", reviewerAgent, err
		}
		rep, err := r.Ask(ctx, id, reviewerAgent, material)
		if err != nil {
			return "", reviewerAgent, err
		}
		who := reviewerAgent + " (session " + rep.Session + ")"
		if len(rep.Data) > 0 {
			return string(rep.Data), who, nil
		}
		return rep.Result, who, nil // a partial report: its text may hold the verdict
	}
}

// compactHooks makes the PreCompact and PostCompact hooks of h (nil for
// none) cfg's Before and After; ws, if set, is where they run.
func compactHooks(cfg *compact.Config, h *policy.Hooks, ws string) {
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

// confirmCompaction is the human gate of wield session compact: it shows
// the summary and asks.
func (g *globals) confirmCompaction(_ context.Context, id string, x *session.Compaction) (bool, error) {
	fmt.Fprintf(g.stderr, "Summary of turns %d-%d of session %s (about %d → %d tokens):\n\n%s\n\n%s\n\n",
		x.Range[0], x.Range[1], id, x.TokensBefore, x.TokensAfter, x.Summary, x.Ledger.Render())
	if v := x.Verdict; v != nil && !v.Approved {
		fmt.Fprintf(g.stderr, "The checks did not approve it (%s); this is a truncation.\n", strings.Join(v.Missing, "; "))
	}
	fmt.Fprint(g.stderr, "Record this compaction? The turns stay in the session either way. [y/N] ")
	line, err := bufio.NewReader(g.stdin).ReadString('\n')
	if err != nil && line == "" {
		return false, nil
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

func printCompaction(g *globals, id string, x *session.Compaction) {
	fmt.Fprintf(g.stdout, "%s of turns %d-%d recorded (about %d → %d tokens)\n", x.Kind, x.Range[0], x.Range[1], x.TokensBefore, x.TokensAfter)
	if v := x.Verdict; v != nil {
		switch {
		case v.Fallback:
			fmt.Fprintf(g.stdout, "the summary was rejected (%s); the turns are truncated instead\n", strings.Join(v.Missing, "; "))
		case v.Reviewer != "":
			fmt.Fprintf(g.stdout, "checked and approved by %s", v.Reviewer)
			if v.Repaired {
				fmt.Fprint(g.stdout, " after one repair round")
			}
			fmt.Fprintln(g.stdout)
		}
	}
	if x.Summary != "" {
		fmt.Fprintf(g.stdout, "\n%s\n", x.Summary)
	}
	fmt.Fprintf(g.stdout, "\nundo with: wield session compact --undo %s\n", id)
}

// compactCommand reports whether a chat line is /compact, and its focus.
func compactCommand(line string) (focus string, ok bool) {
	rest, ok := strings.CutPrefix(line, "/compact")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// chatCompact runs /compact in wield chat. Asked on a terminal, the answer
// is the next line of the chat's input, read through sc; headless, the
// compaction is recorded after its checks.
func (g *globals) chatCompact(ctx context.Context, env *runEnv, focus string, sc *bufio.Scanner, ask bool) {
	cfg := env.compact
	if ask {
		cfg.Confirm = func(_ context.Context, id string, x *session.Compaction) (bool, error) {
			printCompaction(g, id, x)
			fmt.Fprint(g.stderr, "Record this compaction? The turns stay in the session either way. [y/N] ")
			if !sc.Scan() {
				return false, sc.Err()
			}
			a := strings.ToLower(strings.TrimSpace(sc.Text()))
			return a == "y" || a == "yes", nil
		}
	}
	c, err := compact.New(cfg)
	if err == nil {
		var x *session.Compaction
		if x, err = c.Compact(ctx, env.session.ID(), compact.Request{Trigger: session.TriggerManual, Focus: focus}); err == nil {
			fmt.Fprintf(g.stderr, "wield: compacted turns %d-%d (about %d → %d tokens); wield session compact --undo %s takes it back\n",
				x.Range[0], x.Range[1], x.TokensBefore, x.TokensAfter, env.session.ID())
			return
		}
	}
	fmt.Fprintf(g.stderr, "wield: /compact: %v\n", err)
}
