package wield

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/skill"
	skilltools "github.com/wieldhq/wield/tools/skills"
	"github.com/wieldhq/wield/workspace"
)

// DefaultPolicy returns the policy of workspace ws as its settings files
// make it, in the mode they name (default: ask before any call that is not
// read-only); see [LoadSettings].
func DefaultPolicy(ws string, trusted bool, log *slog.Logger) (*policy.Policy, error) {
	p := &policy.Policy{Root: ws, Logger: log}
	if err := LoadSettings(p, ws, trusted); err != nil {
		return nil, err
	}
	if p.Hooks != nil {
		p.Hooks.Dir = ws
	}
	return p, nil
}

// LoadSettings loads into p the user's settings, then the workspace's
// (.wield/settings.json, then .wield/settings.local.json): whole when the
// workspace is trusted, else only what restricts.
func LoadSettings(p *policy.Policy, ws string, trusted bool) error {
	var user []string
	if u, err := workspace.User(); err == nil {
		user = append(user, u.Settings())
	}
	if err := p.Load(user...); err != nil {
		return err
	}
	project := []string{workspace.Layout{Root: ws}.Settings(), LocalSettings(ws)}
	if trusted {
		return p.Load(project...)
	}
	return p.LoadRestricting(project...)
}

// LocalSettings returns the path of workspace ws's personal settings,
// .wield/settings.local.json, which git is told to ignore.
func LocalSettings(ws string) string {
	return filepath.Join(workspace.Layout{Root: ws}.State(), "settings.local.json")
}

// extend adds to pol what skills and plugins bring: the skills active in a
// session pre-approve calls (never over a deny or ask rule; a skill of an
// untrusted workspace grants nothing, as its allowed-tools would
// pre-approve calls), and the hooks of the trusted plugins join pol's.
func extend(pol *policy.Policy, skills skilltools.Config, plugins []*plugin.Plugin, ws string, trusted bool, log *slog.Logger) {
	if skills.Catalog != nil {
		pol.Grants = policy.GrantFunc(func(id string) []policy.Rule {
			var rules []policy.Rule
			for _, sk := range skills.Active(id) {
				if sk.Scope == skill.ScopeProject && !trusted {
					continue
				}
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
	}
	for _, pl := range plugins {
		for ev, ms := range pl.Hooks {
			for _, m := range ms {
				if pol.Hooks == nil {
					pol.Hooks = &policy.Hooks{Dir: ws, Logger: log}
				}
				if err := pol.Hooks.AddHook(ev, m); err != nil {
					log.Warn("plugin hook", "plugin", pl.Name(), "event", ev, "err", err)
				}
			}
		}
	}
}

// DefaultSkills returns the catalog of the skills of workspace ws ("" for
// none), of the user (wield's, Claude Code's, Codex's and gemini-cli's
// folders) and of plugins. Nothing is read until it is used.
func DefaultSkills(ws string, plugins []*plugin.Plugin) *skill.Catalog {
	user, _ := workspace.User()
	home, _ := os.UserHomeDir()
	roots := skill.Roots(ws, user, home)
	for _, pl := range plugins {
		for _, d := range pl.SkillDirs {
			roots = append(roots, skill.Root{Dir: d, Scope: skill.ScopePlugin, Plugin: pl.Name()})
		}
	}
	return &skill.Catalog{Roots: roots}
}

// SkillListing returns the listing of the skills of cat for the system
// prompt, within the budget of a context window of window tokens (zero:
// the smallest budget), or the note that points to skill_search when it
// does not fit. Nil when there are no skills. Problems worth a look are
// logged.
func SkillListing(cat *skill.Catalog, window int, log *slog.Logger) []agent.Document {
	if cat == nil {
		return nil
	}
	for _, p := range cat.Problems() {
		if p.Severity >= skill.Warning {
			log.Warn("skill", "problem", p.Error())
		}
	}
	skills := cat.Set().All()
	if len(skills) == 0 {
		return nil
	}
	text, ok := skill.Listing(skills, skill.Budget(window))
	if !ok {
		text = skill.SearchNote(len(skills))
	}
	return []agent.Document{{Path: "skills", Content: text}}
}
