// Package skills provides the tools that let a model find, activate and
// write skills ([skill.Skill]): activate_skill, list_skills, skill_search
// and create_skill; and list_plugins, which lists the installed plugins
// (enabling one is the user's, never a tool's).
//
// The tools are built with a [Config]: the [skill.Catalog] to read, the
// directory create_skill writes to, and the session store that journals
// each activation and creation. [Tools] returns them:
//
//	ts := skills.Tools(skills.Config{Catalog: cat, ProjectDir: ws + "/.wield/skills", Sessions: store})
//
// # Progressive disclosure
//
// The prompt lists only names and descriptions ([skill.Listing]). A
// model calls activate_skill to read a skill's instructions and file tree,
// then reads the files it needs with read_file and runs scripts through
// the shell tool, under the policy. When the listing does not fit its
// budget, skill_search is offered in its place.
//
// # After a compaction
//
// An activation is journaled in the session as the metadata key
// "skill:NAME", and the skill's instructions are pinned
// ([session.Session.Pin]): once the session is compacted past the
// activation, the agent shows them in every prompt again, so that a
// summary does not lose what the skill said. Nothing is run again.
package skills

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
)

// Config is what the skill tools are built with. Its zero value gives
// tools that report that no skills are set up.
type Config struct {
	// Catalog holds the skills; nil means none.
	Catalog *skill.Catalog
	// ProjectDir is the skills directory create_skill writes to (the
	// project's .wield/skills); empty means create_skill fails.
	ProjectDir string
	// Sessions journals activations and creations in the call's session
	// ([tool.Call.SessionID]); nil, or a session it does not have open,
	// means they are not journaled.
	Sessions *session.Store
	// Budget is the listing's budget in characters ([skill.Budget]); when
	// the listing fits, skill_search is hidden from the model (it can
	// still be called). Zero means no limit.
	Budget int
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

// Tools returns the skill tools in display order: activate_skill,
// list_skills, skill_search and create_skill.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{ActivateSkill(cfg), ListSkills(cfg), SkillSearch(cfg), CreateSkill(cfg)}
}

// MetaPrefix starts the session metadata keys of activations:
// "skill:NAME".
const MetaPrefix = "skill:"

// CreatedPrefix starts the session metadata keys of skills create_skill
// wrote: "skill-created:NAME".
const CreatedPrefix = "skill-created:"

// An Activation is the journaled record of one activate_skill call.
type Activation struct {
	Name string `json:"name"`
	// Path is the skill's SKILL.md.
	Path   string    `json:"path"`
	CallID string    `json:"call_id,omitempty"`
	Time   time.Time `json:"time"`
}

var errNoSkills = errors.New("no skills are set up in this run")

func (cfg *Config) set() *skill.Set {
	if cfg.Catalog == nil {
		return nil
	}
	return cfg.Catalog.Set()
}

func (cfg *Config) now() time.Time {
	if cfg.Now != nil {
		return cfg.Now()
	}
	return time.Now()
}

// session returns the call's session if Sessions has it open.
func (cfg *Config) session(c *tool.Call) *session.Session {
	if cfg.Sessions == nil || c == nil || c.SessionID == "" {
		return nil
	}
	s, _ := cfg.Sessions.Writer(c.SessionID)
	return s
}

// Active returns the skills activated in session id that are still
// loaded, sorted by name; nil when Sessions does not have the session
// open. The host gives their AllowedTools to the policy as grants
// (policy.GrantSource), which never reach past the user's rules.
func (cfg Config) Active(id string) []*skill.Skill {
	s := cfg.session(&tool.Call{SessionID: id})
	if s == nil {
		return nil
	}
	var out []*skill.Skill
	for k := range s.MetaPrefixed(MetaPrefix) {
		if name, ok := strings.CutPrefix(k, MetaPrefix); ok {
			if sk, ok := cfg.set().Get(name); ok {
				out = append(out, sk)
			}
		}
	}
	slices.SortFunc(out, func(a, b *skill.Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}
