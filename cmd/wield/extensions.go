package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/internal/gitsafe"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tools/env"
	skilltools "github.com/wieldhq/wield/tools/skills"
	"github.com/wieldhq/wield/workspace"
)

// Skills, plugins and environment variables: the commands (wield skills,
// wield plugin), the tools (activate_skill and the other skill tools,
// list_plugins, get_env, request_env) and what a run takes from them (the
// skill listing in the prompt, the grants of active skills, trusted
// plugins' hooks, MCP servers and commands, and secrets kept out of the
// journal and the output).

// userDirs returns the user's wield layout and home directory; either may
// be empty when the system has none.
func userDirs() (workspace.UserLayout, string) {
	user, _ := workspace.User()
	home, _ := os.UserHomeDir()
	return user, home
}

// extState is what one wield process keeps of skills, plugins and
// secrets: the trusted plugins (read and hashed once), the skill catalog
// of the workspace (shared by the prompt's listing and the skill tools,
// so that a skill create_skill writes is found at once), and the secrets
// the user gave request_env.
type extState struct {
	ws      string
	loaded  bool
	plugins []*plugin.Plugin
	catalog *skill.Catalog
	secrets *session.SecretSet
	vars    *env.Vars
	// window is the run's context window in tokens, for the listing's
	// budget; zero means unknown.
	window int
}

// extensions returns the process's extension state for workspace ws,
// made on first use.
func (g *globals) extensions(ws string) *extState {
	if g.ext == nil || g.ext.ws != ws {
		g.ext = &extState{ws: ws, secrets: &session.SecretSet{}, vars: &env.Vars{}}
	}
	return g.ext
}

// trustedPlugins returns the plugins the user enabled whose content still
// has the hash the user trusted. A plugin that changed since is left out
// and warned about: it asks for trust again.
func (g *globals) trustedPlugins() []*plugin.Plugin {
	ws, _ := g.workspace()
	x := g.extensions(ws)
	if !x.loaded {
		x.loaded = true
		x.plugins = wield.TrustedPlugins(g.logger(), func(name string) string { return "wield plugin enable " + name })
	}
	return x.plugins
}

// skillCatalog returns the skills of workspace ws, of the user and of the
// trusted plugins, loaded once a process.
func (g *globals) skillCatalog(ws string) *skill.Catalog {
	x := g.extensions(ws)
	if x.catalog == nil {
		x.catalog = g.newSkillCatalog(ws)
	}
	return x.catalog
}

func (g *globals) newSkillCatalog(ws string) *skill.Catalog {
	return wield.DefaultSkills(ws, g.trustedPlugins())
}

// extensionCommands returns the commands of skills and plugins.
func (g *globals) extensionCommands() []*cobra.Command {
	return []*cobra.Command{newSkillsCommand(g), newPluginCommand(g)}
}

// addPluginServers adds the MCP servers of the trusted plugins to mgr,
// named PLUGIN_SERVER (see [wield.AddPluginServers]).
func (g *globals) addPluginServers(mgr *mcp.Manager) {
	ws, _ := g.workspace()
	wield.AddPluginServers(mgr, g.trustedPlugins(), g.extensions(ws).secrets, g.logger())
}

// listPluginInfo lists the installed plugins for list_plugins.
func listPluginInfo() ([]skilltools.PluginInfo, error) {
	reg, err := wield.PluginRegistry()
	if err != nil {
		return nil, nil
	}
	entries, err := reg.List()
	if err != nil {
		return nil, err
	}
	var out []skilltools.PluginInfo
	for _, e := range entries {
		info := skilltools.PluginInfo{Name: e.Name, Version: e.Version, Enabled: e.Enabled}
		if pl, _ := plugin.Load(reg.PluginDir(e.Name)); pl != nil {
			info.Description = pl.Manifest.Description
			info.Contents = pluginContents(pl)
		}
		if e.Enabled {
			if h, err := plugin.Hash(reg.PluginDir(e.Name)); err != nil || h != e.TrustedHash {
				info.Enabled, info.Changed = false, true
			}
		}
		out = append(out, info)
	}
	return out, nil
}

func pluginContents(pl *plugin.Plugin) []string {
	var out []string
	for _, c := range pl.Commands {
		out = append(out, "command /"+c.Name)
	}
	for _, a := range pl.AgentFiles {
		out = append(out, "agent "+strings.TrimSuffix(filepath.Base(a), ".md"))
	}
	for _, d := range pl.SkillDirs {
		set, _ := skill.Load(skill.Root{Dir: d})
		for _, s := range set.All() {
			out = append(out, "skill "+s.Name)
		}
	}
	for ev, ms := range pl.Hooks {
		out = append(out, fmt.Sprintf("hook %s (%d)", ev, len(ms)))
	}
	for name := range pl.MCPServers {
		out = append(out, "mcp "+name)
	}
	slices.Sort(out)
	return out
}

// listingWindow returns the context window the skill listing is budgeted
// on: --context-window, else the catalogue's window of the model, else
// zero (the minimum budget).
func listingWindow(chosen *modelChoice, flag int) int {
	switch {
	case flag > 0:
		return flag
	case chosen != nil && chosen.Known:
		return chosen.Info.ContextWindow
	}
	return 0
}

// pluginCommands returns the prompt templates of the trusted plugins,
// sorted by name; a chat offers them as /name.
func (g *globals) pluginCommands() []*plugin.Command {
	var out []*plugin.Command
	for _, pl := range g.trustedPlugins() {
		out = append(out, pl.Commands...)
	}
	slices.SortFunc(out, func(a, b *plugin.Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// expandCommand returns task expanded when it is "/name args" and a
// trusted plugin has the command name (or "plugin:name"); any other task
// is returned as it is. ok reports whether it was expanded.
func (g *globals) expandCommand(task string) (string, bool) {
	rest, isSlash := strings.CutPrefix(strings.TrimSpace(task), "/")
	if !isSlash {
		return task, false
	}
	name, args, _ := strings.Cut(rest, " ")
	for _, c := range g.pluginCommands() {
		if c.Name == name || c.Plugin+":"+c.Name == name {
			return c.Expand(args), true
		}
	}
	return task, false
}

// clone fetches a git repository into a new temporary directory, which
// the caller removes. It runs git, which must be installed.
func clone(ctx context.Context, url, ref string) (string, error) {
	dir, err := os.MkdirTemp("", "wield-clone-")
	if err != nil {
		return "", err
	}
	args := []string{"clone", "--depth", "1", "--quiet"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	cmd := exec.CommandContext(ctx, "git", append(args, "--", url, dir)...)
	// No program a repository names runs: hooks, ext:: transports and
	// the rest are turned off (internal/gitsafe).
	env, err := gitsafe.Load(ctx, "git", dir, append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), gitsafe.Options{})
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("git clone %s: %w", url, err)
	}
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("git clone %s: %w: %s", url, err, strings.TrimSpace(string(out)))
	}
	return dir, nil
}

// isGitURL reports whether src names a git repository rather than a
// directory.
func isGitURL(src string) bool {
	if _, err := os.Stat(src); err == nil {
		return false
	}
	return strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "ssh://") ||
		strings.HasPrefix(src, "git@") || strings.HasSuffix(src, ".git")
}

// fetchSource returns a local directory for src (a directory or a git
// URL) and a function that removes what was fetched.
func fetchSource(ctx context.Context, src string) (string, func(), error) {
	if !isGitURL(src) {
		abs, err := filepath.Abs(src)
		if err != nil {
			return "", nil, err
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return "", nil, &exitError{exitUsage, fmt.Errorf("%s is neither a directory nor a git URL", src)}
		}
		return abs, func() {}, nil
	}
	dir, err := clone(ctx, src, "")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// taskWords returns the words of a task, or of a plugin command with its
// arguments (/NAME ARG…), as one task: wield run say hello world is the
// task "say hello world". None means the task comes on standard input.
func taskWords(args []string) []string {
	if len(args) > 1 {
		return []string{strings.Join(args, " ")}
	}
	return args
}
