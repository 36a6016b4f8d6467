package skills

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/tool"
)

//go:embed activate_skill.md
var activateDescription string

// ActivateInput is activate_skill's argument object.
type ActivateInput struct {
	Name string `json:"name" jsonschema:"the skill's name, as listed"`
}

// ActivateSkill returns the activate_skill tool: it returns a skill's
// instructions, directory and file tree, and journals the activation. A
// skill the model may not activate (disable-model-invocation) is refused.
// The tool reads only, so it runs in every mode, plan mode included.
func ActivateSkill(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "activate_skill", Effect: tool.EffectRead, Description: activateDescription,
		Annotations: tool.Annotations{ReadOnly: true}}, cfg.activate)
}

func (cfg Config) activate(_ context.Context, c *tool.Call, in ActivateInput) (tool.Result, error) {
	set := cfg.set()
	if set.Len() == 0 {
		return tool.Failure(errNoSkills.Error()), nil
	}
	name := strings.TrimSpace(in.Name)
	sk, ok := set.Get(name)
	if !ok || sk.ModelHidden {
		msg := fmt.Sprintf("no skill is named %q", name)
		if hits := set.Search(name, 3); len(hits) > 0 {
			var names []string
			for _, h := range hits {
				names = append(names, h.Skill.Name)
			}
			msg += "; did you mean " + strings.Join(names, ", ") + "?"
		} else {
			msg += "; call list_skills to see the names"
		}
		return tool.Failure(msg), nil
	}
	tree, truncated, err := sk.Tree()
	if err != nil {
		return tool.Failure(fmt.Sprintf("skill %s: cannot list its directory: %v", sk.Name, err)), nil
	}
	if s := cfg.session(c); s != nil {
		a := Activation{Name: sk.Name, Path: sk.Path, CallID: c.ID, Time: cfg.now().UTC()}
		if err := s.Set(map[string]any{MetaPrefix + sk.Name: a}); err != nil {
			return tool.Result{}, tool.Fatal(fmt.Errorf("journal the activation of skill %s: %w", sk.Name, err))
		}
		if err := s.Pin(MetaPrefix+sk.Name, sk.Path, sk.Body); err != nil {
			return tool.Result{}, tool.Fatal(err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<activated_skill name=%q dir=%q>\n%s\n</activated_skill>\n\n", sk.Name, sk.Dir, sk.Body)
	fmt.Fprintf(&b, "Files of the skill, relative to %s (read them with read_file when the instructions point to them):\n", sk.Dir)
	for _, f := range tree {
		b.WriteString("- " + f + "\n")
	}
	if truncated {
		b.WriteString("- … (more files not listed)\n")
	}
	data := map[string]any{"name": sk.Name, "dir": sk.Dir, "files": tree, "scope": sk.Scope}
	if sk.AllowedTools != nil {
		data["allowed_tools"] = sk.AllowedTools
	}
	return tool.Result{Success: true, Output: b.String(), Data: data}, nil
}
