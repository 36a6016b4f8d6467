package skill

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wieldhq/wield/workspace"
)

// fixtureRoots returns the roots of the testdata: the workspace ws (its
// ancestors left out), the user's directory and a plugin.
func fixtureRoots(t *testing.T) []Root {
	t.Helper()
	ws, err := filepath.Abs("testdata/ws")
	if err != nil {
		t.Fatal(err)
	}
	var roots []Root
	for _, r := range Roots(ws, workspace.UserLayout{Dir: filepath.Join(filepath.Dir(ws), "user")}, "") {
		if strings.HasPrefix(r.Dir, filepath.Dir(ws)) {
			roots = append(roots, r)
		}
	}
	return append(roots, Root{Dir: filepath.Join(filepath.Dir(ws), "plugin", "skills"), Scope: ScopePlugin, Plugin: "fixture"})
}

func TestLoad(t *testing.T) {
	set, problems := Load(fixtureRoots(t)...)
	got := map[string]string{}
	for _, s := range set.All() {
		got[s.Name] = string(s.Scope) + " " + filepath.Base(filepath.Dir(filepath.Dir(s.Dir)))
	}
	want := map[string]string{
		"release-notes": "project .claude",
		"csv-report":    "project .agents",
		"legacy-skill":  "project .gemini",
		"sql-style":     "user user",
		"deploy-check":  "plugin plugin",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded skills (-want +got):\n%s", diff)
	}
	wantProblems := []struct {
		path string
		sev  Severity
		msg  string
	}{
		{".codex/skills/release-notes/SKILL.md", Info, "shadowed by"},
		{"user/skills/csv-report/SKILL.md", Info, "shadowed by"},
		{"plugin/skills/sql-style/SKILL.md", Info, "shadowed by"},
		{"Legacy_Skill/SKILL.md", Warning, `legacy name; it is read as "legacy-skill"`},
		{"Legacy_Skill/SKILL.md", Warning, "unknown key \"color\""},
		{"broken/SKILL.md", Error, "not valid YAML"},
		{"no-skill-file", Warning, "has no SKILL.md"},
		{"release-notes/SKILL.md", Info, "metadata.version is not a string"},
	}
	for _, w := range wantProblems {
		if !slices.ContainsFunc(problems, func(p Problem) bool {
			return strings.HasSuffix(p.Path, filepath.FromSlash(w.path)) && p.Severity == w.sev && strings.Contains(p.Msg, w.msg)
		}) {
			t.Errorf("no %s problem %q about %s in:\n%s", w.sev, w.msg, w.path, join(problems))
		}
	}
	rn, _ := set.Get("release-notes")
	if diff := cmp.Diff([]string{"Bash(git log:*)", "read_file"}, rn.AllowedTools); diff != "" {
		t.Errorf("release-notes AllowedTools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"author": "fixture", "version": "2"}, rn.Metadata); diff != "" {
		t.Errorf("release-notes Metadata (-want +got):\n%s", diff)
	}
	if rn.License != "MIT" || !strings.HasPrefix(rn.Body, "# Release notes") {
		t.Errorf("release-notes License %q, Body %q", rn.License, rn.Body)
	}
	legacy, _ := set.Get("legacy-skill")
	if strings.Contains(legacy.Description, "\n") {
		t.Errorf("legacy description %q keeps a line break", legacy.Description)
	}
}

func join(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Error() + "\n")
	}
	return b.String()
}

func TestRootsStopAtRepositoryRoot(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	ws := filepath.Join(repo, "sub", "pkg")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	roots := Roots(ws, workspace.UserLayout{Dir: filepath.Join(top, "cfg")}, filepath.Join(top, "home"))
	var got []string
	for _, r := range roots {
		rel, _ := filepath.Rel(top, r.Dir)
		got = append(got, string(r.Scope)+" "+filepath.ToSlash(rel))
	}
	want := []string{}
	for _, d := range []string{"repo/sub/pkg", "repo/sub", "repo"} {
		for _, n := range DirNames {
			want = append(want, "project "+d+"/"+n+"/skills")
		}
	}
	want = append(want, "user cfg/skills", "user home/.agents/skills", "user home/.claude/skills", "user home/.codex/skills", "user home/.gemini/skills")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
}

func TestLoadSkipsSymlinksLeavingTheRoot(t *testing.T) {
	top := t.TempDir()
	outside := filepath.Join(top, "outside")
	skills := filepath.Join(top, "skills")
	mk := func(dir, body string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(outside, "escaper"), "---\nname: escaper\ndescription: lives outside\n---\n")
	mk(filepath.Join(skills, "inside"), "---\nname: inside\ndescription: lives inside\n---\n")
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		filepath.Join(skills, "escaper"):            filepath.Join(outside, "escaper"),
		filepath.Join(skills, "inside", "leak.txt"): filepath.Join(outside, "secret.txt"),
		filepath.Join(skills, "alias"):              "inside",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	set, problems := Load(Root{Dir: skills, Scope: ScopeProject})
	if _, ok := set.Get("escaper"); ok {
		t.Error("a skill behind a link leaving the root was loaded")
	}
	if !slices.ContainsFunc(problems, func(p Problem) bool { return strings.Contains(p.Msg, "symbolic link that leaves") }) {
		t.Errorf("no problem reports the escaping link:\n%s", join(problems))
	}
	in, ok := set.Get("inside")
	if !ok {
		t.Fatalf("inside not loaded:\n%s", join(problems))
	}
	tree, _, err := in.Tree()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{FileName}, tree); diff != "" {
		t.Errorf("Tree (-want +got):\n%s", diff)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, dir string
		wantName      string
		wantSev       Severity // the worst problem; -1 for none
		msg           string
	}{
		{"spec", "---\nname: pdf\ndescription: Reads PDFs.\n---\nbody", "pdf", "pdf", -1, ""},
		{"no name takes the directory", "---\ndescription: d\n---\n", "my-skill", "my-skill", Warning, "takes its directory's name"},
		{"legacy name", "---\nname: Plugin Structure\ndescription: d\n---\n", "plugin-structure", "plugin-structure", Warning, "legacy name"},
		{"name differs from directory", "---\nname: one\ndescription: d\n---\n", "two", "one", Warning, "differs from the directory"},
		{"no description", "---\nname: x\n---\n", "x", "", Error, "no description"},
		{"no frontmatter", "# just markdown\n", "x", "", Error, "no frontmatter"},
		{"name is a list", "---\nname: [a]\ndescription: d\n---\n", "x", "", Error, "single value"},
		{"duplicate key", "---\nname: a\nname: b\ndescription: d\n---\n", "a", "", Error, "given twice"},
		{"ignored key", "---\nname: a\ndescription: d\ncontext: fork\n---\n", "a", "a", Info, "context is ignored"},
		{"long description", "---\nname: a\ndescription: " + strings.Repeat("w", MaxDescriptionLen+1) + "\n---\n", "a", "a", Warning, "is cut to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ps := Parse([]byte(tt.in), tt.dir)
			worst := Severity(-1)
			for _, p := range ps {
				worst = max(worst, p.Severity)
			}
			if worst != tt.wantSev || tt.msg != "" && !slices.ContainsFunc(ps, func(p Problem) bool { return strings.Contains(p.Msg, tt.msg) }) {
				t.Fatalf("Parse problems:\n%s\nwant worst %v with %q", join(ps), tt.wantSev, tt.msg)
			}
			if tt.wantSev == Error {
				if s != nil {
					t.Errorf("Parse returned a skill despite an error")
				}
				return
			}
			if s.Name != tt.wantName {
				t.Errorf("Name = %q, want %q", s.Name, tt.wantName)
			}
		})
	}
}

func TestSplitTools(t *testing.T) {
	got := SplitTools("Bash(git log:*), read_file  Write(src/**)")
	if diff := cmp.Diff([]string{"Bash(git log:*)", "read_file", "Write(src/**)"}, got); diff != "" {
		t.Errorf("SplitTools (-want +got):\n%s", diff)
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{"Plugin Structure": "plugin-structure", "--a__b--": "a-b", "Ünïcode": "n-code", "": ""} {
		if got := NormalizeName(in); got != want || got != "" && !ValidName(got) {
			t.Errorf("NormalizeName(%q) = %q, want %q (valid)", in, got, want)
		}
	}
}
