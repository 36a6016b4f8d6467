package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/sandbox/egress"
	"github.com/wieldhq/wield/tools/askmodel"
	"github.com/wieldhq/wield/tools/code"
	"github.com/wieldhq/wield/tools/shell"
)

// codeState is what code execution and the second-model tool keep for
// one wield process: the flags and the sandbox (made on first use, as
// probing for it starts bwrap and takes tens of milliseconds), whose
// egress proxy close stops.
type codeState struct {
	sandbox  bool     // --sandbox: shell commands run in the sandbox
	network  bool     // --sandbox-network
	hosts    []string // --sandbox-host: the egress proxy's allow list
	askModel string   // --ask-model

	// allow is the allow list the sandbox is made with, hide and show
	// the paths it hides and shows besides its defaults: the flags' and
	// the config files', set by codeSettings before first use.
	allow      []string
	hide, show []string
	once       sync.Once
	sb         *sandbox.Sandbox
	proxy      *egress.Proxy // nil without an allow list
	sbErr      error
}

// register adds the flags, which every command that builds tools heeds.
func (s *codeState) register(fl *pflag.FlagSet) {
	fl.BoolVar(&s.sandbox, "sandbox", false, `run shell commands in the sandbox (read-only system, writes only to the workspace and a scratch TMPDIR, no network); refuse to start when this machine has none (see wield doctor); also "sandbox": true in the config files`)
	fl.BoolVar(&s.network, "sandbox-network", false, `allow sandboxed shell commands and run_code the network; also "sandbox_network": true in the config files`)
	fl.StringArrayVar(&s.hosts, "sandbox-host", nil, "let sandboxed shell commands and run_code reach this `host` (or *.domain, or host:port) through wield's proxy, and nothing else (repeatable); also \"sandbox\": {\"network\": [...]} in the config files")
	fl.StringVar(&s.askModel, "ask-model", "", "the `provider:model` ask_model asks by default (default: $WIELD_ASK_MODEL, \"ask_model\" in the config files, else the run's model)")
}

// sandboxed returns the sandbox, made on first use; its error names what
// to install.
func (s *codeState) sandboxed(ctx context.Context) (*sandbox.Sandbox, error) {
	s.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		cfg := sandbox.Config{Helper: sandboxHelper(), Hide: s.hide, Show: s.show}
		if len(s.allow) > 0 {
			// Commands that may not use the network reach these hosts,
			// and only these, through the proxy (sandbox/egress).
			p, err := egress.New(ctx, egress.Config{Allow: s.allow})
			if err != nil {
				s.sbErr = fmt.Errorf("sandbox network allow list: %w", err)
				return
			}
			s.proxy = p
			cfg.Proxy = &sandbox.Proxy{Socket: p.Socket(), Addr: p.Addr()}
		}
		s.sb, s.sbErr = sandbox.New(ctx, cfg)
	})
	return s.sb, s.sbErr
}

// sandboxHelper returns the command line that starts the sandbox helper:
// wield-sandbox when it is installed beside the wield executable (it
// starts in a fraction of the time: wield's start initialises every
// package it links, ~100 ms of CPU per sandboxed command against ~30 ms;
// see bench/code.sh), else wield itself, whose main enters the helper.
// /proc/self/exe names the running binary even after go install replaced
// its file.
func sandboxHelper() []string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "wield-sandbox")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return []string{p, sandbox.HelperArg}
		}
	}
	return []string{"/proc/self/exe", sandbox.HelperArg}
}

// Run runs c in the sandbox, making it first: run_code's [code.Runner].
func (s *codeState) Run(ctx context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	sb, err := s.sandboxed(ctx)
	if err != nil {
		return nil, err
	}
	return sb.Run(ctx, c)
}

// close stops the egress proxy.
func (s *codeState) close() error {
	if s.proxy != nil {
		return s.proxy.Close()
	}
	return nil
}

// codeDeps is what a run gives the code tools: the provider factory of
// ask_model and its default model. Zero means they come from the config
// files (wield call, wield mcp).
type codeDeps struct {
	models askmodel.Factory
	model  string
}

// codeDepsFor returns the code tools' dependencies for a run with
// provider and model: ask_model resolves models as --model does
// (modelFor), or, with --replay (modelFor nil), asks the scripted model
// whatever model is named.
func (g *globals) codeDepsFor(provider llm.Provider, model string, modelFor func(string) (llm.Provider, string, error)) codeDeps {
	d := codeDeps{model: model, models: modelFor}
	if modelFor == nil {
		d.models = func(name string) (llm.Provider, string, error) { return provider, name, nil }
	}
	return d
}

// codeSettings reads the settings of the code tools from the config
// files, with the flags and the environment over them.
func (g *globals) codeSettings() (wield.Config, error) {
	ws, err := g.workspace()
	if err != nil {
		return wield.Config{}, err
	}
	flags := wield.Config{AskModel: g.code.askModel, Sandbox: wield.SandboxSetting{On: g.code.sandbox, Network: g.code.hosts}, SandboxNetwork: g.code.network}
	cfg, err := wield.LoadConfig(flags, ws, os.Getenv, g.trusted(ws))
	if err != nil {
		return wield.Config{}, &exitError{exitUsage, err}
	}
	if g.code.sb == nil && g.code.sbErr == nil {
		home, _ := os.UserHomeDir()
		hide, show, err := cfg.Sandbox.Paths(home)
		if err != nil {
			return wield.Config{}, &exitError{exitUsage, err}
		}
		g.code.allow, g.code.hide, g.code.show = cfg.Sandbox.Network, hide, show
	}
	return cfg, nil
}

// shellConfig returns cfg with the sandbox set when --sandbox or the
// config files ask for it, and an error naming what to install when this
// machine cannot give it: shell commands never run unsandboxed when a
// sandbox was asked for.
func (g *globals) shellConfig(cfg shell.Config) (shell.Config, error) {
	settings, err := g.codeSettings()
	if err != nil {
		return cfg, err
	}
	if !settings.Sandbox.On {
		return cfg, nil
	}
	sb, err := g.code.sandboxed(context.Background())
	if err != nil {
		return cfg, &exitError{exitUsage, fmt.Errorf("--sandbox: %w; install what it names (wield doctor shows what this machine offers), or run without --sandbox and without \"sandbox\": true in the config files", err)}
	}
	cfg.Sandbox, cfg.SandboxNetwork = sb, settings.SandboxNetwork
	return cfg, nil
}

// codeCommands returns the commands of code execution and the second-model tool.
func (g *globals) codeCommands() []*cobra.Command { return nil }

// codeConfig sets the configuration of run_code and ask_model in cfg:
// the sandbox (made on first use) and the models ask_model may ask.
func (g *globals) codeConfig(cfg *wield.ToolsConfig, deps toolDeps) {
	settings, err := g.codeSettings()
	if err != nil {
		g.logger().Warn("code tools", "err", err)
	}
	d := deps.code
	if d.models == nil {
		d.models = g.configModels(settings)
		d.model = settings.Model
	}
	if settings.AskModel != "" {
		d.model = settings.AskModel
	}
	cfg.Code = code.Config{Sandbox: &g.code, Network: settings.SandboxNetwork, Hosts: settings.Sandbox.Network}
	cfg.AskModel = askmodel.Config{Models: d.models, Model: d.model}
}

// configModels returns a factory that resolves models as --model does,
// from the config files' settings, for commands that run no model of
// their own.
func (g *globals) configModels(cfg wield.Config) askmodel.Factory {
	return func(model string) (llm.Provider, string, error) {
		cat, err := catalogFor(cfg)
		if err != nil {
			return nil, "", err
		}
		return g.modelResolver(cfg, "", cat)(cmp.Or(model, cfg.Model))
	}
}
