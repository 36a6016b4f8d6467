package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/workspace"
)

// wield skills: see extensions.go for what a run takes from skills.

func newSkillsCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "list, show, install and remove skills",
		Long: `Skills are folders holding a SKILL.md: YAML frontmatter (name, description,
and optionally license, compatibility, metadata, allowed-tools) and Markdown
instructions, with optional scripts/, references/ and assets/. wield reads the
skills Claude Code, Codex and gemini-cli read:

  project  .wield/skills, .agents/skills, .claude/skills, .codex/skills and
           .gemini/skills in the workspace and its parents up to the repository root
  user     skills in wield's configuration directory, and ~/.agents/skills,
           ~/.claude/skills, ~/.codex/skills, ~/.gemini/skills
  plugin   skills/ of each enabled plugin

A name found twice keeps the first (project over user over plugin); the
others are reported as shadowed. Only names and descriptions go into the
prompt; the model reads a skill with activate_skill. A skill's allowed-tools
pre-approve calls only where your permission rules do not deny or ask.

Examples:

  wield skills ls
  wield skills ls --json
  wield skills show pdf-forms
  wield skills add ./my-skills/pdf-forms
  wield skills add https://github.com/example/skills.git --scope user
  wield skills rm pdf-forms

See also: wield plugin, wield help run.`,
	}
	cmd.AddCommand(newSkillsLs(g), newSkillsShow(g), newSkillsAdd(g), newSkillsRm(g))
	return cmd
}

// skillJSON is a skill as the --json listings print it.
type skillJSON struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Scope        skill.Scope       `json:"scope"`
	Plugin       string            `json:"plugin,omitempty"`
	Path         string            `json:"path"`
	License      string            `json:"license,omitempty"`
	AllowedTools []string          `json:"allowed_tools,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	ModelHidden  bool              `json:"model_hidden,omitempty"`
	Files        []string          `json:"files,omitempty"`
	Scripts      []string          `json:"scripts,omitempty"`
	Body         string            `json:"body,omitempty"`
}

func toSkillJSON(s *skill.Skill) skillJSON {
	return skillJSON{Name: s.Name, Description: s.Description, Scope: s.Scope, Plugin: s.Plugin, Path: s.Path,
		License: s.License, AllowedTools: s.AllowedTools, Metadata: s.Metadata, ModelHidden: s.ModelHidden}
}

func (g *globals) loadSkills() (*skill.Catalog, string, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, "", err
	}
	return g.skillCatalog(ws), ws, nil
}

func newSkillsLs(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "list the skills",
		Long: `Ls lists the skills wield loads, by name, with their scope and description.
Problems (a broken SKILL.md, a legacy name, a shadowed skill) go to standard
error. The --json flag prints the skills and the problems as JSON.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, _, err := g.loadSkills()
			if err != nil {
				return err
			}
			skills, problems := cat.Set().All(), cat.Problems()
			if asJSON {
				out := struct {
					Skills   []skillJSON `json:"skills"`
					Problems []string    `json:"problems"`
				}{Skills: []skillJSON{}, Problems: []string{}}
				for _, s := range skills {
					out.Skills = append(out.Skills, toSkillJSON(s))
				}
				for _, p := range problems {
					out.Problems = append(out.Problems, p.Error())
				}
				return writeJSON(g, out)
			}
			for _, p := range problems {
				fmt.Fprintln(g.stderr, p.Error())
			}
			var rows [][]string
			for _, s := range skills {
				scope := string(s.Scope)
				if s.Plugin != "" {
					scope += ":" + s.Plugin
				}
				rows = append(rows, []string{s.Name, scope, oneLine(s.Description, 70)})
			}
			return writeTable(g, "No skills. Add one with: wield skills add DIR", []string{"NAME", "SCOPE", "DESCRIPTION"}, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newSkillsShow(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "show a skill: its fields, instructions and files",
		Long: `Show prints a skill's fields, its instructions and its files, scripts marked.
Nothing is run. The --json flag prints the same as JSON.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, _, err := g.loadSkills()
			if err != nil {
				return err
			}
			s, ok := cat.Set().Get(args[0])
			if !ok {
				return &exitError{exitUsage, fmt.Errorf("no skill is named %q; see wield skills ls", args[0])}
			}
			tree, _, err := s.Tree()
			if err != nil {
				return err
			}
			out := toSkillJSON(s)
			out.Files, out.Scripts, out.Body = tree, skill.Scripts(tree), s.Body
			if asJSON {
				return writeJSON(g, out)
			}
			fmt.Fprintf(g.stdout, "%s (%s)\n%s\n\npath: %s\n", s.Name, s.Scope, s.Description, s.Path)
			if s.License != "" {
				fmt.Fprintf(g.stdout, "license: %s\n", s.License)
			}
			if len(s.AllowedTools) > 0 {
				fmt.Fprintf(g.stdout, "allowed-tools: %s\n", strings.Join(s.AllowedTools, " "))
			}
			fmt.Fprintf(g.stdout, "\n%s\n\nfiles:\n", s.Body)
			printFiles(g, tree)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printFiles(g *globals, tree []string) {
	scripts := skill.Scripts(tree)
	for _, f := range tree {
		if slices.Contains(scripts, f) {
			fmt.Fprintf(g.stdout, "  %s  (script; not run)\n", f)
		} else {
			fmt.Fprintf(g.stdout, "  %s\n", f)
		}
	}
}

// skillsDir returns the directory of a scope's skills that wield writes.
func skillsDir(ws, scope string) (string, error) {
	switch scope {
	case "", "project":
		return workspace.Layout{Root: ws}.Skills(), nil
	case "user":
		user, _ := userDirs()
		if user.Dir == "" {
			return "", errors.New("the user has no configuration directory")
		}
		return user.Skills(), nil
	}
	return "", &exitError{exitUsage, fmt.Errorf("--scope %q: use project or user", scope)}
}

// skillSources returns the skill directories under dir: dir itself when
// it holds a SKILL.md, else each subdirectory (of dir or of dir/skills)
// that holds one.
func skillSources(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, skill.FileName)); err == nil {
		return []string{dir}
	}
	var out []string
	for _, base := range []string{dir, filepath.Join(dir, "skills")} {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if _, err := os.Stat(filepath.Join(base, e.Name(), skill.FileName)); err == nil {
					out = append(out, filepath.Join(base, e.Name()))
				}
			}
		}
	}
	return out
}

func newSkillsAdd(g *globals) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "add DIR|GIT-URL",
		Short: "install skills from a directory or a git repository",
		Long: `Add copies a skill into the project's .wield/skills (or, with --scope user,
into the user's skills) and lists what it holds. DIR is a skill (a folder with
a SKILL.md) or a folder of skills; a git URL is cloned first (git must be
installed). Scripts are listed and never run. A skill of the same name is not
overwritten: remove it first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			dest, err := skillsDir(ws, scope)
			if err != nil {
				return err
			}
			src, cleanup, err := fetchSource(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			sources := skillSources(src)
			if len(sources) == 0 {
				return &exitError{exitUsage, fmt.Errorf("%s holds no SKILL.md, nor folders that do", args[0])}
			}
			var errs []error
			for _, s := range sources {
				sk, problems, err := skill.Install(dest, s)
				for _, p := range problems {
					fmt.Fprintf(g.stderr, "%s: %s\n", filepath.Join(s, skill.FileName), p.Error())
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				tree, _, _ := sk.Tree()
				fmt.Fprintf(g.stdout, "installed %s in %s\n", sk.Name, sk.Dir)
				printFiles(g, tree)
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "project", "where to install: project or user")
	return cmd
}

func newSkillsRm(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rm NAME",
		Short: "remove a skill from the project or the user's skills",
		Long: `Rm deletes the folder of the skill wield loads under NAME, in the project or the
user's scope. A plugin's skill is removed with its plugin (wield plugin rm).
A skill it shadowed is used again.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, _, err := g.loadSkills()
			if err != nil {
				return err
			}
			s, ok := cat.Set().Get(args[0])
			if !ok {
				return &exitError{exitUsage, fmt.Errorf("no skill is named %q; see wield skills ls", args[0])}
			}
			if s.Scope == skill.ScopePlugin {
				return &exitError{exitUsage, fmt.Errorf("%s comes from plugin %s; remove or disable the plugin instead", s.Name, s.Plugin)}
			}
			if err := os.RemoveAll(s.Dir); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "removed %s (%s)\n", s.Name, s.Dir)
			return nil
		},
	}
	return cmd
}
