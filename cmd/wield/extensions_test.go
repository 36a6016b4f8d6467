package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTaskWords(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{nil, nil},
		{[]string{"fix the build"}, []string{"fix the build"}},
		{[]string{"/review", "./pkg", "warning"}, []string{"/review ./pkg warning"}},
		{[]string{"say", "hello", "world"}, []string{"say hello world"}},
	}
	for _, tt := range tests {
		if got := taskWords(tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("taskWords(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestIsGitURL(t *testing.T) {
	dir := t.TempDir()
	for src, want := range map[string]bool{
		"https://github.com/example/skills.git": true,
		"git@github.com:example/skills.git":     true,
		"ssh://git.example.com/skills":          true,
		dir:                                     false,
		"./not-there":                           false,
	} {
		if got := isGitURL(src); got != want {
			t.Errorf("isGitURL(%q) = %v, want %v", src, got, want)
		}
	}
}

func TestSkillSources(t *testing.T) {
	top := t.TempDir()
	for _, d := range []string{"one", "many/a", "many/b", "many/.hidden", "nested/skills/c", "nested/notes"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "nested/notes" {
			if err := os.WriteFile(filepath.Join(top, d, "SKILL.md"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(top, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for dir, want := range map[string][]string{"one": {"one"}, "many": {"many/a", "many/b"}, "nested": {"nested/skills/c"}} {
		if got := rel(skillSources(filepath.Join(top, dir))); !slices.Equal(got, want) {
			t.Errorf("skillSources(%s) = %v, want %v", dir, got, want)
		}
	}
}
