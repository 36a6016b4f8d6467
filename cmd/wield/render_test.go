package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
)

// update reports whether -update asks to rewrite the golden files in
// testdata/render. teatest's golden package defines the flag, which the
// chat's tests bring in.
func update() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/render/name, or writes it with
// -update. Escapes are shown as ␛ so that the files read in a review.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, "\033", "␛")
	path := filepath.Join("testdata", "render", name)
	if update() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

// testWorkspace makes a git-less workspace with main.go and an isolated
// home, so that no user config or settings leak in.
func testWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WIELD_HOME", "")
	t.Setenv("WIELD_MODEL", "")
	t.Setenv("NO_COLOR", "")
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// streamScript is a run with text, a read, a search, an edit and a shell
// line that need approval, and an answer. (Parallel calls would print in
// any order.)
const streamScript = `{"round": 1, "text": "Let me look.", "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "main.go"}}]}
{"round": 2, "tool_calls": [{"id": "c2", "name": "search_file_content", "arguments": {"pattern": "println", "include": "*.go"}}]}
{"round": 3, "text": "Now the fix.\n", "tool_calls": [{"id": "c3", "name": "replace", "arguments": {"path": "main.go", "old_string": "println(\"hi\")", "new_string": "println(\"hello\")"}}, {"id": "c4", "name": "run_shell_command", "arguments": {"command": "rm -rf build"}}]}
{"round": 4, "text": "Done: main.go says hello."}
`

// durations vary from run to run.
var durations = regexp.MustCompile(`\((<1ms|[0-9.]+(µs|ms|s))\)`)

func runStream(t *testing.T, ctx context.Context, ws string, shared bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "script.jsonl"), []byte(streamScript), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	errw := &errb
	if shared {
		errw = &out
	}
	code = run(ctx, append([]string{"--workdir", ws}, args...), strings.NewReader(""), &out, errw)
	clean := func(s string) string { return durations.ReplaceAllString(s, "(DUR)") }
	return clean(out.String()), clean(errb.String()), code
}

// TestRunStream: wield run's output, as a pipe sees it (plain, tool lines
// on stderr), as a terminal does (styles; one screen for both streams, so
// text is ended before a tool line), with NO_COLOR, and with -v. A
// headless denial is shown once and ends the run with exit status 3.
func TestRunStream(t *testing.T) {
	tests := []struct {
		name    string
		shared  bool
		noColor bool
		args    []string
	}{
		{"pipe", false, false, nil},
		{"tty", true, false, []string{"--tty"}},
		{"tty_no_color", true, true, []string{"--tty"}},
		{"verbose", true, true, []string{"--tty", "-v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := testWorkspace(t)
			if tt.noColor {
				t.Setenv("NO_COLOR", "1")
			}
			args := append(tt.args, "run", "--replay", filepath.Join(ws, "script.jsonl"), "--new", "--session", "s1", "fix the greeting")
			stdout, stderr, code := runStream(t, t.Context(), ws, tt.shared, args...)
			if code != exitDenied {
				t.Errorf("exit status %d, want %d (a call was denied for want of approval)", code, exitDenied)
			}
			if n := strings.Count(stdout+stderr, "needs approval and nobody can give it"); n != 2 {
				t.Errorf("the two denials are shown %d times, want once each", n)
			}
			if tt.noColor || !tt.shared {
				if strings.Contains(stdout+stderr, "\033") {
					t.Errorf("escapes in plain output:\n%q", stdout+stderr)
				}
			}
			golden(t, "stream_"+tt.name+".txt", "-- stdout --\n"+stdout+"-- stderr --\n"+stderr)
		})
	}
}

// TestRunJSON: --json prints only JSON lines, each with the schema
// version and a kind docs/cli.md documents.
func TestRunJSON(t *testing.T) {
	ws := testWorkspace(t)
	stdout, _, code := runStream(t, t.Context(), ws, false, "run", "--json", "--replay", filepath.Join(ws, "script.jsonl"), "fix")
	if code != exitDenied {
		t.Errorf("exit status %d, want %d", code, exitDenied)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(stdout), "\n") {
		var e struct {
			V    int    `json:"v"`
			Kind string `json:"kind"`
			Call *struct {
				Tool      string          `json:"tool"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"call"`
			DurationMs *float64 `json:"duration_ms"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		if e.V != eventSchema {
			t.Errorf("line %q: v = %d, want %d", line, e.V, eventSchema)
		}
		kinds[e.Kind]++
		if !strings.Contains(string(doc), "`"+e.Kind+"`") {
			t.Errorf("kind %q is not documented in docs/cli.md", e.Kind)
		}
		if e.Kind == "call_started" && len(e.Call.Arguments) == 0 {
			t.Errorf("call_started without arguments: %s", line)
		}
		if e.Kind == "call_finished" && e.DurationMs == nil {
			t.Errorf("call_finished without duration_ms: %s", line)
		}
	}
	for _, k := range []string{"run_started", "round_started", "text_delta", "call_started", "call_finished", "round_finished", "run_finished"} {
		if kinds[k] == 0 {
			t.Errorf("no %s event", k)
		}
	}
}

// TestRunExitCodes: the documented exit statuses.
func TestRunExitCodes(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		args []string
		file string // a replay script, if not the default one
		want int
	}{
		{"answered", t.Context(), []string{"run", "--replay", "ok.jsonl", "x"}, `{"round": 1, "text": "fine"}`, exitOK},
		{"model failed", t.Context(), []string{"run", "--replay", "ok.jsonl", "x"}, `{"round": 1, "error": {"status": 400, "message": "boom"}}`, exitToolFailure},
		{"usage", t.Context(), []string{"run", "--no-such-flag", "x"}, "", exitUsage},
		{"denied", t.Context(), []string{"run", "--replay", "script.jsonl", "x"}, "", exitDenied},
		{"interrupted", cancelled, []string{"run", "--replay", "ok.jsonl", "x"}, `{"round": 1, "text": "fine"}`, exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := testWorkspace(t)
			if tt.file != "" {
				os.WriteFile(filepath.Join(ws, "ok.jsonl"), []byte(tt.file+"\n"), 0o644)
			}
			for i, a := range tt.args {
				if strings.HasSuffix(a, ".jsonl") {
					tt.args[i] = filepath.Join(ws, a)
				}
			}
			_, stderr, code := runStream(t, tt.ctx, ws, false, tt.args...)
			if code != tt.want {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.want, stderr)
			}
			if lines := strings.Split(strings.TrimSpace(stderr), "\n"); tt.want == exitToolFailure && len(lines) != 1 {
				t.Errorf("the failure is not printed exactly once:\n%s", stderr)
			}
		})
	}
}

// TestApprovalRendering: what a person sees before approving an edit (a
// diff with line numbers and visible whitespace) and a shell line (each
// command judged), in colour and plain.
func TestApprovalRendering(t *testing.T) {
	ws := testWorkspace(t)
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pol := &policy.Policy{Root: ws}
	pol.Add(policy.Allow, policy.Rule{Tool: "run_shell_command", Specifier: "go test:*"})
	pol.Add(policy.Deny, policy.Rule{Tool: "run_shell_command", Specifier: "git push:*"})
	edit := json.RawMessage(`{"path": "main.go", "old_string": "\tprintln(\"hi\")", "new_string": "\tprintln(\"hello\")  \n\tprintln(\"bye\")"}`)
	shell := json.RawMessage(`{"command": "go test ./... && rm -rf build; git push --force"}`)
	for _, color := range []bool{true, false} {
		pal := palette{color: color}
		name := map[bool]string{true: "color", false: "plain"}[color]
		got := approvalPreview(pal, pol, &tool.Call{Root: root}, "replace", edit)
		golden(t, "approve_diff_"+name+".txt", got)
		got = approvalPreview(pal, pol, &tool.Call{Root: root}, "run_shell_command", shell)
		golden(t, "approve_shell_"+name+".txt", got)
	}
}

// TestRenderChangeMatchesDiffU: the lines of an approval's diff, without
// line numbers and whitespace markers, are diff -u's.
func TestRenderChangeMatchesDiffU(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old"), []byte(old), 0o644)
	os.WriteFile(filepath.Join(dir, "new"), []byte(new), 0o644)
	out, _ := exec.Command("diff", "-U3", filepath.Join(dir, "old"), filepath.Join(dir, "new")).Output()
	if len(out) == 0 {
		t.Fatal("diff gave no output")
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n")[2:] {
		if strings.HasPrefix(l, "@@") {
			continue
		}
		want = append(want, l)
	}
	var got []string
	lines := strings.Split(strings.TrimSpace(renderChange(palette{}, fs.Change{Path: "f", Old: old, New: new})), "\n")
	for _, l := range lines[1:] { // the file line
		if strings.HasPrefix(l, "@@") {
			continue
		}
		// "NN NN  text", "NN    -text", "   NN +text": the numbers are two
		// columns wide here (the texts have up to 10 lines).
		body := l[len("NN NN "):]
		got = append(got, body)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renderChange lines differ from diff -U3 (-want +got):\n%s", diff)
	}
}

// builtinSpecs returns the specs of wield's own tools, by name, built
// the way a run builds them (no MCP servers, no desktop).
func builtinSpecs(t *testing.T) map[string]tool.Spec {
	t.Helper()
	g := &globals{workdir: t.TempDir(), noMCP: true, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	t.Cleanup(func() { g.close() })
	cfg, err := g.toolsConfig(toolDeps{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := g.box.Tools(cfg)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]tool.Spec{}
	for _, x := range ts {
		specs[x.Name()] = x.Spec()
	}
	return specs
}

func TestKeyArg(t *testing.T) {
	specs := builtinSpecs(t)
	tests := []struct {
		tool, args, want string
	}{
		{"read_file", `{"path":"a.go","offset":3}`, "a.go"},
		{"search_file_content", `{"pattern":"TODO","path":"src"}`, "TODO in src"},
		{"glob", `{"pattern":"*.go","path":"cmd"}`, "*.go in cmd"},
		{"run_shell_command", `{"command":"go test ./...\n  && ls"}`, "go test ./... && ls"},
		{"web_fetch", `{"url":"https://go.dev","prompt":"x"}`, "https://go.dev"},
		{"read_many_files", `{"paths":["a","b"]}`, "a b"},
		{"memory", `{"command":"view","path":"/memories"}`, "view in /memories"},
		{"mcp__gh__get_issue", `{"owner":"o","id":7}`, "7"},
		{"declared", `{"flag":true}`, ""},
		{"echo", `not json`, ""},
	}
	for _, tt := range tests {
		spec, ok := specs[tt.tool]
		if !ok {
			spec = tool.Spec{Name: tt.tool}
		}
		if got := keyArg(spec, json.RawMessage(tt.args), 80); got != tt.want {
			t.Errorf("keyArg(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

func TestToolSummary(t *testing.T) {
	code := 2
	tests := []struct {
		name string
		res  tool.Result
		want string
	}{
		{"whole file", tool.Result{Success: true, Data: fs.ReadData{StartLine: 1, EndLine: 5, TotalLines: 5}}, "✓ 5 lines"},
		{"part of a file", tool.Result{Success: true, Data: fs.ReadData{StartLine: 10, EndLine: 20, TotalLines: 90}}, "✓ lines 10-20 of 90"},
		{"search", tool.Result{Success: true, Data: fs.SearchData{Total: 3, Files: 1}}, "✓ 3 matches in 1 file"},
		{"edit", tool.Result{Success: true, Data: fs.ReplaceData{Added: 2, Removed: 1}}, "✓ +2 -1"},
		{"new file", tool.Result{Success: true, Data: fs.WriteData{Created: true, Lines: 3}}, "✓ created, 3 lines"},
		{"shell failure", tool.Result{Success: false, Error: "exit code 2", Output: "a\nb\n\nlast\n", Data: map[string]any{"exit_code": float64(code)}},
			"✗ exit 2\n    a\n    b\n    last"},
		{"another tool's total", tool.Result{Success: true, Output: "one line", Data: map[string]any{"total": 4.0}}, "✓ one line"},
	}
	for _, tt := range tests {
		got := durations.ReplaceAllString(toolSummary(palette{}, &tt.res, 0), "")
		got = strings.TrimSpace(strings.ReplaceAll(got, " \n", "\n"))
		if got != tt.want {
			t.Errorf("toolSummary(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestBuiltinToolFacts: every tool of wield's own declares its effect;
// the tools that write files or run commands name the argument a tool
// line shows and a ledger reads; and the tools' Claude Code aliases are
// the names tool.FromClaudeCode maps, both ways, so that the registry-free
// reading of settings rules agrees with the registry.
func TestBuiltinToolFacts(t *testing.T) {
	specs := builtinSpecs(t)
	// Tools that run programs without a command line to show: run_code
	// runs its code field, which a tool line leaves out.
	noCommandLine := map[string]bool{"run_code": true}
	aliases := map[string]string{}
	for name, s := range specs {
		if !s.Effect.Known() {
			t.Errorf("%s declares no effect", name)
		}
		if s.Effect.Has(tool.EffectWrite) && len(s.KeyArgs) == 0 {
			t.Errorf("%s writes files (effect %s) but names no key argument", name, s.Effect)
		}
		if s.Effect.Has(tool.EffectRun) && len(s.KeyArgs) == 0 && !noCommandLine[name] {
			t.Errorf("%s runs commands (effect %s) but names no key argument", name, s.Effect)
		}
		for _, a := range s.Aliases {
			if other, ok := aliases[a]; ok {
				t.Errorf("alias %s is claimed by %s and %s", a, other, name)
			}
			aliases[a] = name
			if got, ok := tool.FromClaudeCode(a); !ok || got != name {
				t.Errorf("tool.FromClaudeCode(%q) = %q, %v; the spec of %s has the alias", a, got, ok, name)
			}
		}
	}
	for _, cc := range []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite"} {
		want, _ := tool.FromClaudeCode(cc)
		if aliases[cc] != want {
			t.Errorf("tool.FromClaudeCode(%q) = %q, but the built-in tool with that alias is %q", cc, want, aliases[cc])
		}
	}
}

// TestPrettyJSON: -v shows a call's arguments indented, its strings as
// the model wrote them (no \u0026 for &&), and text that is not JSON as
// it is.
func TestPrettyJSON(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"command":"go vet ./... && echo <ok>"}`, "{\n  \"command\": \"go vet ./... && echo <ok>\"\n}"},
		{`{"a":[1,{"b":"é"}]}`, "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"é\"\n    }\n  ]\n}"},
		{`{"broken":`, `{"broken":`},
	}
	for _, tt := range tests {
		if got := prettyJSON(json.RawMessage(tt.raw)); got != tt.want {
			t.Errorf("prettyJSON(%s) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
