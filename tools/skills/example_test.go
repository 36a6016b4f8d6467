package skills_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/skills"
)

func ExampleTools() {
	cat := &skill.Catalog{Roots: []skill.Root{{Dir: "testdata/skills", Scope: skill.ScopeUser}}}
	ts := skills.Tools(skills.Config{Catalog: cat})
	for _, t := range ts {
		fmt.Println(t.Name())
	}
	res, _ := ts[1].Handler().Handle(context.Background(), &tool.Call{}, json.RawMessage(`{}`))
	fmt.Print(res.Output)
	// Output:
	// activate_skill
	// list_skills
	// skill_search
	// create_skill
	// - changelog (user): Keeps CHANGELOG.md in the Keep a Changelog format. Use when a change is user-visible.
	// - pdf-forms (user): Fills in PDF forms from a JSON file of field values. Use when a task mentions a PDF form, fillable fields or AcroForm.
}
