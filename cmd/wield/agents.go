package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// agentFlags are the subagent flags of wield run and wield chat.
type agentFlags struct {
	maxParallel int
	depth       int
}

func (f *agentFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&f.maxParallel, "max-agents", 0, "run at most `N` subagents at once at each depth (default 4)")
	fl.IntVar(&f.depth, "agent-depth", 0, "let subagents nest `N` levels deep, at most 3 (default 1: subagents start none)")
}

// loadAgents reads the agent definitions of workspace ws and the user's,
// reporting every problem worth a look as a warning.
func (g *globals) loadAgents(ws string) *subagent.Set {
	user, _ := workspace.User()
	home, _ := os.UserHomeDir()
	set, problems := subagent.Load(append(subagent.Dirs(ws, user, home), g.pluginAgentDirs()...)...) // plugins: see extensions.go
	for _, p := range problems {
		if p.Severity >= subagent.Warning {
			g.logger().Warn("agent definition", "problem", p.Error())
		}
	}
	if !g.trusted(ws) {
		// The workspace's definitions run on their parent's model: a
		// model is the user's to choose (see project.go).
		for _, name := range set.Names() {
			if d, _ := set.Get(name); d.Scope == subagent.ScopeWorkspace {
				d.Model = ""
			}
		}
	}
	return set
}

// withoutAgentTool takes the agent tool out of a --tools list, which is
// filtered before the agent tool exists, and reports whether the list
// asks for it: when there is no list, or an entry names it.
func withoutAgentTool(list []string) ([]string, bool) {
	if len(list) == 0 {
		return nil, true
	}
	want := false
	rest := slices.DeleteFunc(slices.Clone(list), func(e string) bool {
		if e == subagent.ToolName {
			want = true
			return true
		}
		if p, ok := strings.CutSuffix(e, "*"); ok && strings.HasPrefix(subagent.ToolName, p) {
			want = true
		}
		return false
	})
	return rest, want
}

// filterTools applies a --tools list to reg, agent aside; see
// withoutAgentTool.
func filterTools(reg *tool.Registry, list []string) (*tool.Registry, bool, error) {
	rest, want := withoutAgentTool(list)
	switch {
	case len(list) == 0:
		return reg, true, nil
	case len(rest) == 0: // only agent: no other tool
		return reg.Exclude([]string{"*"}), want, nil
	}
	reg, err := reg.Filter(rest)
	return reg, want, err
}

// addAgents registers the agent tool in reg, built with cfg, unless the
// policy keeps it from the model. Children run on the parent's provider;
// a definition's own model is used when wield can resolve it (modelFor),
// else the parent's, with a warning.
func (g *globals) addAgents(ws string, f *agentFlags, pol *policy.Policy, reg *tool.Registry, cfg subagent.Config,
	modelFor func(model string) (llm.Provider, string, error)) error {
	cfg.Definitions = g.loadAgents(ws)
	cfg.MaxParallel, cfg.MaxDepth, cfg.Tools, cfg.Logger = f.maxParallel, f.depth, reg, g.logger()
	if modelFor != nil {
		var warned sync.Map
		parent, parentModel := cfg.Provider, cfg.Model
		cfg.ProviderFor = func(model string) (llm.Provider, string, error) {
			p, name, err := modelFor(model)
			if err != nil {
				if _, done := warned.LoadOrStore(model, true); !done {
					g.logger().Warn("a subagent's model is not available; it runs on the parent's", "model", model, "err", err)
				}
				return parent, parentModel, nil
			}
			return p, name, nil
		}
	}
	if f.maxParallel < 0 {
		return &exitError{exitUsage, fmt.Errorf("--max-agents %d: give a positive number", f.maxParallel)}
	}
	r, err := subagent.New(cfg)
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("--agent-depth: %w", err)}
	}
	if !pol.Offered(r.Tool()) {
		return nil
	}
	return reg.Register(r.Tool())
}

// modelResolver returns what resolves a definition's model as --model
// would, from the same configuration.
func (g *globals) modelResolver(cfg runConfig, flagURL string, cat *catalog.Catalog) func(string) (llm.Provider, string, error) {
	return func(model string) (llm.Provider, string, error) {
		c := cfg
		c.Model = model
		mc, err := chooseModel(c, flagURL, cat, os.Getenv)
		if err != nil {
			return nil, "", err
		}
		p, err := newProvider(mc, g)
		if err != nil {
			return nil, "", err
		}
		return p, mc.Model, nil
	}
}

func newAgentsCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "list the agent types subagents can be started as",
		Long: `Agents lists the agent definitions wield finds: Markdown files with YAML
frontmatter, as Claude Code and gemini-cli write them, in .wield/agents,
.claude/agents, .gemini/agents and .agents/agents of the workspace, then in
the user's wield configuration directory and ~/.claude/agents,
~/.gemini/agents and ~/.agents/agents. The first definition of a name wins;
the built-in general agent is always there.

For each it shows the name, where it comes from, its tools (all: the
parent's), its model (inherit: the parent's) and its description, then
every problem found in the files.

See also: wield run, wield help run.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			user, _ := workspace.User()
			home, _ := os.UserHomeDir()
			set, problems := subagent.Load(append(subagent.Dirs(ws, user, home), g.pluginAgentDirs()...)...) // plugins: see extensions.go
			if asJSON {
				type agentJSON struct {
					Name            string          `json:"name"`
					Description     string          `json:"description"`
					Tools           []string        `json:"tools"`
					DisallowedTools []string        `json:"disallowed_tools,omitempty"`
					Model           string          `json:"model,omitempty"`
					MaxTurns        int             `json:"max_turns,omitempty"`
					Timeout         string          `json:"timeout,omitempty"`
					Output          json.RawMessage `json:"output,omitempty"`
					Source          string          `json:"source,omitempty"`
					Scope           subagent.Scope  `json:"scope"`
				}
				out := struct {
					Agents   []agentJSON `json:"agents"`
					Problems []string    `json:"problems,omitempty"`
				}{}
				for _, n := range set.Names() {
					d, _ := set.Get(n)
					a := agentJSON{Name: d.Name, Description: d.Description, Tools: d.Tools, DisallowedTools: d.DisallowedTools,
						Model: d.Model, MaxTurns: d.MaxTurns, Output: d.Output, Source: d.Source, Scope: d.Scope}
					if d.Timeout > 0 {
						a.Timeout = d.Timeout.String()
					}
					out.Agents = append(out.Agents, a)
				}
				for _, p := range problems {
					out.Problems = append(out.Problems, p.Error())
				}
				return writeJSON(g, out)
			}
			var rows [][]string
			for _, n := range set.Names() {
				d, _ := set.Get(n)
				tools := "all"
				if d.Tools != nil {
					tools = strings.Join(d.Tools, ",")
					if tools == "" {
						tools = "none"
					}
				}
				if len(d.DisallowedTools) > 0 {
					tools += " -" + strings.Join(d.DisallowedTools, ",-")
				}
				maxTurns := "default"
				if d.MaxTurns > 0 {
					maxTurns = strconv.Itoa(d.MaxTurns)
				}
				source := string(d.Scope)
				if d.Source != "" {
					source = d.Source
					if rel, err := filepath.Rel(ws, d.Source); err == nil && filepath.IsLocal(rel) {
						source = rel
					}
				}
				rows = append(rows, []string{d.Name, source, tools, cmp.Or(d.Model, "inherit"), maxTurns, oneLine(d.Description, 60)})
			}
			if err := writeTable(g, "", []string{"NAME", "SOURCE", "TOOLS", "MODEL", "MAX TURNS", "DESCRIPTION"}, rows); err != nil {
				return err
			}
			for _, p := range problems {
				fmt.Fprintln(g.stderr, p.Error())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
