package policy

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// sessionModes is a ModeSource over a map, changed by tests as a session
// store is by SetMode.
type sessionModes struct {
	mu    sync.Mutex
	modes map[string]Mode
}

func (s *sessionModes) Mode(id string) (Mode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.modes[id]
	return m, ok
}

func (s *sessionModes) set(id string, m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes[id] = m
}

// alwaysYes is a person who allows every call put to them.
type alwaysYes struct{ asked []string }

func (a *alwaysYes) Approve(_ context.Context, _ *tool.Call, t *tool.Tool, _ json.RawMessage, _ tool.Decision) tool.Decision {
	a.asked = append(a.asked, t.Name())
	return tool.Decision{Verdict: tool.Allow, Reason: "the user said yes"}
}

// TestPlanMode: in plan mode a write, a shell line that is not read-only
// and anything else that changes things are denied, whatever the rules,
// the hooks or the person say; the plan file may be written; read-only
// calls go on to the rules as in the default mode.
func TestPlanMode(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".wield", "plans", "s2"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A link planted in another session's plan directory points at code.
	if err := os.Symlink(filepath.Join(root, "main.go"), filepath.Join(root, ".wield", "plans", "s2", "evil.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(root, ".wield", "plans", "s3")); err != nil {
		t.Fatal(err)
	}
	modes := &sessionModes{modes: map[string]Mode{"s1": ModePlan, "s2": ModePlan, "s3": ModePlan, "done": ModeDefault}}
	newPolicy := func(allow []string) *Policy {
		p := mustPolicy(t, ModeDefault, allow, nil, nil)
		p.Root, p.Modes = root, modes
		return p
	}
	write := fakeTool(t, "write_file", tool.Annotations{Destructive: true})
	replace := fakeTool(t, "replace", tool.Annotations{Destructive: true})
	read := fakeTool(t, "read_file", tool.Annotations{ReadOnly: true})
	sh := fakeTool(t, "run_shell_command", tool.Annotations{Destructive: true})
	mcpTool := fakeTool(t, "mcp__github__create_issue", tool.Annotations{})
	path := func(p string) json.RawMessage { b, _ := json.Marshal(map[string]string{"path": p}); return b }
	everything := []string{"write_file", "replace", "Bash", "mcp__github__*"}
	tests := []struct {
		name    string
		allow   []string
		session string
		tool    *tool.Tool
		args    json.RawMessage
		want    tool.Verdict
		inMsg   string
	}{
		{"write to code", everything, "s1", write, path("main.go"), tool.Deny, "plan mode: write_file may write only the session's plan file"},
		{"replace in code", everything, "s1", replace, path("src/a.go"), tool.Deny, "describe the change in the plan instead"},
		{"plan file", nil, "s1", write, path(".wield/plans/s1/fix-the-bug.md"), tool.Allow, "plan file"},
		{"plan file, absolute", nil, "s1", write, path(root + "/.wield/plans/s1/x.md"), tool.Allow, ""},
		{"plan file, edited", nil, "s1", replace, path(".wield/plans/s1/x.md"), tool.Allow, ""},
		{"plan file, dotdot out", everything, "s1", write, path(".wield/plans/s1/../../../main.go"), tool.Deny, "not a .md file"},
		{"plan file, dotdot to another session", everything, "s1", write, path(".wield/plans/s1/../s2/x.md"), tool.Deny, ".wield/plans/s1/"},
		{"another session's plan", everything, "s1", write, path(".wield/plans/s2/x.md"), tool.Deny, "not a .md file in .wield/plans/s1/"},
		{"outside the workspace", everything, "s1", write, path("../x.md"), tool.Deny, "outside the workspace"},
		{"not markdown", everything, "s1", write, path(".wield/plans/s1/run.sh"), tool.Deny, "not a .md file"},
		{"subdirectory", everything, "s1", write, path(".wield/plans/s1/sub/x.md"), tool.Deny, "not a .md file"},
		{"symlinked plan file", everything, "s2", write, path(".wield/plans/s2/evil.md"), tool.Deny, "symbolic link"},
		{"symlinked plan dir", everything, "s3", write, path(".wield/plans/s3/x.md"), tool.Deny, "symbolic link"},
		{"shell that writes", everything, "s1", sh, shellArgs("echo hi > notes.txt"), tool.Deny, "plan mode: only read-only shell commands run"},
		{"shell rm, allowed by a rule", everything, "s1", sh, shellArgs("ls && rm -rf build"), tool.Deny, "rm is not a read-only command"},
		{"shell sed -i", everything, "s1", sh, shellArgs("sed -i s/a/b/ x"), tool.Deny, "sed is not a read-only command"},
		{"shell git commit", everything, "s1", sh, shellArgs("git commit -am x"), tool.Deny, "git commit is not a read-only git command"},
		{"shell read-only, no rule", nil, "s1", sh, shellArgs("git status && ls -la | head"), tool.Ask, "no rule allows"},
		{"shell read-only, allowed", []string{"Bash(git status)", "Bash(ls:*)"}, "s1", sh, shellArgs("git status; ls src"), tool.Allow, ""},
		{"other tool that changes things", everything, "s1", mcpTool, json.RawMessage(`{}`), tool.Deny, "only read-only tools run, and mcp__github__create_issue changes things"},
		{"read-only tool", nil, "s1", read, path("main.go"), tool.Allow, "read-only"},
		{"out of plan mode", []string{"write_file"}, "done", write, path("main.go"), tool.Allow, ""},
		{"unknown session: the policy's mode", nil, "other", write, path("main.go"), tool.Ask, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPolicy(tt.allow)
			d := p.Decide(t.Context(), &tool.Call{SessionID: tt.session}, tt.tool, tt.args)
			if d.Verdict != tt.want || !strings.Contains(d.Reason, tt.inMsg) {
				t.Errorf("Decide = %s (%s), want %s with %q", d.Verdict, d.Reason, tt.want, tt.inMsg)
			}
		})
	}

	// A static plan mode and a call of no session: no plan file at all.
	t.Run("no session", func(t *testing.T) {
		p := newPolicy(everything)
		p.Mode = ModePlan
		if d := p.Decide(t.Context(), &tool.Call{}, write, path(".wield/plans/x.md")); d.Verdict != tool.Deny || !strings.Contains(d.Reason, "no session") {
			t.Errorf("Decide = %s (%s), want deny: no session", d.Verdict, d.Reason)
		}
	})

	// A hook that allows everything does not open plan mode either.
	t.Run("hook allow", func(t *testing.T) {
		p := newPolicy(nil)
		if err := p.Apply(&Settings{Hooks: map[string][]HookMatcher{PreToolUse: {{Hooks: []Hook{{Type: "command",
			Command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`}}}}}}); err != nil {
			t.Fatal(err)
		}
		p.Hooks.Dir = root
		if d := p.Decide(t.Context(), &tool.Call{SessionID: "s1"}, write, path("main.go")); d.Verdict != tool.Deny {
			t.Errorf("with a hook that allows, Decide = %s (%s), want deny", d.Verdict, d.Reason)
		}
	})
}

// TestPlanModeUserAllowDoesNotOverride runs calls through a tool.Runner
// whose approver says yes to everything: in plan mode the person is never
// asked about a write or a non-read-only shell line, and neither runs; a
// read-only line is put to them as in the default mode.
func TestPlanModeUserAllowDoesNotOverride(t *testing.T) {
	modes := &sessionModes{modes: map[string]Mode{"s1": ModePlan}}
	p := mustPolicy(t, ModeDefault, nil, nil, nil)
	p.Root, p.Modes = t.TempDir(), modes
	reg, err := tool.NewRegistry(fakeTool(t, "write_file", tool.Annotations{}), fakeTool(t, "run_shell_command", tool.Annotations{}))
	if err != nil {
		t.Fatal(err)
	}
	yes := &alwaysYes{}
	run := tool.NewRunner(reg, &tool.RunnerOptions{Gate: p, Approver: yes})
	call := func(name, args string) tool.Result {
		t.Helper()
		res, err := run.Call(t.Context(), tool.Call{SessionID: "s1"}, tool.Request{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, c := range []struct{ name, args string }{
		{"write_file", `{"path":"main.go"}`},
		{"run_shell_command", `{"command":"touch x"}`},
		{"run_shell_command", `{"command":"cat a | tee b"}`},
	} {
		res := call(c.name, c.args)
		if res.Success || res.Output == "ran" || !strings.Contains(res.ForModel(), "plan mode") {
			t.Errorf("%s %s in plan mode = %+v; want refused", c.name, c.args, res)
		}
	}
	if len(yes.asked) != 0 {
		t.Errorf("the person was asked about %v; plan mode refuses before anyone is asked", yes.asked)
	}
	if res := call("run_shell_command", `{"command":"cat a.txt"}`); !res.Success || len(yes.asked) != 1 {
		t.Errorf("a read-only line = %+v (asked %v); want it put to the person and run", res, yes.asked)
	}
	if res := call("run_shell_command", `{"command":"ls -la"}`); !res.Success || len(yes.asked) != 1 {
		t.Errorf("a line that shows no file's content = %+v (asked %v); want it run without asking", res, yes.asked)
	}
	// Leaving plan mode (a plan approved) gives the person their say back.
	modes.set("s1", ModeDefault)
	if res := call("write_file", `{"path":"main.go"}`); !res.Success || len(yes.asked) != 2 {
		t.Errorf("after plan mode, write_file = %+v (asked %v); want asked and run", res, yes.asked)
	}
}

func TestPlanDir(t *testing.T) {
	for id, want := range map[string]string{"abc": ".wield/plans/abc", "": "", "..": "", "a/b": "", `a\b`: "", ".": ""} {
		if got := PlanDir(id); got != want {
			t.Errorf("PlanDir(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestModeFunc(t *testing.T) {
	p := &Policy{Mode: ModeYolo, Logger: slog.New(slog.DiscardHandler), Modes: ModeFunc(func(id string) (Mode, bool) { return ModePlan, id == "p" })}
	sh := fakeTool(t, "run_shell_command", tool.Annotations{})
	if d := p.Decide(t.Context(), &tool.Call{SessionID: "p"}, sh, shellArgs("make")); d.Verdict != tool.Deny {
		t.Errorf("session p (plan) = %s (%s), want deny", d.Verdict, d.Reason)
	}
	if d := p.Decide(t.Context(), &tool.Call{SessionID: "q"}, sh, shellArgs("make")); d.Verdict != tool.Allow {
		t.Errorf("session q (the policy's yolo) = %s (%s), want allow", d.Verdict, d.Reason)
	}
	if d := p.Decide(t.Context(), nil, sh, shellArgs("make")); d.Verdict != tool.Allow {
		t.Errorf("no call (the policy's yolo) = %s (%s), want allow", d.Verdict, d.Reason)
	}
}
