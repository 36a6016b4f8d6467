package wield

import (
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

// Manifest lists what the configuration of workspace ws would enable if
// the user trusted it (see package trust): the allow rules, permissive
// mode and hooks of its settings files, the settings of its
// .wield/config.json that [Config.Restricting] leaves out, its MCP
// servers, declared tools, skills' grants, agent definitions' models and
// the git hooks a commit there would run. What only restricts is not
// listed: it applies untrusted. The manifest's root is ws's real path, so
// that a folder reached through a symbolic link is the same folder.
//
// The errors are those of the files that could not be read or decoded
// (each names its file): what of them could loosen anything stays unused
// until they parse. Finding the git hooks runs git, with every program
// the repository names turned off, under ctx.
func Manifest(ctx context.Context, ws string) (trust.Manifest, []error) {
	root, err := trust.RealPath(ws)
	if err != nil {
		root = ws
	}
	m := trust.Manifest{Root: root}
	var problems []error
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
			problems = append(problems, err)
		}
	}
	l := workspace.Layout{Root: ws}
	for _, f := range []string{l.Settings(), LocalSettings(ws)} {
		add(settingsItems(f, rel(f)))
	}
	add(configItems(l.Config(), rel(l.Config())))
	for _, f := range []string{l.SharedMCP(), l.MCP()} {
		add(mcpItems(f, rel(f)))
	}
	add(declaredItems(l.Tools(), rel))
	add(skillItems(ws, rel))
	add(agentItems(ws, rel))
	add(gitHookItems(ctx, ws, rel))
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

// configItems lists the settings of the configuration file path that
// need trust: every one but those [Config.Restricting] keeps.
func configItems(path, source string) ([]trust.Item, error) {
	var c Config
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
	if extra := slices.DeleteFunc(slices.Clone(c.Tools), func(t string) bool { return !slices.Contains(OptIn, t) }); len(extra) > 0 {
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
// runs git with every program the repository names turned off, for at
// most 10 seconds.
func gitHookItems(ctx context.Context, ws string, rel func(string) string) ([]trust.Item, error) {
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
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
