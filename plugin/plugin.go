package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/internal/diag"
	"github.com/wieldhq/wield/internal/frontmatter"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
)

// ManifestDirs are the directories that may hold plugin.json, in order of
// preference.
var ManifestDirs = [...]string{".wield-plugin", ".claude-plugin"}

// MaxFileSize is the largest manifest, command or configuration file
// [Load] reads.
const MaxFileSize = 1 << 20

// A Severity grades a [Problem]: [Info] needs no change (a key wield
// ignores), [Warning] is probably a mistake but the rest of the plugin
// loads, [Error] means the part named (the plugin, a command, a hook) is
// left out.
type Severity = diag.Severity

// The severities.
const (
	Info    = diag.Info
	Warning = diag.Warning
	Error   = diag.Error
)

// A Problem is something wrong, or worth knowing, about a plugin; its
// Error method gives "path: severity: msg".
type Problem = diag.Problem

// An Author is a manifest's author.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// A Manifest is plugin.json.
type Manifest struct {
	Name        string   `json:"name"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Author      *Author  `json:"author,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	License     string   `json:"license,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	// Commands, Agents and Skills are more paths, each "./…"; they add
	// to the default directories.
	Commands Paths `json:"commands,omitempty"`
	Agents   Paths `json:"agents,omitempty"`
	Skills   Paths `json:"skills,omitempty"`
	// Hooks and MCPServers are paths of more files, or the configuration
	// inline.
	Hooks      json.RawMessage `json:"hooks,omitempty"`
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
}

// Paths is a string or a list of strings.
type Paths []string

// UnmarshalJSON reads a string or a list of strings.
func (p *Paths) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*p = Paths{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("must be a path or a list of paths")
	}
	*p = many
	return nil
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// ValidName reports whether name is a plugin name: kebab-case, at most 64
// characters.
func ValidName(name string) bool { return len(name) <= 64 && namePattern().MatchString(name) }

// known are the manifest keys wield reads; others are reported.
var known = []string{"name", "version", "description", "author", "homepage", "repository", "license", "keywords", "commands", "agents", "skills", "hooks", "mcpServers", "$schema"}

// ParseManifest reads plugin.json. The name is required and must be
// kebab-case; every path must start with "./" and stay inside the plugin.
func ParseManifest(data []byte) (*Manifest, []Problem) {
	var m Manifest
	var problems []Problem
	report := func(sev Severity, format string, args ...any) {
		problems = append(problems, Problem{Severity: sev, Msg: fmt.Sprintf(format, args...)})
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		report(Error, "plugin.json is not a JSON object: %v", err)
		return nil, problems
	}
	if err := json.Unmarshal(data, &m); err != nil {
		report(Error, "plugin.json: %v", err)
		return nil, problems
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !slices.Contains(known, k) {
			report(Info, "plugin.json: %q is ignored", k)
		}
	}
	switch {
	case m.Name == "":
		report(Error, `plugin.json has no name; add "name": "my-plugin"`)
	case !ValidName(m.Name):
		report(Error, "plugin name %q is not kebab-case (lower-case letters, digits and single '-')", m.Name)
	}
	for field, ps := range map[string]Paths{"commands": m.Commands, "agents": m.Agents, "skills": m.Skills} {
		for _, p := range ps {
			if _, ok := relPath(p); !ok {
				report(Error, "plugin.json %s: %q must be a path inside the plugin starting with \"./\"", field, p)
			}
		}
	}
	if slices.ContainsFunc(problems, func(p Problem) bool { return p.Severity == Error }) {
		return nil, problems
	}
	return &m, problems
}

// relPath returns p ("./x/y") as a clean slash path inside the plugin.
func relPath(p string) (string, bool) {
	if !strings.HasPrefix(p, "./") {
		return "", false
	}
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if c == "." || !fs.ValidPath(c) {
		return c, c == "."
	}
	return c, true
}

// A Plugin is a plugin read from its directory.
type Plugin struct {
	Manifest Manifest
	// Dir is the plugin's directory (absolute).
	Dir string
	// Commands are the prompt templates, sorted by name.
	Commands []*Command
	// AgentFiles are the agent definition files.
	AgentFiles []string
	// SkillDirs are directories of skills (each holding NAME/SKILL.md).
	SkillDirs []string
	// Hooks are the hooks by event, with the plugin's root substituted.
	Hooks map[string][]policy.HookMatcher
	// MCPServers are the MCP servers by name, with the plugin's root
	// substituted.
	MCPServers map[string]mcp.ServerConfig
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.Manifest.Name }

// ManifestPath returns the path of dir's plugin.json, or "" when it has
// none.
func ManifestPath(dir string) string {
	for _, d := range ManifestDirs {
		p := filepath.Join(dir, d, "plugin.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Load reads the plugin in dir. It returns nil when the manifest is
// missing or refused; a broken command, agent, hook file or MCP
// configuration is reported and left out, the rest loads.
func Load(dir string) (*Plugin, []Problem) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, []Problem{{Path: dir, Severity: Error, Msg: err.Error()}}
	}
	mp := ManifestPath(dir)
	if mp == "" {
		return nil, []Problem{{Path: dir, Severity: Error, Msg: "not a plugin: no .claude-plugin/plugin.json or .wield-plugin/plugin.json"}}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, []Problem{{Path: dir, Severity: Error, Msg: err.Error()}}
	}
	defer root.Close()
	l := &loader{dir: dir, root: root}
	data, err := l.read(mustRel(dir, mp))
	if err != nil {
		return nil, []Problem{{Path: mp, Severity: Error, Msg: err.Error()}}
	}
	m, ps := ParseManifest(data)
	for _, p := range ps {
		p.Path = mp
		l.problems = append(l.problems, p)
	}
	if m == nil {
		return nil, l.problems
	}
	pl := &Plugin{Manifest: *m, Dir: dir, Hooks: map[string][]policy.HookMatcher{}, MCPServers: map[string]mcp.ServerConfig{}}
	l.commands(pl, append([]string{"commands"}, cleanAll(m.Commands)...))
	l.agents(pl, append([]string{"agents"}, cleanAll(m.Agents)...))
	for _, d := range append([]string{"skills"}, cleanAll(m.Skills)...) {
		if info, err := root.Stat(d); err == nil && info.IsDir() {
			pl.SkillDirs = append(pl.SkillDirs, filepath.Join(dir, filepath.FromSlash(d)))
		}
	}
	l.hooks(pl, m.Hooks)
	l.mcp(pl, m.MCPServers)
	return pl, l.problems
}

func mustRel(base, p string) string {
	r, _ := filepath.Rel(base, p)
	return filepath.ToSlash(r)
}

func cleanAll(ps Paths) []string {
	var out []string
	for _, p := range ps {
		if c, ok := relPath(p); ok {
			out = append(out, c)
		}
	}
	return out
}

type loader struct {
	dir      string
	root     *os.Root
	problems []Problem
}

func (l *loader) report(rel string, sev Severity, format string, args ...any) {
	l.problems = append(l.problems, Problem{Path: filepath.Join(l.dir, filepath.FromSlash(rel)), Severity: sev, Msg: fmt.Sprintf(format, args...)})
}

// read reads a file of the plugin through its root: a link leaving the
// plugin fails.
func (l *loader) read(rel string) ([]byte, error) {
	f, err := l.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, err
	}
	if b.Len() > MaxFileSize {
		return nil, fmt.Errorf("larger than %d KiB", MaxFileSize>>10)
	}
	return b.Bytes(), nil
}

// files returns the .md files at rel (a file, or a directory searched to
// any depth), sorted.
func (l *loader) files(rel string) []string {
	info, err := l.root.Stat(rel)
	if err != nil {
		return nil
	}
	if !info.IsDir() {
		return []string{rel}
	}
	var out []string
	fs.WalkDir(l.root.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func (l *loader) commands(pl *Plugin, dirs []string) {
	seen := map[string]bool{}
	for _, d := range dirs {
		for _, rel := range l.files(d) {
			data, err := l.read(rel)
			if err != nil {
				l.report(rel, Error, "cannot read: %v", err)
				continue
			}
			name := strings.TrimSuffix(strings.TrimPrefix(rel, d+"/"), ".md")
			if rel == d {
				name = strings.TrimSuffix(path.Base(rel), ".md")
			}
			name = strings.ReplaceAll(name, "/", ":")
			if seen[name] {
				continue
			}
			seen[name] = true
			c, ps := ParseCommand(data, name)
			for _, p := range ps {
				l.report(rel, p.Severity, "%s", p.Msg)
			}
			if c != nil {
				c.Plugin, c.Path, c.root = pl.Manifest.Name, filepath.Join(l.dir, filepath.FromSlash(rel)), l.dir
				pl.Commands = append(pl.Commands, c)
			}
		}
	}
	slices.SortFunc(pl.Commands, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
}

// agents lists the agent files and refuses the keys a plugin agent may
// not set.
func (l *loader) agents(pl *Plugin, dirs []string) {
	for _, d := range dirs {
		for _, rel := range l.files(d) {
			data, err := l.read(rel)
			if err != nil {
				l.report(rel, Error, "cannot read: %v", err)
				continue
			}
			if front, _, ok := frontmatter.Split(data); ok {
				doc, err := frontmatter.Decode(front)
				if m, ok := frontmatter.Mapping(&doc); err == nil && ok && m != nil {
					for i := 0; i+1 < len(m.Content); i += 2 {
						switch k := m.Content[i].Value; k {
						case "hooks", "permissionMode", "permission-mode":
							l.report(rel, Warning, "%s is refused: a plugin's agents cannot set hooks or a permission mode", k)
						}
					}
				}
			}
			pl.AgentFiles = append(pl.AgentFiles, filepath.Join(l.dir, filepath.FromSlash(rel)))
		}
	}
}

// lookup substitutes the plugin's root; other variables come from the
// environment.
func (l *loader) lookup(name string) (string, bool) {
	switch name {
	case "CLAUDE_PLUGIN_ROOT", "WIELD_PLUGIN_ROOT":
		return l.dir, true
	}
	return os.LookupEnv(name)
}

// substitute replaces ${CLAUDE_PLUGIN_ROOT} and ${WIELD_PLUGIN_ROOT} in s.
func substitute(s, dir string) string {
	s = strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", dir)
	return strings.ReplaceAll(s, "${WIELD_PLUGIN_ROOT}", dir)
}

func (l *loader) hooks(pl *Plugin, inline json.RawMessage) {
	var sources []struct {
		rel  string
		data []byte
	}
	if data, err := l.read("hooks/hooks.json"); err == nil {
		sources = append(sources, struct {
			rel  string
			data []byte
		}{"hooks/hooks.json", data})
	}
	sources = append(sources, l.configs(inline, "hooks")...)
	for _, src := range sources {
		// hooks.json is {"hooks": {...}} (with an optional description);
		// an inline manifest value is the map itself.
		var file struct {
			Hooks map[string][]policy.HookMatcher `json:"hooks"`
		}
		if err := json.Unmarshal(src.data, &file); err != nil || file.Hooks == nil {
			var direct map[string][]policy.HookMatcher
			if err2 := json.Unmarshal(src.data, &direct); err2 != nil {
				l.report(src.rel, Error, "hooks are not valid: %v", cmpErr(err, err2))
				continue
			}
			file.Hooks = direct
		}
		for event, ms := range file.Hooks {
			switch event {
			case policy.PreToolUse, policy.PostToolUse, policy.PreCompact, policy.PostCompact:
			default:
				l.report(src.rel, Warning, "hook event %s is not supported and is ignored; wield runs PreToolUse, PostToolUse, PreCompact and PostCompact", event)
				continue
			}
			for _, m := range ms {
				for i := range m.Hooks {
					m.Hooks[i].Command = substitute(m.Hooks[i].Command, l.dir)
				}
				pl.Hooks[event] = append(pl.Hooks[event], m)
			}
		}
	}
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// configs returns the files a manifest's hooks or mcpServers value names,
// or the value itself when it is an object.
func (l *loader) configs(v json.RawMessage, field string) []struct {
	rel  string
	data []byte
} {
	type src = struct {
		rel  string
		data []byte
	}
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	if v[0] == '{' {
		return []src{{".claude-plugin/plugin.json", v}}
	}
	var ps Paths
	if err := json.Unmarshal(v, &ps); err != nil {
		l.report(".claude-plugin/plugin.json", Error, "%s: a path, a list of paths or an object", field)
		return nil
	}
	var out []src
	for _, p := range ps {
		rel, ok := relPath(p)
		if !ok {
			l.report(".claude-plugin/plugin.json", Error, "%s: %q must be a path inside the plugin starting with \"./\"", field, p)
			continue
		}
		data, err := l.read(rel)
		if err != nil {
			l.report(rel, Error, "cannot read: %v", err)
			continue
		}
		out = append(out, src{rel, data})
	}
	return out
}

func (l *loader) mcp(pl *Plugin, inline json.RawMessage) {
	type src = struct {
		rel  string
		data []byte
	}
	var sources []src
	if data, err := l.read(".mcp.json"); err == nil {
		sources = append(sources, src{".mcp.json", data})
	}
	sources = append(sources, l.configs(inline, "mcpServers")...)
	for _, s := range sources {
		data := s.data
		// A plugin's .mcp.json may hold the servers directly, without
		// the "mcpServers" wrapper.
		var probe map[string]json.RawMessage
		if json.Unmarshal(data, &probe) == nil {
			if _, wrapped := probe["mcpServers"]; !wrapped {
				data, _ = json.Marshal(map[string]any{"mcpServers": probe})
			}
		}
		servers, err := mcp.ParseConfig(data, &mcp.LoadOptions{LookupEnv: l.lookup})
		if err != nil {
			l.report(s.rel, Warning, "%v", err)
		}
		for name, sc := range servers {
			sc.Source = filepath.Join(l.dir, filepath.FromSlash(s.rel))
			pl.MCPServers[name] = sc
		}
	}
}
