package policy

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compactHooks returns hooks whose PreCompact and PostCompact events run
// the given scripts for triggers matching matcher; each script's standard
// input is saved next to it as EVENT.json.
func compactHooks(t *testing.T, matcher, pre, post string) (*Hooks, string) {
	t.Helper()
	dir := t.TempDir()
	p := &Policy{Logger: slog.New(slog.DiscardHandler)}
	var s Settings
	s.Hooks = map[string][]HookMatcher{}
	for event, script := range map[string]string{PreCompact: pre, PostCompact: post} {
		if script == "" {
			continue
		}
		path := filepath.Join(dir, event+".sh")
		body := "#!/bin/bash\ncat > " + filepath.Join(dir, event+".json") + "\n" + script
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		s.Hooks[event] = []HookMatcher{{Matcher: matcher, Hooks: []Hook{{Type: "command", Command: path}}}}
	}
	if err := p.Apply(&s); err != nil {
		t.Fatal(err)
	}
	p.Hooks.Dir = dir
	return p.Hooks, dir
}

func TestPreCompact(t *testing.T) {
	tests := []struct {
		name, matcher, script, trigger string
		blocked                        bool
		extra                          string
		ran                            bool
	}{
		{"exit 0, no output", "", "exit 0", "auto", false, "", true},
		{"plain text adds to the focus", "", "echo keep the migration plan", "manual", false, "keep the migration plan", true},
		{"additionalContext adds to the focus", "", `echo '{"hookSpecificOutput":{"hookEventName":"PreCompact","additionalContext":"keep ids"}}'`, "auto", false, "keep ids", true},
		{"exit 2 blocks", "", "echo deploy in progress >&2; exit 2", "auto", true, "", true},
		{"decision block blocks", "", `echo '{"decision":"block","reason":"busy"}'`, "auto", true, "", true},
		{"exit 1 is ignored", "", "echo broken >&2; exit 1", "auto", false, "", true},
		{"matcher auto: manual not run", "auto", "exit 2", "manual", false, "", false},
		{"matcher manual|tool: tool run", "manual|tool", "exit 2", "tool", true, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, dir := compactHooks(t, tt.matcher, tt.script, "")
			extra, err := h.PreCompact(t.Context(), CompactEvent{SessionID: "s1", Trigger: tt.trigger, CustomInstructions: "focus"})
			if got := errors.Is(err, ErrCompactBlocked); got != tt.blocked {
				t.Fatalf("blocked = %v (%v), want %v", got, err, tt.blocked)
			}
			if extra != tt.extra {
				t.Errorf("extra = %q, want %q", extra, tt.extra)
			}
			data, readErr := os.ReadFile(filepath.Join(dir, PreCompact+".json"))
			if ran := readErr == nil; ran != tt.ran {
				t.Fatalf("hook ran = %v, want %v", ran, tt.ran)
			}
			if !tt.ran {
				return
			}
			var in map[string]any
			if err := json.Unmarshal(data, &in); err != nil {
				t.Fatalf("hook input %s: %v", data, err)
			}
			if in["hook_event_name"] != PreCompact || in["trigger"] != tt.trigger || in["session_id"] != "s1" ||
				in["custom_instructions"] != "focus" || in["cwd"] != dir {
				t.Errorf("hook input = %s", data)
			}
		})
	}
	h, _ := compactHooks(t, "", "echo deploy in progress >&2; exit 2", "")
	if _, err := h.PreCompact(t.Context(), CompactEvent{Trigger: "auto"}); err == nil || !strings.Contains(err.Error(), "deploy in progress") {
		t.Errorf("the block's reason is lost: %v", err)
	}
}

func TestPostCompact(t *testing.T) {
	h, dir := compactHooks(t, "", "", "exit 0")
	h.PostCompact(t.Context(), CompactEvent{SessionID: "s1", Trigger: "auto", Kind: "summary", Range: []int{1, 40},
		TokensBefore: 9000, TokensAfter: 2000, Summary: "did things"})
	data, err := os.ReadFile(filepath.Join(dir, PostCompact+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Event  string `json:"hook_event_name"`
		Range  []int  `json:"range"`
		Before int    `json:"tokens_before"`
		After  int    `json:"tokens_after"`
		Sum    string `json:"compact_summary"`
		Kind   string `json:"kind"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != PostCompact || len(in.Range) != 2 || in.Range[1] != 40 || in.Before != 9000 || in.After != 2000 || in.Sum != "did things" || in.Kind != "summary" {
		t.Errorf("PostCompact input = %s", data)
	}
	var nilHooks *Hooks
	if extra, err := nilHooks.PreCompact(t.Context(), CompactEvent{}); extra != "" || err != nil {
		t.Errorf("nil hooks: %q, %v", extra, err)
	}
	nilHooks.PostCompact(t.Context(), CompactEvent{})
}
