package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm/catalog"
)

// newModelsCommand is `wield models`: the catalogue of models and
// providers, with the configuration's additions.
func newModelsCommand(g *globals) *cobra.Command {
	var asJSON, providers bool
	cmd := &cobra.Command{
		Use:   "models [flags] [PROVIDER]",
		Short: "list the models and providers wield knows: windows, prices, keys",
		Long: `Models lists the models in wield's catalogue: for each, its context window,
the most it may write in one reply, its prices in US dollars per million
tokens (input, input read from the prompt cache, input written to it,
output) and what it can do (tools, parallel calls, images, reasoning).
With PROVIDER, only that provider's models.

With --providers it lists the providers instead: the API each speaks, where
it is served, and whether its key is set.

Choose a model with --model provider:model, or by a bare name listed here.
A model not listed works too when its provider is named
(anthropic:claude-next); its cost is then unknown. Add or override models,
prices and providers under "catalog" in .wield/config.json or
~/.config/wield/config.json, in the form --json prints:

  {"catalog": {"models": [{"provider": "ollama", "name": "qwen3-coder",
    "context_window": 262144, "local": true, "capabilities": {"tools": true}}]}}

Examples:
  wield models
  wield models anthropic
  wield models --providers
  wield models --json | jq '.models[] | select(.capabilities.reasoning)'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			cfg, err := wield.LoadConfig(wield.Config{}, ws, os.Getenv, g.trusted(ws))
			if err != nil {
				return &exitError{exitUsage, err}
			}
			cat, err := catalogFor(cfg)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			f := cat.File()
			if len(args) == 1 {
				if _, ok := cat.Provider(args[0]); !ok {
					return &exitError{exitUsage, fmt.Errorf("no provider %q; wield models --providers lists them", args[0])}
				}
				f.Models = filterModels(f.Models, args[0])
				f.Providers = filterProviders(f.Providers, args[0])
			}
			if asJSON {
				return writeJSON(g, f)
			}
			if providers {
				return writeTable(g, "no providers", []string{"PROVIDER", "API", "ENDPOINT", "KEY", "WHAT"}, providerRows(f.Providers))
			}
			return writeTable(g, "no models", []string{"MODEL", "CONTEXT", "MAX OUT", "$IN", "$CACHED", "$CACHE WRITE", "$OUT", "CAN"}, modelRows(f.Models))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalogue as JSON, in the form config files take")
	cmd.Flags().BoolVar(&providers, "providers", false, "list the providers instead of the models")
	return cmd
}

func filterModels(ms []catalog.Model, provider string) []catalog.Model {
	var out []catalog.Model
	for _, m := range ms {
		if m.Provider == provider {
			out = append(out, m)
		}
	}
	return out
}

func filterProviders(ps []catalog.Provider, name string) []catalog.Provider {
	var out []catalog.Provider
	for _, p := range ps {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

func modelRows(ms []catalog.Model) [][]string {
	rows := make([][]string, 0, len(ms))
	for _, m := range ms {
		in, cached, write, out := "?", "?", "-", "?"
		switch {
		case m.Local:
			in, cached, write, out = "local", "", "", ""
		case m.Price != nil:
			in, out = price(m.Price.Input), price(m.Price.Output)
			cached = price(cmpPrice(m.Price.CachedInput, m.Price.Input))
			if m.Price.CacheWrite > 0 {
				write = price(m.Price.CacheWrite)
			}
			if t := m.Price.LongContext; t != nil {
				in += fmt.Sprintf(" (%s above %s)", price(t.Input), tokens(t.Above))
				out += fmt.Sprintf(" (%s)", price(t.Output))
			}
		}
		rows = append(rows, []string{m.Provider + ":" + m.Name, tokens(m.ContextWindow), tokens(m.MaxOutput), in, cached, write, out, capabilities(m.Capabilities)})
	}
	return rows
}

func cmpPrice(p, fallback float64) float64 {
	if p == 0 {
		return fallback
	}
	return p
}

func price(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// tokens writes a token count short: 200k, 1M, 1.05M.
func tokens(n int) string {
	switch {
	case n <= 0:
		return "?"
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'g', 3, 64) + "M"
	case n >= 1000:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

func capabilities(c catalog.Capabilities) string {
	var out []string
	for _, f := range []struct {
		on   bool
		name string
	}{{c.Tools, "tools"}, {c.ParallelCalls, "parallel"}, {c.Images, "images"}, {c.Reasoning, "reasoning"}} {
		if f.on {
			out = append(out, f.name)
		}
	}
	return strings.Join(out, ",")
}

func providerRows(ps []catalog.Provider) [][]string {
	rows := make([][]string, 0, len(ps))
	for _, p := range ps {
		endpoint := p.BaseURL
		if endpoint == "" {
			endpoint = "(the API's own)"
		}
		key := "none needed"
		if len(p.KeyEnv) > 0 {
			key = "missing: set " + strings.Join(p.KeyEnv, " or ")
			for _, v := range p.KeyEnv {
				if os.Getenv(v) != "" {
					key = "set ($" + v + ")"
					break
				}
			}
		}
		rows = append(rows, []string{p.Name, p.API, endpoint, key, p.Doc})
	}
	return rows
}
