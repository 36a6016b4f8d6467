package policy

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// hookPolicy returns a policy whose PreToolUse and PostToolUse hooks run
// the given shell scripts for every tool.
func hookPolicy(t *testing.T, pre, post string, timeout float64) *Policy {
	t.Helper()
	dir := t.TempDir()
	p := &Policy{Logger: slog.New(slog.DiscardHandler)}
	var s Settings
	s.Hooks = map[string][]HookMatcher{}
	for event, script := range map[string]string{PreToolUse: pre, PostToolUse: post} {
		if script == "" {
			continue
		}
		path := filepath.Join(dir, event+".sh")
		if err := os.WriteFile(path, []byte("#!/bin/bash\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
		s.Hooks[event] = []HookMatcher{{Matcher: "Write|echo", Hooks: []Hook{{Type: "command", Command: path, Timeout: timeout}}}}
	}
	if err := p.Apply(&s); err != nil {
		t.Fatal(err)
	}
	p.Hooks.Dir = dir
	return p
}

// TestHooksLogToThePolicyLogger checks that hooks a settings file adds
// report their failures to the policy's Logger: now that a nil Hooks.Logger
// discards, they would otherwise go unseen.
func TestHooksLogToThePolicyLogger(t *testing.T) {
	var log strings.Builder
	dir := t.TempDir()
	script := filepath.Join(dir, "pre.sh")
	if err := os.WriteFile(script, []byte("#!/bin/bash\ncat >/dev/null; echo oops >&2; exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Policy{Logger: slog.New(slog.NewTextHandler(&log, nil))}
	var s Settings
	s.Hooks = map[string][]HookMatcher{PreToolUse: {{Hooks: []Hook{{Type: "command", Command: script}}}}}
	if err := p.Apply(&s); err != nil {
		t.Fatal(err)
	}
	write := fakeTool(t, "write_file", tool.Annotations{})
	if d := p.Decide(t.Context(), nil, write, json.RawMessage(`{"path":"a.go"}`)); d.Verdict != tool.Ask {
		t.Errorf("Decide = %s (%s), want ask: a hook that exits 1 is ignored", d.Verdict, d.Reason)
	}
	if got := log.String(); !strings.Contains(got, "PreToolUse hook failed; ignoring it") || !strings.Contains(got, script) {
		t.Errorf("policy log = %q, want the hook's failure naming %s", got, script)
	}
}

func TestPreToolUseHooks(t *testing.T) {
	write := fakeTool(t, "write_file", tool.Annotations{})
	args := json.RawMessage(`{"path":"a.go","content":"x"}`)
	tests := []struct {
		name, script string
		timeout      float64
		want         tool.Verdict
		reason       string
		args         string
	}{
		{"exit 2 blocks with stderr", `cat >/dev/null; echo "no writes on Fridays" >&2; exit 2`, 0, tool.Deny, "no writes on Fridays", ""},
		{"reads the call on stdin", `in=$(cat); [[ $in == *'"tool_name":"write_file"'* && $in == *'"hook_event_name":"PreToolUse"'* ]] && exit 0; echo "bad input: $in" >&2; exit 2`, 0, tool.Ask, "no rule", ""},
		{"permissionDecision allow", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"hook says fine"}}'`, 0, tool.Allow, "hook says fine", ""},
		{"permissionDecision deny", `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"protected file"}}'`, 0, tool.Deny, "protected file", ""},
		{"legacy block", `cat >/dev/null; echo '{"decision":"block","reason":"legacy no"}'`, 0, tool.Deny, "legacy no", ""},
		{"updatedInput", `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":"b.go","content":"y"}}}'`, 0, tool.Allow, "", `{"path":"b.go","content":"y"}`},
		{"garbage output is ignored", `cat >/dev/null; echo 'hello there'`, 0, tool.Ask, "no rule", ""},
		{"exit 1 is ignored", `cat >/dev/null; echo oops >&2; exit 1`, 0, tool.Ask, "no rule", ""},
		{"crash blocks", `kill -SEGV $$`, 0, tool.Deny, "killed", ""},
		{"hang blocks after the timeout", `exec sleep 30`, 0.2, tool.Deny, "timed out", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := hookPolicy(t, tt.script, "", tt.timeout)
			d := p.Decide(t.Context(), &tool.Call{SessionID: "s"}, write, args)
			if d.Verdict != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("decision = %s (%s), want %s with %q", d.Verdict, d.Reason, tt.want, tt.reason)
			}
			if tt.args != "" && string(d.Args) != tt.args {
				t.Errorf("args = %s, want %s", d.Args, tt.args)
			}
		})
	}
	// A rule's deny beats a hook's allow.
	p := hookPolicy(t, `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, "", 0)
	p.Add(Deny, Rule{Tool: "write_file"})
	if d := p.Decide(t.Context(), nil, write, args); d.Verdict != tool.Deny {
		t.Errorf("hook allow over a deny rule: %+v", d)
	}
	// Matchers: the hook does not run for other tools.
	p = hookPolicy(t, `cat >/dev/null; exit 2`, "", 0)
	if d := p.Decide(t.Context(), nil, fakeTool(t, "read_file", tool.Annotations{ReadOnly: true}), args); d.Verdict != tool.Allow {
		t.Errorf("hook ran for a tool its matcher excludes: %+v", d)
	}
}

// TestHooksThroughRunner runs hooks around real calls: a rewritten input
// is validated again, PostToolUse feedback reaches the model's text.
func TestHooksThroughRunner(t *testing.T) {
	type in struct {
		Text string `json:"text"`
	}
	echoTool := tool.New(tool.Spec{Name: "echo", Description: "echo", Annotations: tool.Annotations{ReadOnly: true}},
		func(_ context.Context, _ *tool.Call, i in) (tool.Result, error) { return tool.Text(i.Text), nil })
	reg, _ := tool.NewRegistry(echoTool)
	run := func(p *Policy, args string) tool.Result {
		r := tool.NewRunner(reg, &tool.RunnerOptions{Gate: p})
		res, err := r.Call(t.Context(), tool.Call{}, tool.Request{Name: "echo", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	p := hookPolicy(t, `cat >/dev/null; echo '{"hookSpecificOutput":{"updatedInput":{"text":"rewritten"}}}'`,
		`in=$(cat); [[ $in == *'"tool_response"'* ]] || exit 0; echo '{"decision":"block","reason":"lint failed: fix it"}'`, 0)
	res := run(p, `{"text":"original"}`)
	if !res.Success || !strings.HasPrefix(res.Output, "rewritten") || !strings.Contains(res.Output, "[PostToolUse hook] lint failed: fix it") {
		t.Errorf("result = %+v", res)
	}
	p = hookPolicy(t, `cat >/dev/null; echo '{"hookSpecificOutput":{"updatedInput":{"text":5}}}'`, "", 0)
	if res := run(p, `{"text":"x"}`); res.Success || !strings.Contains(res.Error, "rewritten by a hook are invalid") {
		t.Errorf("invalid rewrite: %+v", res)
	}
}
