package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/plugin"
	skilltools "github.com/wieldhq/wield/tools/skills"
)

// wield plugin: see extensions.go for what a run takes from plugins.

func newPluginCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "install, list, enable, disable and remove plugins",
		Long: `Plugins come in Claude Code's layout: a folder with .claude-plugin/plugin.json
(or .wield-plugin/plugin.json) and commands/, agents/, skills/, hooks/hooks.json
and .mcp.json. They are installed into wield's configuration directory, for
every workspace of the user.

A plugin does nothing until you enable it: its hooks and MCP servers run
programs, and its commands and skills steer the model. Enable shows what the
plugin holds and records a hash of its content; when any file changes (an
update, or a plugin editing itself), it is not loaded until you enable it
again. Plugin agents cannot set hooks or a permission mode.

Commands become prompt templates: wield run /NAME ARGS (or /PLUGIN:NAME ARGS).

Examples:

  wield plugin add ./lint-helper
  wield plugin add https://github.com/example/marketplace.git --plugin lint-helper
  wield plugin ls --json
  wield plugin enable lint-helper
  wield run /review ./pkg
  wield plugin disable lint-helper
  wield plugin rm lint-helper

See also: wield skills, wield mcp.`,
	}
	cmd.AddCommand(newPluginAdd(g), newPluginLs(g), newPluginRm(g), newPluginEnable(g), newPluginDisable(g))
	return cmd
}

func newPluginAdd(g *globals) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "add DIR|GIT-URL",
		Short: "install a plugin, or one of a marketplace's, without enabling it",
		Long: `Add copies a plugin into wield's plugins and shows what it holds; nothing of it
runs until you enable it. DIR or GIT-URL is a plugin, or a marketplace (a
marketplace.json listing plugins in its folders or in git repositories): then
--plugin names the one to install, unless it lists only one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := wield.PluginRegistry()
			if err != nil {
				return err
			}
			src, cleanup, err := fetchSource(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			dir, source := src, args[0]
			if plugin.ManifestPath(src) == "" {
				m, err := plugin.ReadMarketplace(src)
				if err != nil {
					return &exitError{exitUsage, fmt.Errorf("%s is not a plugin (no .claude-plugin/plugin.json) nor a marketplace", args[0])}
				}
				if name == "" && len(m.Plugins) == 1 {
					name = m.Plugins[0].Name
				}
				mp, ok := m.Get(name)
				if !ok {
					var names []string
					for _, p := range m.Plugins {
						names = append(names, p.Name)
					}
					return &exitError{exitUsage, fmt.Errorf("marketplace %s lists %s; choose one with --plugin", m.Name, strings.Join(names, ", "))}
				}
				if mp.Source.Git != "" {
					d, err := clone(cmd.Context(), mp.Source.Git, mp.Source.Ref)
					if err != nil {
						return err
					}
					defer os.RemoveAll(d)
					dir, source = d, mp.Source.Git
				} else {
					dir = filepath.Join(src, filepath.FromSlash(mp.Source.Path))
					source = args[0] + " (" + mp.Name + ")"
				}
			}
			pl, problems, err := reg.Add(dir, source)
			for _, p := range problems {
				fmt.Fprintln(g.stderr, p.Error())
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "installed %s", pl.Summary())
			fmt.Fprintf(g.stdout, "not enabled: review it, then run wield plugin enable %s\n", pl.Name())
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "plugin", "", "the marketplace's plugin to install")
	return cmd
}

func newPluginLs(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "list the installed plugins",
		Long: `Ls lists the installed plugins with their state: enabled, disabled, or changed
(trusted once, but its content changed since: enable it again to use it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			infos, err := listPluginInfo()
			if err != nil {
				return err
			}
			if asJSON {
				if infos == nil {
					infos = []skilltools.PluginInfo{}
				}
				return writeJSON(g, map[string]any{"plugins": infos})
			}
			var rows [][]string
			for _, p := range infos {
				state := "disabled"
				switch {
				case p.Changed:
					state = "changed"
				case p.Enabled:
					state = "enabled"
				}
				rows = append(rows, []string{p.Name, p.Version, state, oneLine(p.Description, 60)})
			}
			return writeTable(g, "No plugins. Install one with: wield plugin add DIR", []string{"NAME", "VERSION", "STATE", "DESCRIPTION"}, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newPluginRm(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "uninstall a plugin",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := wield.PluginRegistry()
			if err != nil {
				return err
			}
			if err := reg.Remove(args[0]); err != nil {
				if errors.Is(err, plugin.ErrNotInstalled) {
					return &exitError{exitUsage, err}
				}
				return err
			}
			fmt.Fprintf(g.stdout, "removed %s\n", args[0])
			return nil
		},
	}
}

func newPluginEnable(g *globals) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "enable NAME",
		Short: "show what a plugin holds and trust it as it is now",
		Long: `Enable shows the plugin's commands, agents, skills, hooks (with the commands
they run) and MCP servers (with what they run or reach), asks for your
confirmation, and records a hash of the plugin's content. The --yes flag
confirms without asking, for scripts: use it only for plugins you reviewed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := wield.PluginRegistry()
			if err != nil {
				return err
			}
			dir := reg.PluginDir(args[0])
			pl, problems := plugin.Load(dir)
			if pl == nil {
				for _, p := range problems {
					fmt.Fprintln(g.stderr, p.Error())
				}
				return &exitError{exitUsage, fmt.Errorf("plugin %s is not installed or does not load; see wield plugin ls", args[0])}
			}
			hash, err := plugin.Hash(dir)
			if err != nil {
				return err
			}
			fmt.Fprint(g.stdout, pl.Summary())
			for _, p := range problems {
				if p.Severity >= plugin.Warning {
					fmt.Fprintln(g.stdout, "  "+p.Error())
				}
			}
			fmt.Fprintf(g.stdout, "content %s\n", hash)
			if !yes {
				if !isTerminal(g.stderr) {
					return &exitError{exitUsage, errors.New("enabling a plugin needs your confirmation: run it on a terminal, or pass --yes")}
				}
				tty, err := os.Open("/dev/tty")
				if err != nil {
					return &exitError{exitUsage, fmt.Errorf("enabling a plugin needs your confirmation, and the terminal cannot be read (%v): pass --yes", err)}
				}
				defer tty.Close()
				fmt.Fprintf(g.stderr, "Trust %s and let its hooks and MCP servers run? [y/N] ", pl.Name())
				line, _ := bufio.NewReader(tty).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					fmt.Fprintln(g.stdout, "not enabled")
					return nil
				}
			}
			if err := reg.Enable(pl.Name(), hash); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "enabled %s\n", pl.Name())
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm without asking")
	return cmd
}

func newPluginDisable(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "disable NAME",
		Short: "stop using a plugin and forget the trust",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := wield.PluginRegistry()
			if err != nil {
				return err
			}
			if err := reg.Disable(args[0]); err != nil {
				if errors.Is(err, plugin.ErrNotInstalled) {
					return &exitError{exitUsage, err}
				}
				return err
			}
			fmt.Fprintf(g.stdout, "disabled %s\n", args[0])
			return nil
		},
	}
}
