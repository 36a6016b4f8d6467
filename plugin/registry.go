package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wieldhq/wield/internal/treecopy"
)

// StateFile is the name of the file, in a [Registry]'s directory, that
// records the installed plugins and the user's trust in each.
const StateFile = "plugins.json"

// ErrNotInstalled is returned when a plugin name is not installed.
var ErrNotInstalled = errors.New("plugin not installed")

// ErrChanged is returned by [Registry.Enable] when the plugin's content
// differs from what the user was shown.
var ErrChanged = errors.New("plugin changed since it was shown")

// An Entry is one installed plugin as the registry records it.
type Entry struct {
	Name string `json:"name"`
	// Source is where it was installed from (a directory or git URL).
	Source  string `json:"source"`
	Version string `json:"version,omitempty"`
	// Enabled reports whether the user enabled it; TrustedHash is the
	// content hash ([Hash]) the user trusted then.
	Enabled     bool      `json:"enabled"`
	TrustedHash string    `json:"trusted_hash,omitempty"`
	Installed   time.Time `json:"installed"`
}

// A Registry keeps installed plugins in a directory of the user's (each
// plugin a copy in DIR/NAME) and records them in DIR/plugins.json. It is
// not safe for concurrent use by several processes: the last write wins.
type Registry struct {
	// Dir holds the plugins and the state file.
	Dir string
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

type state struct {
	Plugins map[string]*Entry `json:"plugins"`
}

func (r *Registry) read() (*state, error) {
	st := &state{Plugins: map[string]*Entry{}}
	data, err := os.ReadFile(filepath.Join(r.Dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("plugins: %s: %w", filepath.Join(r.Dir, StateFile), err)
	}
	if st.Plugins == nil {
		st.Plugins = map[string]*Entry{}
	}
	return st, nil
}

// write replaces the state file atomically.
func (r *Registry) write(st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("plugins: %w", err)
	}
	f, err := os.CreateTemp(r.Dir, ".plugins-*.json")
	if err != nil {
		return fmt.Errorf("plugins: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("plugins: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("plugins: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("plugins: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(r.Dir, StateFile)); err != nil {
		return fmt.Errorf("plugins: %w", err)
	}
	return nil
}

// List returns the installed plugins, sorted by name.
func (r *Registry) List() ([]Entry, error) {
	st, err := r.read()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, name := range slices.Sorted(maps.Keys(st.Plugins)) {
		out = append(out, *st.Plugins[name])
	}
	return out, nil
}

// PluginDir returns the directory an installed plugin is kept in.
func (r *Registry) PluginDir(name string) string { return filepath.Join(r.Dir, name) }

// Add installs the plugin in dir (read with [Load]) as a copy, replacing
// an installed plugin of the same name, and records source. The new
// plugin is not enabled; a replaced one keeps its trust, which no longer
// matches if the content changed. Nothing of the plugin is run.
func (r *Registry) Add(dir, source string) (*Plugin, []Problem, error) {
	pl, problems := Load(dir)
	if pl == nil {
		return nil, problems, fmt.Errorf("add plugin from %s: %w", source, problemsErr(problems))
	}
	name := pl.Name()
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, problems, fmt.Errorf("add plugin %s: %w", name, err)
	}
	tmp, err := os.MkdirTemp(r.Dir, "."+name+"-*")
	if err != nil {
		return nil, problems, fmt.Errorf("add plugin %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	if err := treecopy.Copy(pl.Dir, tmp, ".git"); err != nil {
		return nil, problems, fmt.Errorf("add plugin %s: copy: %w", name, err)
	}
	dest := r.PluginDir(name)
	old := dest + ".old"
	_ = os.RemoveAll(old)
	if _, err := os.Lstat(dest); err == nil {
		if err := os.Rename(dest, old); err != nil {
			return nil, problems, fmt.Errorf("add plugin %s: %w", name, err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return nil, problems, fmt.Errorf("add plugin %s: %w", name, err)
	}
	_ = os.RemoveAll(old)
	st, err := r.read()
	if err != nil {
		return nil, problems, err
	}
	e := st.Plugins[name]
	if e == nil {
		e = &Entry{Name: name}
		st.Plugins[name] = e
	}
	e.Source, e.Version, e.Installed = source, pl.Manifest.Version, r.now().UTC()
	if err := r.write(st); err != nil {
		return nil, problems, err
	}
	installed, _ := Load(dest)
	return installed, problems, nil
}

func (r *Registry) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func problemsErr(ps []Problem) error {
	var errs []error
	for _, p := range ps {
		if p.Severity == Error {
			errs = append(errs, p)
		}
	}
	if len(errs) == 0 {
		return errors.New("not a plugin")
	}
	return errors.Join(errs...)
}

// Remove uninstalls the plugin name: its copy and its record.
func (r *Registry) Remove(name string) error {
	st, err := r.read()
	if err != nil {
		return err
	}
	if st.Plugins[name] == nil {
		return fmt.Errorf("remove plugin %s: %w", name, ErrNotInstalled)
	}
	delete(st.Plugins, name)
	if err := r.write(st); err != nil {
		return err
	}
	return os.RemoveAll(r.PluginDir(name))
}

// Enable records the user's trust in the plugin name as it is now: hash
// must be the [Hash] of the content the user was shown, and still the
// plugin's, or Enable returns an error wrapping [ErrChanged].
func (r *Registry) Enable(name, hash string) error {
	st, err := r.read()
	if err != nil {
		return err
	}
	e := st.Plugins[name]
	if e == nil {
		return fmt.Errorf("enable plugin %s: %w", name, ErrNotInstalled)
	}
	now, err := Hash(r.PluginDir(name))
	if err != nil {
		return err
	}
	if now != hash {
		return fmt.Errorf("enable plugin %s: %w; look at it again", name, ErrChanged)
	}
	e.Enabled, e.TrustedHash = true, hash
	return r.write(st)
}

// Disable turns the plugin off and forgets the trust.
func (r *Registry) Disable(name string) error {
	st, err := r.read()
	if err != nil {
		return err
	}
	e := st.Plugins[name]
	if e == nil {
		return fmt.Errorf("disable plugin %s: %w", name, ErrNotInstalled)
	}
	e.Enabled, e.TrustedHash = false, ""
	return r.write(st)
}

// A Pending plugin is installed but not loaded: the user has not enabled
// it, or its content changed since.
type Pending struct {
	Name string
	// Changed reports whether the plugin was enabled but its content no
	// longer has the trusted hash.
	Changed bool
}

// Load reads the enabled plugins whose content still has the trusted
// hash. The others are returned as pending: a changed plugin asks for the
// user's trust again before any of it is used.
func (r *Registry) Load() (plugins []*Plugin, pending []Pending, problems []Problem, err error) {
	entries, err := r.List()
	if err != nil {
		return nil, nil, nil, err
	}
	for _, e := range entries {
		if !e.Enabled {
			pending = append(pending, Pending{Name: e.Name})
			continue
		}
		h, err := Hash(r.PluginDir(e.Name))
		if err != nil || h != e.TrustedHash {
			pending = append(pending, Pending{Name: e.Name, Changed: true})
			continue
		}
		pl, ps := Load(r.PluginDir(e.Name))
		problems = append(problems, ps...)
		if pl != nil {
			plugins = append(plugins, pl)
		}
	}
	return plugins, pending, problems, nil
}

// Summary describes what a plugin holds, for the user deciding whether to
// trust it: its commands, agents, skills, hooks (with their commands) and
// MCP servers (with what they run).
func (p *Plugin) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", p.Name(), p.Manifest.Version)
	if p.Manifest.Description != "" {
		fmt.Fprintf(&b, ": %s", p.Manifest.Description)
	}
	b.WriteString("\n")
	for _, c := range p.Commands {
		fmt.Fprintf(&b, "  command /%s %s\n", c.Name, c.Description)
	}
	for _, a := range p.AgentFiles {
		fmt.Fprintf(&b, "  agent   %s\n", a)
	}
	for _, s := range p.SkillDirs {
		fmt.Fprintf(&b, "  skills  %s\n", s)
	}
	for _, ev := range slices.Sorted(maps.Keys(p.Hooks)) {
		for _, m := range p.Hooks[ev] {
			for _, h := range m.Hooks {
				fmt.Fprintf(&b, "  hook    %s %q runs: %s\n", ev, m.Matcher, h.Command)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.MCPServers)) {
		sc := p.MCPServers[name]
		if sc.URL != "" {
			fmt.Fprintf(&b, "  mcp     %s reaches: %s\n", name, sc.URL)
		} else {
			fmt.Fprintf(&b, "  mcp     %s runs: %s\n", name, strings.Join(append([]string{sc.Command}, sc.Args...), " "))
		}
	}
	return b.String()
}
