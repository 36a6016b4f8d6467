package skill_test

import (
	"fmt"

	"github.com/wieldhq/wield/skill"
)

func ExampleParse() {
	s, problems := skill.Parse([]byte(`---
name: Release Notes
description: Drafts release notes from the commits since the last tag.
allowed-tools: Bash(git log:*) read_file
---
Group the commits by package.
`), "release-notes")
	fmt.Println(s.Name)
	fmt.Println(s.AllowedTools)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// release-notes
	// [Bash(git log:*) read_file]
	// line 2: warning: name "Release Notes" is a legacy name; it is read as "release-notes" (use lower-case letters, digits and single '-')
}

func ExampleListing() {
	skills := []*skill.Skill{
		{Name: "changelog", Description: "Keeps CHANGELOG.md in the Keep a Changelog format.", Path: "/ws/.agents/skills/changelog/SKILL.md"},
		{Name: "pdf-forms", Description: "Fills in PDF forms from a JSON file of field values.", Path: "/ws/.claude/skills/pdf-forms/SKILL.md"},
	}
	text, ok := skill.Listing(skills, 440)
	fmt.Println(ok)
	fmt.Println(text)
	// Output:
	// true
	// <available_skills>
	// These skills hold instructions for particular tasks. When a task matches a description, call activate_skill with the skill's name first and follow what it says; read its other files only as needed.
	// - changelog: Keeps CHANGELOG.md in the Keep a Changelog fo… (/ws/.agents/skills/changelog/SKILL.md)
	// - pdf-forms: Fills in PDF forms from a JSON file of field… (/ws/.claude/skills/pdf-forms/SKILL.md)
	// </available_skills>
}
