package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/internal/gitsafe"
	"github.com/wieldhq/wield/internal/jsonpos"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/trust"
	"github.com/wieldhq/wield/workspace"
)

// Workspace trust: a folder's own configuration (.wield/settings.json,
// .wield/config.json, .mcp.json, declared tools, skills' grants, agents'
// models) is inert until the user trusts the folder; what only restricts
// always applies. This file lists what that configuration would enable
// (projectManifest), decides once a process whether it applies
// (projectTrust), and asks at a terminal; trust.go is the command.

// trustEnv, set to 1 (or true), trusts the workspace for one run, as
// --trust does: for CI that checked out its own code.
const trustEnv = "WIELD_TRUST"

// trustState is what a process decided about its workspace's
// configuration.
type trustState struct {
	ws       string
	manifest trust.Manifest
	verdict  trust.Verdict
	// trusted reports whether the configuration applies whole; how says
	// why ("recorded", "--trust", …), for doctor.
	trusted bool
	how     string
	// problems are the files that could not be read while listing.
	problems []string
	// err is the trust file's error: nothing is trusted by it.
	err error
	// told is set once the headless line is printed.
	told bool
}

// trustStore returns the user's trust file; its Path is empty when the
// user has no configuration directory (nothing is then trusted by file).
func trustStore() *trust.Store {
	u, err := workspace.User()
	if err != nil {
		return &trust.Store{}
	}
	return &trust.Store{Path: filepath.Join(u.Dir, trust.FileName)}
}

// trustFor returns the trust state of workspace ws, found once a process.
// It does not ask and prints nothing: see [globals.trusted] and
// [globals.resolveTrust].
func (g *globals) trustFor(ws string) *trustState {
	if g.trust != nil && g.trust.ws == ws {
		return g.trust
	}
	st := &trustState{ws: ws}
	g.trust = st
	if ws == "" {
		st.trusted, st.how = true, "no workspace"
		return st
	}
	st.manifest, st.problems = projectManifest(ws)
	switch v := os.Getenv(trustEnv); {
	case g.trustFlag:
		st.trusted, st.how = true, "--trust"
	case v == "1" || strings.EqualFold(v, "true"):
		st.trusted, st.how = true, trustEnv+"="+v
	}
	st.verdict, st.err = trustStore().Check(st.manifest)
	switch st.verdict.Status {
	case trust.Nothing:
		st.trusted = true
		st.how = cmp.Or(st.how, "nothing to trust")
	case trust.Trusted:
		if !st.trusted {
			st.trusted, st.how = true, "trusted"
			if st.verdict.Record != nil && st.verdict.Record.Tree {
				st.how = "trusted with " + st.verdict.Record.Path
			}
		}
	}
	return st
}

// trusted reports whether the configuration of workspace ws applies
// whole. When it does not, the first call says once on stderr what was
// ignored and how to trust it.
func (g *globals) trusted(ws string) bool {
	st := g.trustFor(ws)
	if !st.trusted && !st.told {
		st.told = true
		g.tellUntrusted(st)
	}
	return st.trusted
}

// tellUntrusted prints the one line a run without a person gets about
// configuration it ignored.
func (g *globals) tellUntrusted(st *trustState) {
	if st.err != nil {
		fmt.Fprintf(g.stderr, "wield: %v\n", st.err)
	}
	what := "not trusted"
	if st.verdict.Status == trust.Changed {
		what = "changed since you trusted it"
	}
	fmt.Fprintf(g.stderr, "wield: ignored this folder's configuration (%s): %s; to use it, run wield trust (or --trust for one run, %s=1 in CI)\n",
		what, st.manifest.Summary(), trustEnv)
}

// resolveTrust decides the trust of workspace ws for a run: at a terminal
// (interactive), configuration that needs trust is shown and the user is
// asked; elsewhere it is ignored with one line on stderr.
func (g *globals) resolveTrust(ws string, interactive bool) error {
	st := g.trustFor(ws)
	if st.trusted || st.told {
		return nil
	}
	if !interactive {
		g.trusted(ws)
		return nil
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		g.trusted(ws)
		return nil
	}
	defer tty.Close()
	st.told = true
	pal := palette{color: !g.noColor()}
	fmt.Fprint(g.stderr, trustQuestion(pal, st))
	in := bufio.NewReader(tty)
	for {
		fmt.Fprint(g.stderr, pal.bold("trust this folder? [t/n/q] "))
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return &exitError{exitInterrupted, errors.New("no answer to the trust question")}
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "t", "trust", "y", "yes":
			if err := trustStore().Trust(st.manifest, false, time.Now()); err != nil {
				fmt.Fprintf(g.stderr, "wield: %v; trusted for this run only\n", err)
			} else {
				fmt.Fprintf(g.stderr, "trusted %s; wield trust --revoke %s takes it back\n", st.manifest.Root, st.manifest.Root)
			}
			st.trusted, st.how = true, "trusted"
			return nil
		case "", "n", "no":
			fmt.Fprintln(g.stderr, "continuing without this folder's configuration (wield trust uses it later)")
			return nil
		case "q", "quit":
			return &exitError{exitInterrupted, errors.New("stopped at the trust question")}
		}
		fmt.Fprintln(g.stderr, "answer t (trust), n (continue without it) or q (quit)")
	}
}

// retrust records workspace ws as trusted again after wield itself
// changed its configuration (a rule saved by "always in this project"),
// when the user had trusted it as it was, or it had nothing to trust. It
// returns a note for the user when the change will not apply to later
// runs until the folder is trusted, else "".
func (g *globals) retrust(ws string) string {
	st := g.trustFor(ws)
	v := st.verdict
	switch {
	case v.Status == trust.Trusted && v.Record != nil && v.Record.Tree:
		return ""
	case v.Status == trust.Nothing || v.Status == trust.Trusted && st.err == nil:
		m, _ := projectManifest(ws)
		if err := trustStore().Trust(m, false, time.Now()); err != nil {
			return fmt.Sprintf("%v: later runs use the rule once you run wield trust", err)
		}
		st.manifest = m
		st.verdict, st.err = trustStore().Check(m)
		return ""
	}
	return "this folder is not trusted: later runs use the rule once you run wield trust"
}

// trustQuestion shows what the configuration of st's folder would
// enable, or what changed since the user trusted it.
func trustQuestion(pal palette, st *trustState) string {
	var b strings.Builder
	m := st.manifest
	if st.err != nil {
		fmt.Fprintf(&b, "wield: %v\n", st.err)
	}
	if st.verdict.Status == trust.Changed {
		fmt.Fprintf(&b, "The configuration of %s changed since you trusted it (%s):\n", m.Root, st.verdict.Record.Time.Local().Format("2006-01-02 15:04"))
		for _, it := range st.verdict.Added {
			fmt.Fprintf(&b, "  %s %-24s %s\n", pal.yellow("+"), it.Source, it)
		}
		for _, it := range st.verdict.Removed {
			fmt.Fprintf(&b, "  %s %-24s %s\n", pal.dim("-"), it.Source, it)
		}
	} else {
		fmt.Fprintf(&b, "%s has its own configuration, which can run commands, allow tool\ncalls or choose where your requests and keys go:\n", m.Root)
		for _, it := range m.Sorted() {
			fmt.Fprintf(&b, "  %-26s %s\n", it.Source, it)
		}
	}
	b.WriteString("  [t] trust it: use this configuration now and later, until it changes\n")
	b.WriteString("  [n] continue without it (deny and ask rules still apply)\n")
	b.WriteString("  [q] quit\n")
	return b.String()
}

// projectManifest lists what the configuration of workspace ws would
// enable, with the files it could not read. Its root is ws's real path.
func projectManifest(ws string) (trust.Manifest, []string) {
	root, err := trust.RealPath(ws)
	if err != nil {
		root = ws
	}
	m := trust.Manifest{Root: root}
	var problems []string
	rel := func(p string) string {
		r, err := filepath.Rel(ws, p)
		if err != nil {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(r)
	}
	add := func(items []trust.Item, err error) {
		m.Items = append(m.Items, items...)
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	l := workspace.Layout{Root: ws}
	for _, f := range []string{l.Settings(), wield.LocalSettings(ws)} {
		add(settingsItems(f, rel(f)))
	}
	add(configItems(l.Config(), rel(l.Config())))
	for _, f := range []string{l.SharedMCP(), l.MCP()} {
		add(mcpItems(f, rel(f)))
	}
	add(declaredItems(l.Tools(), rel))
	add(skillItems(ws, rel))
	add(agentItems(ws, rel))
	add(gitHookItems(ws, rel))
	return m, problems
}

// settingsItems lists the allow rules, permissive mode and hooks of the
// settings file path. A file that does not parse gives no items, and its
// error: nothing of it can be used.
func settingsItems(path, source string) ([]trust.Item, error) {
	s, err := policy.ReadSettings(path)
	if err != nil || s == nil {
		return nil, err
	}
	var items []trust.Item
	for _, r := range s.Permissions.Allow {
		items = append(items, trust.Item{Kind: trust.KindAllow, Source: source, Name: r, Text: r, Value: trust.Value(r)})
	}
	if mode := s.Permissions.DefaultMode; s.Restricting().Permissions.DefaultMode != mode {
		items = append(items, trust.Item{Kind: trust.KindMode, Source: source, Name: "defaultMode", Text: mode, Value: trust.Value(mode)})
	}
	for _, event := range slices.Sorted(maps.Keys(s.Hooks)) {
		for i, m := range s.Hooks[event] {
			for j, h := range m.Hooks {
				text := event
				if m.Matcher != "" && m.Matcher != "*" {
					text += " (" + m.Matcher + ")"
				}
				items = append(items, trust.Item{Kind: trust.KindHook, Source: source, Name: fmt.Sprintf("%s[%d].hooks[%d]", event, i, j),
					Text: text + ": " + h.Command, Value: trust.Value(map[string]any{"matcher": m.Matcher, "hook": h})})
			}
		}
	}
	return items, nil
}

// readJSON reads the JSON file path into v: a missing file is (false,
// nil); one that does not decode is an error with its line.
func readJSON(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, jsonpos.Wrap(path, data, err)
	}
	return true, nil
}

// configItems lists the settings of the run configuration file path that
// need trust: every one but those [runConfig.restricting] keeps.
func configItems(path, source string) ([]trust.Item, error) {
	var c runConfig
	if ok, err := readJSON(path, &c); !ok {
		return nil, err
	}
	var items []trust.Item
	item := func(kind, name, text string, v any) {
		items = append(items, trust.Item{Kind: kind, Source: source, Name: name, Text: text, Value: trust.Value(v)})
	}
	if c.BaseURL != "" {
		item(trust.KindEndpoint, "base_url", c.BaseURL+" (base_url: the model's requests and your key go there)", c.BaseURL)
	}
	if c.Model != "" {
		item(trust.KindModel, "model", c.Model, c.Model)
	}
	if c.AskModel != "" {
		item(trust.KindModel, "ask_model", c.AskModel+" (ask_model)", c.AskModel)
	}
	if c.APIKey != "" {
		items = append(items, trust.Item{Kind: trust.KindSetting, Source: source, Name: "api_key", Text: "api_key (a key of its own)", Value: trust.SecretValue(c.APIKey)})
	}
	if len(c.Sandbox.Show) > 0 {
		item(trust.KindSetting, "sandbox.show", "sandbox.show: sandboxed commands read "+strings.Join(c.Sandbox.Show, ", "), c.Sandbox.Show)
	}
	if len(c.Sandbox.Network) > 0 {
		item(trust.KindSetting, "sandbox.network", "sandbox.network: sandboxed commands reach "+strings.Join(c.Sandbox.Network, ", "), c.Sandbox.Network)
	}
	if c.SandboxNetwork {
		item(trust.KindSetting, "sandbox_network", "sandbox_network: sandboxed commands reach the network", true)
	}
	if extra := slices.DeleteFunc(slices.Clone(c.Tools), func(t string) bool { return !slices.Contains(wield.OptIn, t) }); len(extra) > 0 {
		item(trust.KindSetting, "tools", "tools offers "+strings.Join(extra, ", "), c.Tools)
	}
	if c.Catalog != nil {
		for _, p := range c.Catalog.Providers {
			text := p.Name
			if p.BaseURL != "" {
				text += " at " + p.BaseURL
			}
			if len(p.KeyEnv) > 0 {
				text += " with the key in " + strings.Join(p.KeyEnv, " or ")
			}
			items = append(items, trust.Item{Kind: trust.KindProvider, Source: source, Name: "provider " + p.Name, Text: text, Value: trust.Value(p)})
		}
		for _, md := range c.Catalog.Models {
			items = append(items, trust.Item{Kind: trust.KindProvider, Source: source, Name: "model " + md.Provider + ":" + md.Name,
				Text: md.Provider + ":" + md.Name, Value: trust.Value(md)})
		}
	}
	return items, nil
}

// restricting returns what of c applies from a folder the user has not
// trusted: settings that cannot run anything, choose a model or an
// endpoint, or widen what the agent may do. A field added to runConfig
// is left out until it is judged here (TestRunConfigFieldsJudged).
func (c runConfig) restricting() runConfig {
	r := runConfig{
		MaxRounds:         c.MaxRounds,
		SystemPrompt:      c.SystemPrompt,
		ExpireToolResults: c.ExpireToolResults,
		MaxImages:         c.MaxImages,
		Sandbox:           sandboxSetting{On: c.Sandbox.On, Hide: c.Sandbox.Hide},
	}
	if !slices.ContainsFunc(c.Tools, func(t string) bool { return slices.Contains(wield.OptIn, t) }) {
		r.Tools = c.Tools
	}
	return r
}

// mcpItems lists the MCP servers of the file path.
func mcpItems(path, source string) ([]trust.Item, error) {
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if ok, err := readJSON(path, &f); !ok {
		return nil, err
	}
	var items []trust.Item
	for _, name := range slices.Sorted(maps.Keys(f.MCPServers)) {
		var sc mcp.ServerConfig
		if err := json.Unmarshal(f.MCPServers[name], &sc); err != nil {
			items = append(items, trust.Item{Kind: trust.KindServer, Source: source, Name: name, Text: name + " (does not parse)", Value: f.MCPServers[name]})
			continue
		}
		text := name + ": " + strings.Join(append([]string{sc.Command}, sc.Args...), " ")
		if sc.URL != "" {
			text = name + ": " + sc.URL
		}
		if len(sc.Env) > 0 {
			text += " (env " + strings.Join(slices.Sorted(maps.Keys(sc.Env)), ", ") + ")"
		}
		// Values of env and headers may be secrets: the trust file keeps
		// their hashes.
		for k, v := range sc.Env {
			sc.Env[k] = string(trust.SecretValue(v))
		}
		for k, v := range sc.Headers {
			sc.Headers[k] = string(trust.SecretValue(v))
		}
		items = append(items, trust.Item{Kind: trust.KindServer, Source: source, Name: name, Text: text, Value: trust.Value(sc)})
	}
	return items, nil
}

// declaredItems lists the declared tools of the directory dir, as
// tool.LoadDeclaredDir reads them.
func declaredItems(dir string, rel func(string) string) ([]trust.Item, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var items []trust.Item
	var errs []error
	for _, f := range files {
		ds, err := tool.ReadDeclared(f)
		if err != nil {
			errs = append(errs, err)
		}
		for _, d := range ds {
			items = append(items, trust.Item{Kind: trust.KindTool, Source: rel(f), Name: d.Name,
				Text: d.Name + ": " + strings.Join(d.Command, " "), Value: trust.Value(d)})
		}
	}
	return items, errors.Join(errs...)
}

// skillItems lists the grants (allowed-tools) of the workspace's skills.
func skillItems(ws string, rel func(string) string) ([]trust.Item, error) {
	set, _ := skill.Load(projectSkillRoots(ws)...)
	var items []trust.Item
	for _, s := range set.All() {
		if len(s.AllowedTools) == 0 {
			continue
		}
		items = append(items, trust.Item{Kind: trust.KindGrant, Source: rel(s.Path), Name: s.Name,
			Text: s.Name + ": " + strings.Join(s.AllowedTools, " "), Value: trust.Value(s.AllowedTools)})
	}
	return items, nil
}

// projectSkillRoots returns the skill directories of workspace ws itself.
func projectSkillRoots(ws string) []skill.Root {
	return slices.DeleteFunc(skill.Roots(ws, workspace.UserLayout{}, ""), func(r skill.Root) bool { return r.Scope != skill.ScopeProject })
}

// agentItems lists the models the workspace's agent definitions choose.
// Their tools need no trust: a definition only ever narrows its parent's.
func agentItems(ws string, rel func(string) string) ([]trust.Item, error) {
	dirs := slices.DeleteFunc(subagent.Dirs(ws, workspace.UserLayout{}, ""), func(d subagent.Dir) bool { return d.Scope != subagent.ScopeWorkspace })
	set, _ := subagent.Load(dirs...)
	var items []trust.Item
	for _, name := range set.Names() {
		d, _ := set.Get(name)
		if d.Scope != subagent.ScopeWorkspace || d.Model == "" {
			continue
		}
		items = append(items, trust.Item{Kind: trust.KindAgent, Source: rel(d.Source), Name: name,
			Text: name + " runs on " + d.Model, Value: trust.Value(d.Model)})
	}
	return items, nil
}

// gitHookItems lists the git hooks a commit in workspace ws would run:
// the executable files of the hooks directory git uses there (.git/hooks,
// or core.hooksPath), each pinned to its content. Finding the directory
// runs git with every program the repository names turned off.
func gitHookItems(ws string, rel func(string) string) ([]trust.Item, error) {
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Where git cannot tell (no git, not a repository it can read), the
	// hooks are those of .git/hooks: a commit there fails anyway.
	dir := filepath.Join(ws, ".git", "hooks")
	if env, err := gitsafe.Load(ctx, "git", ws, os.Environ(), gitsafe.Options{Hooks: true}); err == nil {
		cmd := exec.CommandContext(ctx, "git", "rev-parse", "--git-path", "hooks")
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.Output(); err == nil {
			if dir = strings.TrimSpace(string(out)); !filepath.IsAbs(dir) {
				dir = filepath.Join(ws, dir)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	var items []trust.Item
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 || strings.HasSuffix(e.Name(), ".sample") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		items = append(items, trust.Item{Kind: trust.KindGitHook, Source: rel(p), Name: e.Name(),
			Text: e.Name() + " (runs on git_commit)", Value: trust.SecretValue(string(data))})
	}
	return items, nil
}
