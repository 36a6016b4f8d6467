package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
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

// pluginRegistry returns the user's installed plugins.
func pluginRegistry() (*plugin.Registry, error) {
	user, _ := userDirs()
	if user.Dir == "" {
		return nil, errors.New("plugins: the user has no configuration directory (set XDG_CONFIG_HOME or HOME)")
	}
	return &plugin.Registry{Dir: filepath.Join(user.Dir, "plugins")}, nil
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
		x.plugins = g.loadTrustedPlugins()
	}
	return x.plugins
}

func (g *globals) loadTrustedPlugins() []*plugin.Plugin {
	reg, err := pluginRegistry()
	if err != nil {
		return nil
	}
	plugins, pending, problems, err := reg.Load()
	if err != nil {
		g.logger().Warn("plugins", "err", err)
		return nil
	}
	for _, p := range pending {
		if p.Changed {
			g.logger().Warn("plugin changed since you trusted it; it is not loaded until you enable it again", "plugin", p.Name, "fix", "wield plugin enable "+p.Name)
		}
	}
	for _, p := range problems {
		if p.Severity >= plugin.Warning {
			g.logger().Warn("plugin", "problem", p.Error())
		}
	}
	return plugins
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
	user, home := userDirs()
	roots := skill.Roots(ws, user, home)
	for _, pl := range g.trustedPlugins() {
		for _, d := range pl.SkillDirs {
			roots = append(roots, skill.Root{Dir: d, Scope: skill.ScopePlugin, Plugin: pl.Name()})
		}
	}
	return &skill.Catalog{Roots: roots}
}

// extensionCommands returns the commands of skills and plugins.
func (g *globals) extensionCommands() []*cobra.Command {
	return []*cobra.Command{newSkillsCommand(g), newPluginCommand(g)}
}

// extensionTools returns the skill tools, list_plugins, get_env and
// request_env, built with deps. Secrets the user gives request_env go to
// the process's SecretSet, which a run's session store hides (see
// extendRun). The MCP servers of trusted plugins are added to the MCP
// manager here, before the registry mounts it.
func (g *globals) extensionTools(deps toolDeps) []*tool.Tool {
	ws, _ := g.workspace()
	x := g.extensions(ws)
	cfg := skilltools.Config{Catalog: g.skillCatalog(ws), Sessions: deps.store, Budget: skill.Budget(x.window)}
	if ws != "" {
		cfg.ProjectDir = workspace.Layout{Root: ws}.Skills()
	}
	ts := skilltools.Tools(cfg)
	ts = append(ts, skilltools.ListPlugins(skilltools.PluginListerFunc(listPluginInfo)))
	ecfg := env.Config{Vars: x.vars, Secrets: x.secrets}
	if deps.asker != nil {
		ecfg.Asker = envAsker{deps.asker}
	}
	ts = append(ts, env.Tools(ecfg)...)
	if ws != "" && !g.noMCP {
		mgr := g.mcpManager(ws)
		for _, pl := range g.trustedPlugins() {
			for name, sc := range pl.MCPServers {
				if err := mgr.Add(pl.Name()+"_"+name, sc); err != nil {
					g.logger().Warn("plugin MCP server", "plugin", pl.Name(), "server", name, "err", err)
				}
			}
		}
	}
	return ts
}

// envAsker asks request_env's questions through ask_user's asker: a
// person at the terminal types the value.
type envAsker struct{ a askuser.Asker }

func (e envAsker) AskEnv(ctx context.Context, r env.Request) (env.Answer, error) {
	text := fmt.Sprintf("The agent asks for a value of %s for this session: %s\nType the value, or nothing to decline.", r.Name, r.Reason)
	if r.Secret {
		text += " It is kept secret: the model, the session's journal and the output never show it."
	}
	ans, err := e.a.Ask(ctx, askuser.Question{Text: text})
	if err != nil {
		return env.Answer{}, err
	}
	v := strings.TrimSpace(ans.Text)
	return env.Answer{Value: v, Declined: v == ""}, nil
}

// listPluginInfo lists the installed plugins for list_plugins.
func listPluginInfo() ([]skilltools.PluginInfo, error) {
	reg, err := pluginRegistry()
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

// extendRun prepares a run in workspace ws before its tools are built and
// its session opens: store hides the secrets the user gives request_env;
// the skills active in a session pre-approve calls inside pol (never over
// a deny or ask rule); the hooks of the trusted plugins join pol's; the
// skill listing is budgeted on window tokens (zero: unknown).
func (g *globals) extendRun(ws string, store *session.Store, pol *policy.Policy, window int) {
	x := g.extensions(ws)
	store.Live, x.window = x.secrets, window
	cfg := skilltools.Config{Catalog: g.skillCatalog(ws), Sessions: store}
	pol.Grants = policy.GrantFunc(func(id string) []policy.Rule {
		var rules []policy.Rule
		for _, sk := range cfg.Active(id) {
			for _, t := range sk.AllowedTools {
				r, err := policy.ParseRule(t)
				if err != nil {
					continue
				}
				rules = append(rules, r)
			}
		}
		return rules
	})
	for _, pl := range g.trustedPlugins() {
		for ev, ms := range pl.Hooks {
			for _, m := range ms {
				if pol.Hooks == nil {
					pol.Hooks = &policy.Hooks{Dir: ws, Logger: g.logger()}
				}
				if err := pol.Hooks.AddHook(ev, m); err != nil {
					g.logger().Warn("plugin hook", "plugin", pl.Name(), "event", ev, "err", err)
				}
			}
		}
	}
}

// extendGate returns the gate of a run in workspace ws: pol, with the
// secrets the user gave hidden in every result before the model, the
// journal and the printed events see it.
func (g *globals) extendGate(ws string, pol *policy.Policy) tool.Gate {
	return env.RedactResults(pol, g.extensions(ws).secrets)
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

// skillListing returns the listing of the skills of ws for the system
// prompt, within the budget of the run's context window (see extendRun),
// or the note that points to skill_search when it does not fit. Nil when
// there are no skills.
func (g *globals) skillListing(ws string) []agent.Document {
	cat := g.skillCatalog(ws)
	for _, p := range cat.Problems() {
		if p.Severity >= skill.Warning {
			g.logger().Warn("skill", "problem", p.Error())
		}
	}
	skills := cat.Set().All()
	if len(skills) == 0 {
		return nil
	}
	text, ok := skill.Listing(skills, skill.Budget(g.extensions(ws).window))
	if !ok {
		text = skill.SearchNote(len(skills))
	}
	return []agent.Document{{Path: "skills", Content: text}}
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
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
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

func newSkillsCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "list, show, install and remove skills",
		Long: `Skills are folders holding a SKILL.md: YAML frontmatter (name, description,
and optionally license, compatibility, metadata, allowed-tools) and Markdown
instructions, with optional scripts/, references/ and assets/. wield reads the
skills Claude Code, Codex and gemini-cli read:

  project  .wield/skills, .agents/skills, .claude/skills, .codex/skills and
           .gemini/skills in the workspace and its parents up to the repository root
  user     skills in wield's configuration directory, and ~/.agents/skills,
           ~/.claude/skills, ~/.codex/skills, ~/.gemini/skills
  plugin   skills/ of each enabled plugin

A name found twice keeps the first (project over user over plugin); the
others are reported as shadowed. Only names and descriptions go into the
prompt; the model reads a skill with activate_skill. A skill's allowed-tools
pre-approve calls only where your permission rules do not deny or ask.

Examples:

  wield skills ls
  wield skills ls --json
  wield skills show pdf-forms
  wield skills add ./my-skills/pdf-forms
  wield skills add https://github.com/example/skills.git --scope user
  wield skills rm pdf-forms

See also: wield plugin, wield help run.`,
	}
	cmd.AddCommand(newSkillsLs(g), newSkillsShow(g), newSkillsAdd(g), newSkillsRm(g))
	return cmd
}

// skillJSON is a skill as the --json listings print it.
type skillJSON struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Scope        skill.Scope       `json:"scope"`
	Plugin       string            `json:"plugin,omitempty"`
	Path         string            `json:"path"`
	License      string            `json:"license,omitempty"`
	AllowedTools []string          `json:"allowed_tools,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	ModelHidden  bool              `json:"model_hidden,omitempty"`
	Files        []string          `json:"files,omitempty"`
	Scripts      []string          `json:"scripts,omitempty"`
	Body         string            `json:"body,omitempty"`
}

func toSkillJSON(s *skill.Skill) skillJSON {
	return skillJSON{Name: s.Name, Description: s.Description, Scope: s.Scope, Plugin: s.Plugin, Path: s.Path,
		License: s.License, AllowedTools: s.AllowedTools, Metadata: s.Metadata, ModelHidden: s.ModelHidden}
}

func (g *globals) loadSkills() (*skill.Catalog, string, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, "", err
	}
	return g.skillCatalog(ws), ws, nil
}

func newSkillsLs(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "list the skills",
		Long: `Ls lists the skills wield loads, by name, with their scope and description.
Problems (a broken SKILL.md, a legacy name, a shadowed skill) go to standard
error. The --json flag prints the skills and the problems as JSON.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, _, err := g.loadSkills()
			if err != nil {
				return err
			}
			skills, problems := cat.Set().All(), cat.Problems()
			if asJSON {
				out := struct {
					Skills   []skillJSON `json:"skills"`
					Problems []string    `json:"problems"`
				}{Skills: []skillJSON{}, Problems: []string{}}
				for _, s := range skills {
					out.Skills = append(out.Skills, toSkillJSON(s))
				}
				for _, p := range problems {
					out.Problems = append(out.Problems, p.Error())
				}
				return writeJSON(g, out)
			}
			for _, p := range problems {
				fmt.Fprintln(g.stderr, p.Error())
			}
			var rows [][]string
			for _, s := range skills {
				scope := string(s.Scope)
				if s.Plugin != "" {
					scope += ":" + s.Plugin
				}
				rows = append(rows, []string{s.Name, scope, oneLine(s.Description, 70)})
			}
			return writeTable(g, "No skills. Add one with: wield skills add DIR", []string{"NAME", "SCOPE", "DESCRIPTION"}, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newSkillsShow(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "show a skill: its fields, instructions and files",
		Long: `Show prints a skill's fields, its instructions and its files, scripts marked.
Nothing is run. The --json flag prints the same as JSON.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, _, err := g.loadSkills()
			if err != nil {
				return err
			}
			s, ok := cat.Set().Get(args[0])
			if !ok {
				return &exitError{exitUsage, fmt.Errorf("no skill is named %q; see wield skills ls", args[0])}
			}
			tree, _, err := s.Tree()
			if err != nil {
				return err
			}
			out := toSkillJSON(s)
			out.Files, out.Scripts, out.Body = tree, skill.Scripts(tree), s.Body
			if asJSON {
				return writeJSON(g, out)
			}
			fmt.Fprintf(g.stdout, "%s (%s)\n%s\n\npath: %s\n", s.Name, s.Scope, s.Description, s.Path)
			if s.License != "" {
				fmt.Fprintf(g.stdout, "license: %s\n", s.License)
			}
			if len(s.AllowedTools) > 0 {
				fmt.Fprintf(g.stdout, "allowed-tools: %s\n", strings.Join(s.AllowedTools, " "))
			}
			fmt.Fprintf(g.stdout, "\n%s\n\nfiles:\n", s.Body)
			printFiles(g, tree)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printFiles(g *globals, tree []string) {
	scripts := skill.Scripts(tree)
	for _, f := range tree {
		if slices.Contains(scripts, f) {
			fmt.Fprintf(g.stdout, "  %s  (script; not run)\n", f)
		} else {
			fmt.Fprintf(g.stdout, "  %s\n", f)
		}
	}
}

// skillsDir returns the directory of a scope's skills that wield writes.
func skillsDir(ws, scope string) (string, error) {
	switch scope {
	case "", "project":
		return workspace.Layout{Root: ws}.Skills(), nil
	case "user":
		user, _ := userDirs()
		if user.Dir == "" {
			return "", errors.New("the user has no configuration directory")
		}
		return user.Skills(), nil
	}
	return "", &exitError{exitUsage, fmt.Errorf("--scope %q: use project or user", scope)}
}

// skillSources returns the skill directories under dir: dir itself when
// it holds a SKILL.md, else each subdirectory (of dir or of dir/skills)
// that holds one.
func skillSources(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, skill.FileName)); err == nil {
		return []string{dir}
	}
	var out []string
	for _, base := range []string{dir, filepath.Join(dir, "skills")} {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if _, err := os.Stat(filepath.Join(base, e.Name(), skill.FileName)); err == nil {
					out = append(out, filepath.Join(base, e.Name()))
				}
			}
		}
	}
	return out
}

func newSkillsAdd(g *globals) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "add DIR|GIT-URL",
		Short: "install skills from a directory or a git repository",
		Long: `Add copies a skill into the project's .wield/skills (or, with --scope user,
into the user's skills) and lists what it holds. DIR is a skill (a folder with
a SKILL.md) or a folder of skills; a git URL is cloned first (git must be
installed). Scripts are listed and never run. A skill of the same name is not
overwritten: remove it first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			dest, err := skillsDir(ws, scope)
			if err != nil {
				return err
			}
			src, cleanup, err := fetchSource(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			sources := skillSources(src)
			if len(sources) == 0 {
				return &exitError{exitUsage, fmt.Errorf("%s holds no SKILL.md, nor folders that do", args[0])}
			}
			var errs []error
			for _, s := range sources {
				sk, problems, err := skill.Install(dest, s)
				for _, p := range problems {
					fmt.Fprintf(g.stderr, "%s: %s\n", filepath.Join(s, skill.FileName), p.Error())
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				tree, _, _ := sk.Tree()
				fmt.Fprintf(g.stdout, "installed %s in %s\n", sk.Name, sk.Dir)
				printFiles(g, tree)
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "project", "where to install: project or user")
	return cmd
}

func newSkillsRm(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rm NAME",
		Short: "remove a skill from the project or the user's skills",
		Long: `Rm deletes the folder of the skill wield loads under NAME, in the project or the
user's scope. A plugin's skill is removed with its plugin (wield plugin rm).
A skill it shadowed is used again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, _, err := g.loadSkills()
			if err != nil {
				return err
			}
			s, ok := cat.Set().Get(args[0])
			if !ok {
				return &exitError{exitUsage, fmt.Errorf("no skill is named %q; see wield skills ls", args[0])}
			}
			if s.Scope == skill.ScopePlugin {
				return &exitError{exitUsage, fmt.Errorf("%s comes from plugin %s; remove or disable the plugin instead", s.Name, s.Plugin)}
			}
			if err := os.RemoveAll(s.Dir); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "removed %s (%s)\n", s.Name, s.Dir)
			return nil
		},
	}
	return cmd
}

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
			reg, err := pluginRegistry()
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
			reg, err := pluginRegistry()
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
			reg, err := pluginRegistry()
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
			reg, err := pluginRegistry()
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

// slashArgs accepts one argument (the task), none (the task on standard
// input), or a plugin command with its arguments: /NAME ARG….
func slashArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 1 && !strings.HasPrefix(args[0], "/") {
		return fmt.Errorf("give the task as one argument (quote it), or a plugin command as /NAME ARGS; got %d arguments", len(args))
	}
	return nil
}

// joinSlash returns a plugin command's words as one task.
func joinSlash(args []string) []string {
	if len(args) > 1 {
		return []string{strings.Join(args, " ")}
	}
	return args
}
