package skills

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
)

//go:embed create_skill.md
var createDescription string

// CreateInput is create_skill's argument object.
type CreateInput struct {
	Name        string            `json:"name" jsonschema:"the skill's name: lower-case letters, digits and single hyphens"`
	Description string            `json:"description" jsonschema:"what the skill does and when to use it"`
	Body        string            `json:"body" jsonschema:"the instructions, in Markdown"`
	Files       map[string]string `json:"files,omitempty" jsonschema:"more files of the skill by relative path (scripts/run.sh, references/api.md) and their content"`
}

// A Creation is the journaled record of one create_skill call.
type Creation struct {
	Name   string   `json:"name"`
	Dir    string   `json:"dir"`
	Files  []string `json:"files"`
	CallID string   `json:"call_id,omitempty"`
}

// CreateSkill returns the create_skill tool, which writes a skill into
// [Config.ProjectDir] with [skill.Create] and journals it. The tool is
// not read-only, so the policy asks the user before it runs unless a rule
// allows it.
func CreateSkill(cfg Config) *tool.Tool {
	var b strings.Builder
	template.Must(template.New("create_skill.md").Parse(createDescription)).Execute(&b,
		map[string]any{"MaxNameLen": skill.MaxNameLen, "MaxDescriptionLen": skill.MaxDescriptionLen})
	return tool.New(tool.Spec{Name: "create_skill", Effect: tool.EffectState, Description: b.String()}, cfg.create)
}

func (cfg Config) create(_ context.Context, c *tool.Call, in CreateInput) (tool.Result, error) {
	if cfg.ProjectDir == "" {
		return tool.Failure("skills cannot be written in this run (no project skills directory)"), nil
	}
	n := skill.NewSkill{Name: strings.TrimSpace(in.Name), Description: in.Description, Body: in.Body, Files: in.Files}
	if strings.TrimSpace(n.Body) == "" {
		return tool.Failure("the body is empty; write the instructions a model should follow"), nil
	}
	dir, err := skill.Create(cfg.ProjectDir, n)
	if errors.Is(err, skill.ErrExists) {
		return tool.Failure(fmt.Sprintf("a skill named %q already exists; choose another name", n.Name)), nil
	}
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	files := []string{skill.FileName}
	for f := range in.Files {
		files = append(files, f)
	}
	slices.Sort(files)
	if s := cfg.session(c); s != nil {
		if err := s.Set(map[string]any{CreatedPrefix + n.Name: Creation{Name: n.Name, Dir: dir, Files: files, CallID: c.ID}}); err != nil {
			return tool.Result{}, tool.Fatal(fmt.Errorf("journal the creation of skill %s: %w", n.Name, err))
		}
	}
	if cfg.Catalog != nil {
		cfg.Catalog.Reload()
	}
	return tool.Result{Success: true, Output: fmt.Sprintf("Wrote skill %s in %s (%s). It can be activated now.", n.Name, dir, strings.Join(files, ", ")),
		Data: map[string]any{"name": n.Name, "dir": dir, "files": files}}, nil
}
