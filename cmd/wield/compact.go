package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/compact"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
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
			s, err := st.Open(cmd.Context(), args[0])
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
			if err := wield.LoadSettings(pol, ws, g.trusted(ws)); err != nil {
				return &exitError{exitUsage, err}
			}
			wield.CompactionHooks(&cfg, pol.Hooks, ws)
			wield.ReviewCompactions(&cfg, func() *subagent.Set { return g.loadAgents(ws) }, modelFor, g.logger())
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
	rc, err := wield.LoadConfig(wield.Config{Model: model}, ws, os.Getenv, g.trusted(ws))
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
