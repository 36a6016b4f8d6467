package skills

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
)

//go:embed list_skills.md
var listDescription string

// ListInput is list_skills's argument object: it has no arguments.
type ListInput struct{}

// An Entry describes one skill in the results of list_skills and
// skill_search.
type Entry struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Scope       skill.Scope `json:"scope"`
	Plugin      string      `json:"plugin,omitempty"`
	Path        string      `json:"path"`
}

func entry(s *skill.Skill) Entry {
	return Entry{Name: s.Name, Description: s.Description, Scope: s.Scope, Plugin: s.Plugin, Path: s.Path}
}

// ListSkills returns the list_skills tool, which lists the skills the
// model may activate, sorted by name.
func ListSkills(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "list_skills", Effect: tool.EffectRead, Description: listDescription,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.list)
}

func (cfg Config) list(context.Context, *tool.Call, ListInput) (tool.Result, error) {
	var entries []Entry
	var b strings.Builder
	for _, s := range cfg.set().All() {
		if s.ModelHidden {
			continue
		}
		entries = append(entries, entry(s))
		fmt.Fprintf(&b, "- %s (%s): %s\n", s.Name, s.Scope, s.Description)
	}
	if len(entries) == 0 {
		return tool.Result{Success: true, Output: "No skills are installed.", Data: map[string]any{"skills": []Entry{}}}, nil
	}
	return tool.Result{Success: true, Output: b.String(), Data: map[string]any{"skills": entries}}, nil
}
