package skills

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
)

//go:embed skill_search.md
var searchDescription string

// MaxResults is the most skills skill_search returns.
const MaxResults = 10

// SearchInput is skill_search's argument object.
type SearchInput struct {
	Query string `json:"query" jsonschema:"a few words of the task: a file format, tool or workflow"`
}

// SkillSearch returns the skill_search tool, which ranks the skills by
// their name, description and when_to_use ([skill.Set.Search]). It is
// hidden from the model when the listing fits [Config.Budget].
func SkillSearch(cfg Config) *tool.Tool {
	hidden := false
	if cfg.Budget > 0 && cfg.Catalog != nil {
		_, hidden = skill.Listing(cfg.set().All(), cfg.Budget)
	}
	var b strings.Builder
	template.Must(template.New("skill_search.md").Parse(searchDescription)).Execute(&b, map[string]any{"MaxResults": MaxResults})
	return tool.New(tool.Spec{Name: "skill_search", Effect: tool.EffectRead, Description: b.String(), Hidden: hidden,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.search)
}

func (cfg Config) search(_ context.Context, _ *tool.Call, in SearchInput) (tool.Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return tool.Failure("the query is empty; give a few words of the task"), nil
	}
	hits := cfg.set().Search(in.Query, MaxResults)
	if len(hits) == 0 {
		return tool.Result{Success: true, Output: fmt.Sprintf("No skill matches %q; go on without one.", in.Query), Data: map[string]any{"skills": []Entry{}}}, nil
	}
	var b strings.Builder
	entries := make([]Entry, 0, len(hits))
	for _, h := range hits {
		entries = append(entries, entry(h.Skill))
		fmt.Fprintf(&b, "- %s: %s\n", h.Skill.Name, h.Skill.Description)
	}
	return tool.Result{Success: true, Output: b.String(), Data: map[string]any{"skills": entries}}, nil
}
