package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
)

// TestMain runs the test binary as the fixture plugin's MCP server when
// LINT_HELPER_SERVE is set: one tool, "count", that answers "counted".
func TestMain(m *testing.M) {
	if os.Getenv("LINT_HELPER_SERVE") != "" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

func serve() int {
	count := tool.New(tool.Spec{Name: "count", Description: "Counts."},
		func(context.Context, *tool.Call, struct{}) (tool.Result, error) { return tool.Text("counted"), nil })
	reg, err := tool.NewRegistry(count)
	if err != nil {
		panic(err)
	}
	srv, err := mcp.NewServer(reg, nil)
	if err != nil {
		panic(err)
	}
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// setServerEnv points the fixture's MCP server at this test binary.
func setServerEnv(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LINT_HELPER_TEST_BIN", exe)
}

const lintHelper = "testdata/market/plugins/lint-helper"

func join(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Error() + "\n")
	}
	return b.String()
}

func hasProblem(ps []Problem, sev Severity, msg string) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Severity == sev && strings.Contains(p.Msg, msg) })
}

func TestLoad(t *testing.T) {
	setServerEnv(t)
	pl, problems := Load(lintHelper)
	if pl == nil {
		t.Fatalf("Load = nil:\n%s", join(problems))
	}
	dir, _ := filepath.Abs(lintHelper)
	var names []string
	for _, c := range pl.Commands {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"git:commit-msg", "review"}, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if len(pl.AgentFiles) != 1 || len(pl.SkillDirs) != 1 || pl.SkillDirs[0] != filepath.Join(dir, "skills") {
		t.Errorf("AgentFiles %v, SkillDirs %v", pl.AgentFiles, pl.SkillDirs)
	}
	hooks := pl.Hooks[policy.PreToolUse]
	if len(hooks) != 1 || hooks[0].Hooks[0].Command != "sh "+dir+"/hooks/mark.sh" {
		t.Errorf("PreToolUse hooks = %+v; want the root substituted", hooks)
	}
	if _, ok := pl.Hooks["SessionStart"]; ok {
		t.Error("an unsupported hook event was kept")
	}
	sc, ok := pl.MCPServers["counter"]
	if !ok || sc.Args[1] != "--root="+dir || sc.Env["LINT_HELPER_SERVE"] != "1" {
		t.Errorf("MCP server counter = %+v (%v)", sc, ok)
	}
	for _, w := range []struct {
		sev Severity
		msg string
	}{
		{Warning, "permissionMode is refused"},
		{Warning, "hooks is refused"},
		{Warning, "SessionStart is not supported"},
		{Info, `"outputStyles" is ignored`},
		{Info, "allowed-tools is ignored"},
	} {
		if !hasProblem(problems, w.sev, w.msg) {
			t.Errorf("no %s %q in:\n%s", w.sev, w.msg, join(problems))
		}
	}
}

func TestLoadWieldLayoutAndInlineConfig(t *testing.T) {
	pl, problems := Load("testdata/wield-layout")
	if pl == nil {
		t.Fatalf("Load = nil:\n%s", join(problems))
	}
	dir, _ := filepath.Abs("testdata/wield-layout")
	if len(pl.Commands) != 1 || pl.Commands[0].Name != "hello" {
		t.Errorf("commands = %v", pl.Commands)
	}
	if h := pl.Hooks[policy.PostToolUse]; len(h) != 1 || h[0].Hooks[0].Command != dir+"/post.sh" {
		t.Errorf("inline hooks = %+v", h)
	}
	if sc := pl.MCPServers["web"]; sc.URL != "https://mcp.example.com/mcp" {
		t.Errorf("inline MCP servers = %+v", pl.MCPServers)
	}
}

func TestLoadRefuses(t *testing.T) {
	pl, problems := Load("testdata/bad-name")
	if pl != nil || !hasProblem(problems, Error, "not kebab-case") || !hasProblem(problems, Error, `"../outside" must be a path inside the plugin`) {
		t.Errorf("Load(bad-name) = %v:\n%s", pl, join(problems))
	}
	if pl, problems := Load("testdata"); pl != nil || !hasProblem(problems, Error, "not a plugin") {
		t.Errorf("Load(testdata) = %v:\n%s", pl, join(problems))
	}
}

func TestCommandExpand(t *testing.T) {
	pl, _ := Load(lintHelper)
	dir, _ := filepath.Abs(lintHelper)
	review := pl.Commands[1]
	got := review.Expand("./tools warning")
	want := "Run the linter on ./tools and explain every finding of severity warning.\nScripts live in " + dir + "/scripts.\nFull request: ./tools warning"
	if got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	commit := pl.Commands[0]
	if got := commit.Expand("mention the issue"); !strings.HasSuffix(got, "style.\n\nmention the issue") {
		t.Errorf("Expand of a template without arguments = %q; want the arguments appended", got)
	}
}

func TestMarketplace(t *testing.T) {
	m, err := ReadMarketplace("testdata/market")
	if err != nil {
		t.Fatal(err)
	}
	want := []Source{{Path: "plugins/lint-helper"}, {Git: "https://github.com/example/remote-tools.git"}, {Git: "https://git.example.com/other.git", Ref: "v1"}}
	var got []Source
	for _, p := range m.Plugins {
		got = append(got, p.Source)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		`{"plugins":[{"name":"a","source":"../x"}]}`,
		`{"plugins":[{"name":"a","source":{"source":"svn","url":"x"}}]}`,
		`{"plugins":[{"name":"a","source":"./a"},{"name":"a","source":"./b"}]}`,
		`{"plugins":[{"name":"A b","source":"./a"}]}`,
	} {
		if _, err := ParseMarketplace([]byte(bad)); err == nil {
			t.Errorf("ParseMarketplace(%s) = nil error", bad)
		}
	}
}

// TestTrust installs the fixture plugin and checks that its hook and MCP
// server run only after the user enabled it, and not after a file of it
// changed, until it is enabled again.
func TestTrust(t *testing.T) {
	setServerEnv(t)
	marker := filepath.Join(t.TempDir(), "marker")
	t.Setenv("LINT_HELPER_MARKER", marker)
	reg := &Registry{Dir: filepath.Join(t.TempDir(), "plugins")}
	if _, _, err := reg.Add(lintHelper, "fixture"); err != nil {
		t.Fatal(err)
	}

	// use mounts what the loaded plugins bring, as wield does: hooks in
	// the policy, MCP servers in a manager, and makes one write_file call
	// and one call of each MCP tool. It returns how many MCP tools there
	// were.
	use := func(t *testing.T) (mcpTools int) {
		t.Helper()
		plugins, _, _, err := reg.Load()
		if err != nil {
			t.Fatal(err)
		}
		p := &policy.Policy{Mode: policy.ModeYolo, Hooks: &policy.Hooks{}}
		servers := map[string]mcp.ServerConfig{}
		for _, pl := range plugins {
			for ev, ms := range pl.Hooks {
				for _, m := range ms {
					if err := p.Hooks.AddHook(ev, m); err != nil {
						t.Fatal(err)
					}
				}
			}
			for name, sc := range pl.MCPServers {
				servers[pl.Name()+"_"+name] = sc
			}
		}
		wf := tool.New(tool.Spec{Name: "write_file", Description: "w"}, func(context.Context, *tool.Call, struct{}) (tool.Result, error) { return tool.Text(""), nil })
		p.Decide(t.Context(), &tool.Call{}, wf, json.RawMessage(`{}`))
		m := mcp.NewManager(servers, nil)
		defer m.Close()
		tools, errs := m.Tools(t.Context())
		if len(errs) > 0 {
			t.Fatalf("MCP: %v", errs)
		}
		for _, tl := range tools {
			res, err := tl.Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(`{}`))
			if err != nil || !strings.HasSuffix(res.Output, "counted") {
				t.Errorf("%s = %+v, %v", tl.Name(), res, err)
			}
		}
		return len(tools)
	}
	hookRuns := func() int {
		b, _ := os.ReadFile(marker)
		return strings.Count(string(b), "hook ran")
	}

	if n := use(t); n != 0 || hookRuns() != 0 {
		t.Fatalf("before trust: %d MCP tools, %d hook runs; want none", n, hookRuns())
	}
	_, pending, _, _ := reg.Load()
	if diff := cmp.Diff([]Pending{{Name: "lint-helper"}}, pending); diff != "" {
		t.Errorf("pending before trust (-want +got):\n%s", diff)
	}

	h, err := Hash(reg.PluginDir("lint-helper"))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Enable("lint-helper", "sha256:0000"); err == nil {
		t.Error("Enable with a hash the user was not shown succeeded")
	}
	if err := reg.Enable("lint-helper", h); err != nil {
		t.Fatal(err)
	}
	if n := use(t); n != 1 || hookRuns() != 1 {
		t.Fatalf("after trust: %d MCP tools, %d hook runs; want 1 and 1", n, hookRuns())
	}

	// A changed file asks again: nothing of the plugin runs.
	script := filepath.Join(reg.PluginDir("lint-helper"), "hooks", "mark.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho changed >> \"$LINT_HELPER_MARKER\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if n := use(t); n != 0 || hookRuns() != 1 {
		t.Fatalf("after a change: %d MCP tools, %d hook runs; want 0 and still 1", n, hookRuns())
	}
	_, pending, _, _ = reg.Load()
	if diff := cmp.Diff([]Pending{{Name: "lint-helper", Changed: true}}, pending); diff != "" {
		t.Errorf("pending after a change (-want +got):\n%s", diff)
	}
	h2, _ := Hash(reg.PluginDir("lint-helper"))
	if h2 == h {
		t.Fatal("the hash did not change with the file")
	}
	if err := reg.Enable("lint-helper", h2); err != nil {
		t.Fatal(err)
	}
	if plugins, _, _, _ := reg.Load(); len(plugins) != 1 {
		t.Errorf("after trusting again: %d plugins loaded, want 1", len(plugins))
	}

	if err := reg.Disable("lint-helper"); err != nil {
		t.Fatal(err)
	}
	if plugins, _, _, _ := reg.Load(); len(plugins) != 0 {
		t.Error("a disabled plugin loaded")
	}
	if err := reg.Remove("lint-helper"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := reg.List(); len(entries) != 0 {
		t.Errorf("after Remove: %v", entries)
	}
	if _, err := os.Stat(reg.PluginDir("lint-helper")); !os.IsNotExist(err) {
		t.Errorf("the plugin's copy is still there: %v", err)
	}
}
