package subagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// problem is a Problem as the tests expect it: its line, severity and a
// part of its message.
type problem struct {
	line int
	sev  Severity
	msg  string
}

func checkProblems(t *testing.T, got []Problem, want []problem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), problemList(got))
	}
	for i, w := range want {
		g := got[i]
		if g.Line != w.line || g.Severity != w.sev || !strings.Contains(g.Msg, w.msg) {
			t.Errorf("problem %d = %v, want line %d, %s, containing %q", i, g, w.line, w.sev, w.msg)
		}
	}
}

func problemList(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("\t" + p.Error() + "\n")
	}
	return b.String()
}

func TestParse(t *testing.T) {
	tests := []struct {
		file     string
		want     *Definition // nil: the file is rejected
		problems []problem
	}{
		{
			file: "claude.md",
			want: &Definition{
				Name:            "code-reviewer",
				Description:     "Reviews code for quality and security. Use right after writing or changing code.",
				Tools:           []string{"Read", "Grep", "Glob", "Bash"},
				DisallowedTools: []string{"Write", "Edit"},
				Model:           "sonnet",
				MaxTurns:        15,
				Prompt:          "You are a senior code reviewer.\n\nRun git diff, then review what changed.",
			},
			problems: []problem{
				{8, Info, "color is ignored"},
				{9, Info, "permissionMode is ignored: a child always runs in its parent's permission mode"},
			},
		},
		{
			file: "gemini.md",
			want: &Definition{
				Name:        "researcher",
				Description: "Finds things out in the codebase.",
				Tools:       []string{"read_file", "search_file_content", "mcp_github_*"},
				MaxTurns:    30,
				Timeout:     2*time.Minute + 30*time.Second,
				Prompt:      "You research.",
			},
			problems: []problem{{4, Info, "kind is ignored"}, {11, Info, "temperature is ignored"}},
		},
		{
			file:     "unknown-key.md",
			want:     &Definition{Name: "helper", Description: "Helps.", Prompt: "Help."},
			problems: []problem{{4, Warning, `unknown key "favourite" is ignored`}},
		},
		{
			file:     "broken-yaml.md",
			problems: []problem{{4, Error, "the frontmatter is not valid YAML: did not find expected ',' or ']'"}},
		},
		{
			file:     "missing-name.md",
			problems: []problem{{1, Error, "the definition has no name"}},
		},
		{
			file:     "bad-name.md",
			problems: []problem{{2, Error, `name "Code_Reviewer" is not a valid agent name`}},
		},
		{
			file:     "no-description.md",
			problems: []problem{{1, Error, "the definition has no description"}},
		},
		{
			file:     "no-frontmatter.md",
			problems: []problem{{1, Error, "no frontmatter"}},
		},
		{
			file: "output-yaml.md",
			want: &Definition{
				Name:        "triage",
				Description: "Triages an issue.",
				Output:      json.RawMessage(`{"type":"object","properties":{"severity":{"enum":["low","high"]},"files":{"type":"array","items":{"type":"string"}}},"required":["severity"]}`),
				Prompt:      "Triage the issue.",
			},
		},
		{
			file: "output-json.md",
			want: &Definition{
				Name:        "triage-json",
				Description: "Triages an issue.",
				Timeout:     10 * time.Minute,
				Output:      json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
				Prompt:      "Triage.",
			},
		},
		{
			file:     "output-invalid.md",
			problems: []problem{{5, Error, "output: invalid schema: /properties/severity/type"}},
		},
		{
			file:     "both-aliases.md",
			problems: []problem{{5, Error, "give either maxTurns or max_turns, not both"}},
		},
		{
			file:     "duplicate-key.md",
			problems: []problem{{5, Error, "tools is given twice (first on line 4)"}},
		},
		{
			file: "tool-arguments.md",
			want: &Definition{
				Name:            "git-helper",
				Description:     "Runs git.",
				Tools:           []string{"Bash(git:*)", "Read", "Agent(a, b)"},
				DisallowedTools: []string{"Bash(rm:*)"},
				Prompt:          "Body.",
			},
			problems: []problem{
				{4, Warning, `"Bash(git:*)" allows nothing`},
				{4, Warning, `"Agent(a, b)" allows nothing`},
				{5, Warning, `"Bash(rm:*)" disallows every call of Bash`},
			},
		},
		{
			file: "no-tools.md",
			want: &Definition{Name: "thinker", Description: "Only thinks.", Tools: []string{}, Prompt: "Think."},
		},
		{
			file: "bad-values.md",
			problems: []problem{
				{4, Error, "maxTurns must be a whole number"},
				{5, Error, `timeout must be a duration such as "10m"`},
				{6, Error, `"Read Grep" is not a tool name or pattern (tool names are separated by commas)`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "parse", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, problems := Parse(data)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse definition (-want +got):\n%s", diff)
			}
			checkProblems(t, problems, tt.problems)
		})
	}
}

func TestParse_inline(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     *Definition
		problems []problem
	}{
		{
			name: "model inherit is empty",
			in:   "---\nname: a\ndescription: d\nmodel: inherit\n---\n",
			want: &Definition{Name: "a", Description: "d"},
		},
		{
			name: "null tools are the parent's",
			in:   "---\nname: a\ndescription: d\ntools:\n---\n",
			want: &Definition{Name: "a", Description: "d"},
		},
		{
			name: "empty list is no tools",
			in:   "---\nname: a\ndescription: d\ntools: []\n---\n",
			want: &Definition{Name: "a", Description: "d", Tools: []string{}},
		},
		{
			name: "byte order mark and CRLF",
			in:   "\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\n\r\nHello.\r\n",
			want: &Definition{Name: "a", Description: "d", Prompt: "Hello."},
		},
		{
			name: "output as a JSON string",
			in:   "---\nname: a\ndescription: d\noutput: '{\"type\": \"object\"}'\n---\n",
			want: &Definition{Name: "a", Description: "d", Output: json.RawMessage(`{"type":"object"}`)},
		},
		{
			name:     "output not a mapping",
			in:       "---\nname: a\ndescription: d\noutput: [1, 2]\n---\n",
			problems: []problem{{4, Error, "output must be a JSON Schema object"}},
		},
		{
			name:     "output with a number JSON cannot hold",
			in:       "---\nname: a\ndescription: d\noutput:\n  maximum: .inf\n---\n",
			problems: []problem{{5, Error, `output: ".inf" is not a JSON value`}},
		},
		{
			name:     "output with a key given twice",
			in:       "---\nname: a\ndescription: d\noutput:\n  type: object\n  properties:\n    a: {}\n    a: {}\n---\n",
			problems: []problem{{8, Error, `output: key "a" is given twice`}},
		},
		{
			name:     "timeout_mins negative",
			in:       "---\nname: a\ndescription: d\ntimeout_mins: -1\n---\n",
			problems: []problem{{4, Error, "timeout_mins must be a number of minutes"}},
		},
		{
			name:     "unclosed frontmatter",
			in:       "---\nname: a\ndescription: d\n",
			problems: []problem{{1, Error, "no frontmatter"}},
		},
		{
			name:     "frontmatter a list",
			in:       "---\n- name: a\n---\n",
			problems: []problem{{2, Error, "the frontmatter must be a mapping"}},
		},
		{
			name:     "bad pattern",
			in:       "---\nname: a\ndescription: d\ntools:\n  - read_file\n  - 'mcp_[x'\n---\n",
			problems: []problem{{6, Error, `"mcp_[x" is not a valid pattern`}},
		},
		{
			name:     "a second document",
			in:       "---\nname: a\ndescription: d\n--- {b: 1}\n---\n",
			problems: []problem{{4, Error, "a second YAML document"}},
		},
		{
			name:     "unclosed parenthesis",
			in:       "---\nname: a\ndescription: d\ntools: Bash(git\n---\n",
			problems: []problem{{4, Error, `"Bash(git" lacks its closing parenthesis`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := Parse([]byte(tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
			checkProblems(t, problems, tt.problems)
		})
	}
}

func TestDefinition_ToolsFrom(t *testing.T) {
	parent := []string{
		"read_file", "replace", "run_shell_command", "search_file_content", "agent",
		"mcp__github__create_issue", "mcp__github__list_prs", "mcp__slack__post",
	}
	tests := []struct {
		name       string
		tools      []string
		disallowed []string
		want       []string
	}{
		{"nil is the parent's", nil, nil, parent},
		{"empty is none", []string{}, nil, []string{}},
		{"Claude Code names", []string{"Read", "Grep"}, nil, []string{"read_file", "search_file_content"}},
		{"wildcard", []string{"mcp__github__*"}, nil, []string{"mcp__github__create_issue", "mcp__github__list_prs"}},
		{"gemini wildcard", []string{"mcp_*"}, nil, []string{"mcp__github__create_issue", "mcp__github__list_prs", "mcp__slack__post"}},
		{"star minus a family", []string{"*"}, []string{"mcp__*"}, []string{"read_file", "replace", "run_shell_command", "search_file_content", "agent"}},
		{"never widens", []string{"read_file", "write_file", "web_fetch"}, nil, []string{"read_file"}},
		{"arguments allow nothing", []string{"Bash(git:*)", "Agent(reviewer)"}, nil, []string{}},
		{"arguments take the whole tool away", nil, []string{"Bash(rm:*)"}, []string{"read_file", "replace", "search_file_content", "agent", "mcp__github__create_issue", "mcp__github__list_prs", "mcp__slack__post"}},
		{"disallowed wins over allowed", []string{"Edit", "Read"}, []string{"replace"}, []string{"read_file"}},
		{"question mark and class", []string{"mcp__[gs]*__?ost"}, nil, []string{"mcp__slack__post"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Definition{Tools: tt.tools, DisallowedTools: tt.disallowed}
			if diff := cmp.Diff(tt.want, d.ToolsFrom(parent)); diff != "" {
				t.Errorf("ToolsFrom (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefinition_ToolsOf: with the parent's specs at hand, an entry names
// a tool by the aliases its spec declares, whatever the tool is called.
func TestDefinition_ToolsOf(t *testing.T) {
	parent := []tool.Spec{
		{Name: "sh", Aliases: []string{"Bash"}},
		{Name: "cat", Aliases: []string{"Read"}},
		{Name: "read_file"},
	}
	tests := []struct {
		name              string
		tools, disallowed []string
		want              []string
	}{
		{"aliases", []string{"Read"}, nil, []string{"cat"}},
		{"names", []string{"read_file", "sh"}, nil, []string{"sh", "read_file"}},
		{"an alias with arguments takes the tool away", nil, []string{"Bash(rm:*)"}, []string{"cat", "read_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Definition{Tools: tt.tools, DisallowedTools: tt.disallowed}
			if diff := cmp.Diff(tt.want, d.ToolsOf(parent)); diff != "" {
				t.Errorf("ToolsOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDirs(t *testing.T) {
	ws, home, cfg := filepath.FromSlash("/src/p"), filepath.FromSlash("/home/u"), filepath.FromSlash("/home/u/.config/wield")
	got := Dirs(ws, workspace.UserLayout{Dir: cfg}, home)
	want := []Dir{
		{filepath.FromSlash("/src/p/.wield/agents"), ScopeWorkspace},
		{filepath.FromSlash("/src/p/.claude/agents"), ScopeWorkspace},
		{filepath.FromSlash("/src/p/.gemini/agents"), ScopeWorkspace},
		{filepath.FromSlash("/src/p/.agents/agents"), ScopeWorkspace},
		{filepath.FromSlash("/home/u/.config/wield/agents"), ScopeUser},
		{filepath.FromSlash("/home/u/.claude/agents"), ScopeUser},
		{filepath.FromSlash("/home/u/.gemini/agents"), ScopeUser},
		{filepath.FromSlash("/home/u/.agents/agents"), ScopeUser},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Dirs (-want +got):\n%s", diff)
	}
	// In the home directory, the workspace's directories are the user's:
	// each is searched once, as the workspace's.
	got = Dirs(home, workspace.UserLayout{}, home)
	if len(got) != 4 || got[1].Path != filepath.Join(home, ".claude", "agents") || got[1].Scope != ScopeWorkspace {
		t.Errorf("Dirs(home, none, home) = %v, want the four workspace directories once", got)
	}
	if got := Dirs("", workspace.UserLayout{}, ""); len(got) != 0 {
		t.Errorf("Dirs of nothing = %v, want none", got)
	}
}

func TestLoad(t *testing.T) {
	base := filepath.Join("testdata", "load")
	dirs := Dirs(filepath.Join(base, "ws"), workspace.UserLayout{Dir: filepath.Join(base, "config", "wield")}, filepath.Join(base, "home"))
	set, problems := Load(dirs...)

	if diff := cmp.Diff([]string{"general", "planner", "research", "researcher", "reviewer"}, set.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name, source string
		scope        Scope
	}{
		{"reviewer", filepath.Join(base, "ws", ".wield", "agents", "reviewer.md"), ScopeWorkspace},
		{"researcher", filepath.Join(base, "ws", ".gemini", "agents", "researcher.md"), ScopeWorkspace},
		{"planner", filepath.Join(base, "config", "wield", "agents", "planner.md"), ScopeUser},
		{"general", "", ScopeBuiltin},
	} {
		d, ok := set.Get(tt.name)
		if !ok {
			t.Errorf("Get(%q) found nothing", tt.name)
			continue
		}
		if d.Source != tt.source || d.Scope != tt.scope {
			t.Errorf("Get(%q) = source %q, scope %q; want %q, %q", tt.name, d.Source, d.Scope, tt.source, tt.scope)
		}
	}
	if _, ok := set.Get("nobody"); ok {
		t.Error(`Get("nobody") found a definition`)
	}

	want := []struct {
		path string
		p    problem
	}{
		{filepath.Join(base, "ws", ".claude", "agents", "broken.md"), problem{1, Error, "no name"}},
		{filepath.Join(base, "ws", ".claude", "agents", "code-reviewer.md"), problem{0, Info, `agent "reviewer" is shadowed by ` + filepath.Join(base, "ws", ".wield", "agents", "reviewer.md")}},
		{filepath.Join(base, "home", ".claude", "agents", "researcher.md"), problem{4, Info, "color is ignored"}},
		{filepath.Join(base, "home", ".claude", "agents", "researcher.md"), problem{0, Info, `agent "researcher" is shadowed`}},
	}
	if len(problems) != len(want) {
		t.Fatalf("Load: %d problems, want %d:\n%s", len(problems), len(want), problemList(problems))
	}
	for i, w := range want {
		if problems[i].Path != w.path {
			t.Errorf("problem %d = %v, want it about %s", i, problems[i], w.path)
		}
	}
	ps := make([]problem, len(want))
	for i, w := range want {
		ps[i] = w.p
	}
	checkProblems(t, problems, ps)
}

func TestLoad_general(t *testing.T) {
	set, problems := Load()
	if len(problems) != 0 {
		t.Errorf("Load() problems:\n%s", problemList(problems))
	}
	g, ok := set.Get(General)
	if !ok || g.Scope != ScopeBuiltin || g.Tools != nil || g.Prompt == "" || g.Description == "" {
		t.Fatalf("Get(general) = %+v, %v; want the built-in agent with the parent's tools", g, ok)
	}

	dir := t.TempDir()
	write(t, dir, "mine.md", "---\nname: general\ndescription: My general agent.\ntools: Read\n---\nMine.\n")
	set, problems = Load(Dir{Path: dir, Scope: ScopeWorkspace})
	if len(problems) != 0 {
		t.Errorf("Load problems:\n%s", problemList(problems))
	}
	if g, _ := set.Get(General); g.Scope != ScopeWorkspace || g.Prompt != "Mine." {
		t.Errorf("Get(general) = %+v, want the file's definition", g)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_files(t *testing.T) {
	dir := t.TempDir()
	valid := "---\nname: %s\ndescription: d\n---\nPrompt.\n"
	write(t, dir, "a.md", fmt.Sprintf(valid, "alpha"))
	write(t, dir, "b.md", fmt.Sprintf(valid, "alpha")) // same directory: a warning
	write(t, dir, "big.md", fmt.Sprintf(valid, "big")+strings.Repeat("x", MaxFileSize))
	write(t, dir, ".hidden.md", fmt.Sprintf(valid, "hidden"))
	if err := os.Mkdir(filepath.Join(dir, "sub.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A link out of a workspace directory is refused.
	outside := t.TempDir()
	write(t, outside, "secret.md", fmt.Sprintf(valid, "secret"))
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	at := func(name string) string { return filepath.Join(dir, name) }

	set, problems := Load(Dir{Path: dir, Scope: ScopeWorkspace}, Dir{Path: filepath.Join(dir, "missing"), Scope: ScopeUser})
	if diff := cmp.Diff([]string{"alpha", "general", "research"}, set.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Path+" "+p.Severity.String())
	}
	want := []string{at("b.md") + " warning", at("big.md") + " error", at("link.md") + " error"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%s", diff, problemList(problems))
	}
	if len(problems) == 3 {
		if !strings.Contains(problems[1].Msg, "more than the 262144 bytes") {
			t.Errorf("oversized file: %v", problems[1])
		}
		if !strings.Contains(problems[2].Msg, "escapes") {
			t.Errorf("link out of the directory: %v, want it refused as escaping", problems[2])
		}
	}

	// The user's own directories may hold links to anywhere.
	set, problems = Load(Dir{Path: dir, Scope: ScopeUser})
	if _, ok := set.Get("secret"); !ok {
		t.Errorf("a link in a user directory was not followed:\n%s", problemList(problems))
	}
}

func TestProblem_Error(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "a.md", Line: 3, Severity: Error, Msg: "bad"}, "a.md:3: error: bad"},
		{Problem{Path: "a.md", Severity: Info, Msg: "shadowed"}, "a.md: info: shadowed"},
		{Problem{Line: 2, Severity: Warning, Msg: "unknown"}, "line 2: warning: unknown"},
		{Problem{Severity: 7, Msg: "x"}, "severity(7): x"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestFormat_roundTrip formats every valid test file and parses it back.
func TestFormat_roundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parse", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d, problems := Parse(data); d != nil {
			roundTrip(t, d, problems)
		}
	}
	roundTrip(t, general(), nil)
	roundTrip(t, research(), nil)
}

// roundTrip checks that d formats to a file that parses back to d, with
// no problem that parsing d's own file did not report (problems gives
// those; nil means none).
func roundTrip(t *testing.T, d *Definition, problems []Problem) {
	t.Helper()
	out, err := d.Format()
	if err != nil {
		t.Fatalf("Format(%s): %v", d.Name, err)
	}
	back, again := Parse(out)
	if back == nil {
		t.Fatalf("Parse(Format(%s)) failed:\n%s\n%s", d.Name, problemList(again), out)
	}
	want := *d
	want.Source, want.Scope = "", ""
	if diff := cmp.Diff(&want, back); diff != "" {
		t.Fatalf("Parse(Format(%s)) (-want +got):\n%s\nformatted:\n%s", d.Name, diff, out)
	}
	for _, p := range again {
		if !slices.ContainsFunc(problems, func(q Problem) bool { return q.Severity == p.Severity && q.Msg == p.Msg }) {
			t.Fatalf("Parse(Format(%s)) reports a new problem: %v\nformatted:\n%s", d.Name, p, out)
		}
	}
}

// FuzzParse checks that Parse never panics, that every problem is on a
// line of the input, that a definition it accepts formats to a file it
// reads back to the same definition with no new problem, and that the
// definition's tools never exceed its parent's.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "parse", "*.md"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("---\nname: a\ndescription: d\noutput: {\"maximum\": 1e400}\n---\n"))
	f.Add([]byte("---\nname: a\ndescription: \"multi\\nline\\n---\\n\"\ntools: &t [a]\ndisallowedTools: *t\n---\n\n  indented\n---\n"))
	parent := []string{"read_file", "run_shell_command", "mcp__github__x", "agent"}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, problems := Parse(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines {
				t.Errorf("problem %v is not on one of the %d lines of the input", p, lines)
			}
		}
		if d == nil {
			if !slices.ContainsFunc(problems, func(p Problem) bool { return p.Severity == Error }) {
				t.Fatalf("Parse rejected the input without an error:\n%s", problemList(problems))
			}
			return
		}
		roundTrip(t, d, problems)
		for _, name := range d.ToolsFrom(parent) {
			if !slices.Contains(parent, name) {
				t.Fatalf("ToolsFrom gave %q, which the parent does not have", name)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "parse", "claude.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d, _ := Parse(data); d == nil {
			b.Fatal("Parse failed")
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	base := filepath.Join("testdata", "load")
	dirs := Dirs(filepath.Join(base, "ws"), workspace.UserLayout{Dir: filepath.Join(base, "config", "wield")}, filepath.Join(base, "home"))
	b.ReportAllocs()
	for b.Loop() {
		Load(dirs...)
	}
}

// TestResearchReadsOnly checks the built-in research agent: from a parent
// with every tool it gets the web and read_file, nothing that writes.
func TestResearchReadsOnly(t *testing.T) {
	set, _ := Load()
	d, ok := set.Get(Research)
	if !ok {
		t.Fatal("no built-in research agent")
	}
	parent := []string{"read_file", "write_file", "replace", "run_shell_command", "web_fetch", "web_search", "agent", "todo"}
	if diff := cmp.Diff([]string{"read_file", "web_fetch", "web_search"}, d.ToolsFrom(parent)); diff != "" {
		t.Errorf("research's tools (-want +got):\n%s", diff)
	}
}
