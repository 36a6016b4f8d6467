package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wieldhq/wield/internal/jsonpos"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// Settings is the part of a settings file (Claude Code's format) that
// wield reads: permission rules, the default mode and hooks.
type Settings struct {
	Permissions struct {
		Allow       []string `json:"allow,omitempty"`
		Ask         []string `json:"ask,omitempty"`
		Deny        []string `json:"deny,omitempty"`
		DefaultMode string   `json:"defaultMode,omitempty"`
	} `json:"permissions"`
	Hooks map[string][]HookMatcher `json:"hooks,omitempty"`
}

// A HookMatcher selects the tools its hooks run for: Matcher is a tool
// name, a "|"-separated list, a regular expression, or empty or "*" for
// every tool.
type HookMatcher struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []Hook `json:"hooks"`
}

// A Hook is one command: Type must be "command"; Timeout is in seconds
// (zero means DefaultHookTimeout).
type Hook struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"`
}

// SettingsFiles returns the settings files wield reads for workspace ws,
// lowest precedence first: the user's, then the project's.
func SettingsFiles(ws string) []string {
	var files []string
	if u, err := workspace.User(); err == nil {
		files = append(files, u.Settings())
	}
	return append(files, workspace.Layout{Root: ws}.Settings())
}

// ReadSettings reads the settings file at path. A missing file gives nil
// and no error; one that cannot be read or decoded is an error naming the
// file and, for a decoding error, the line and column.
func ReadSettings(path string) (*Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings %s: %w", path, err)
	}
	var s Settings
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return nil, fmt.Errorf("settings %w", jsonpos.Wrap(path, data, err))
	}
	return &s, nil
}

// Load reads the settings files that exist among paths into p: rules are
// added to its lists, the last defaultMode found sets the mode, and hooks
// are appended. A malformed file or rule is an error naming the file and
// the rule; a missing file is skipped.
func (p *Policy) Load(paths ...string) error {
	return p.load(false, paths)
}

// LoadRestricting reads the settings files that exist among paths into p
// as [Policy.Load] does, but takes only what restricts (see
// [Settings.Restricting]): the files of a folder the user has not
// trusted.
func (p *Policy) LoadRestricting(paths ...string) error {
	return p.load(true, paths)
}

func (p *Policy) load(restricting bool, paths []string) error {
	for _, path := range paths {
		s, err := ReadSettings(path)
		if err != nil {
			return err
		}
		if s == nil {
			continue
		}
		if restricting {
			s = s.Restricting()
		}
		if err := p.Apply(s); err != nil {
			return fmt.Errorf("settings %s: %w", path, err)
		}
	}
	return nil
}

// Restricting returns the part of s that can only make the policy
// stricter: its ask and deny rules, and a default mode of "default" or
// "plan". Allow rules, a permissive mode and hooks (which run commands)
// are left out. s is not changed.
func (s *Settings) Restricting() *Settings {
	r := &Settings{}
	r.Permissions.Ask = slices.Clone(s.Permissions.Ask)
	r.Permissions.Deny = slices.Clone(s.Permissions.Deny)
	if m, err := ParseMode(s.Permissions.DefaultMode); err == nil && (m == ModeDefault || m == ModePlan) {
		r.Permissions.DefaultMode = s.Permissions.DefaultMode
	}
	return r
}

// Apply adds the rules, mode and hooks of s to p. If p.Hooks has no
// Logger, it is given p.Logger.
func (p *Policy) Apply(s *Settings) error {
	for _, l := range []struct {
		list  string
		rules []string
	}{{Allow, s.Permissions.Allow}, {Ask, s.Permissions.Ask}, {Deny, s.Permissions.Deny}} {
		for i, text := range l.rules {
			r, err := ParseRule(text)
			if err != nil {
				return fmt.Errorf("permissions.%s[%d]: %w", l.list, i, err)
			}
			if err := p.Add(l.list, r); err != nil {
				return err
			}
		}
	}
	if s.Permissions.DefaultMode != "" {
		m, err := ParseMode(s.Permissions.DefaultMode)
		if err != nil {
			return fmt.Errorf("permissions.defaultMode: %w", err)
		}
		p.Mode = m
	}
	for event, matchers := range s.Hooks {
		if !supportedEvent(event) {
			p.logger().Warn("hook event not supported; ignored", "event", event)
			continue
		}
		for i, m := range matchers {
			for j, h := range m.Hooks {
				if h.Type != "command" {
					return fmt.Errorf("hooks.%s[%d].hooks[%d]: type %q is not supported; use \"command\"", event, i, j, h.Type)
				}
				if h.Command == "" {
					return fmt.Errorf("hooks.%s[%d].hooks[%d]: empty command", event, i, j)
				}
			}
			if p.Hooks == nil {
				p.Hooks = &Hooks{}
			}
			if err := p.Hooks.add(event, m); err != nil {
				return fmt.Errorf("hooks.%s[%d]: %w", event, i, err)
			}
		}
	}
	if p.Hooks != nil && p.Hooks.Logger == nil {
		p.Hooks.Logger = p.Logger
	}
	return nil
}

// Warnings lists rules that name no tool of reg, which are probably typos.
func (p *Policy) Warnings(reg *tool.Registry) []string {
	var out []string
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, list := range []string{Allow, Ask, Deny} {
		for _, r := range p.lists[list] {
			found := false
			for _, t := range reg.Tools() {
				if r.matchesTool(t.Name()) {
					found = true
					break
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("%s rule %s names no known tool", list, r))
			}
		}
	}
	return out
}

// SaveRule adds rule to the allow list of the settings file at path,
// creating it if needed and keeping everything else in it.
func SaveRule(path string, list string, r Rule) error {
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("settings %s: %w", path, err)
		}
	}
	perms, _ := doc["permissions"].(map[string]any)
	if perms == nil {
		perms = map[string]any{}
		doc["permissions"] = perms
	}
	rules, _ := perms[list].([]any)
	for _, x := range rules {
		if x == r.String() {
			return nil
		}
	}
	perms[list] = append(rules, r.String())
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	tmp := fmt.Sprintf("%s.tmp-%d", path, time.Now().UnixNano())
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return fmt.Errorf("settings %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("settings %s: %w", path, err)
	}
	return nil
}
