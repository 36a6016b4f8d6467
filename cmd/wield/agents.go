package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/catalog"
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
	return wield.Definitions(ws, g.trusted(ws), g.trustedPlugins(), g.logger())
}

// modelResolver returns what resolves a definition's model as --model
// would, from the same configuration.
func (g *globals) modelResolver(cfg wield.Config, flagURL string, cat *catalog.Catalog) func(string) (llm.Provider, string, error) {
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
			set, problems := subagent.Load(append(subagent.Dirs(ws, user, home), wield.PluginAgentDirs(g.trustedPlugins())...)...) // plugins: see extensions.go
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
