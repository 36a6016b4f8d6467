package main

import (
	"bufio"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

func TestTerminalApprover(t *testing.T) {
	rm := tool.New(tool.Spec{Name: "rm", Description: "Delete."}, func(context.Context, *tool.Call, struct {
		Path string `json:"path"`
	}) (tool.Result, error) {
		return tool.Text(""), nil
	})
	args := json.RawMessage(`{"path": "a.txt"}`)
	tests := []struct {
		input      string
		want       tool.Verdict
		wantReason string
		wantStored string // "", "session" or "project"
	}{
		{"y\n", tool.Allow, "", ""},
		{"what?\nyes\n", tool.Allow, "", ""},
		{"s\n", tool.Allow, "", "session"},
		{"p\n", tool.Allow, "", "project"},
		{"n\n", tool.Deny, "the user denied this call", ""},
		{"n keep that file\n", tool.Deny, "the user denied this call: keep that file", ""},
		{"", tool.Deny, "no answer from the user: EOF", ""},
	}
	for _, tt := range tests {
		var out strings.Builder
		stored := ""
		a := &terminalApprover{in: bufio.NewReader(strings.NewReader(tt.input)), out: &out, project: ".wield/settings.local.json",
			rules: func(t *tool.Tool, _ json.RawMessage) ([]policy.Rule, error) {
				return []policy.Rule{{Tool: t.Name(), Specifier: "a.txt"}}, nil
			},
			allow: func(_ []policy.Rule, project bool) (string, error) {
				stored = "session"
				if project {
					stored = "project"
				}
				return ".wield/settings.local.json", nil
			}}
		d := a.Approve(t.Context(), &tool.Call{}, rm, args, tool.Decision{Verdict: tool.Ask, Reason: "deletes files"})
		if d.Verdict != tt.want || d.Reason != tt.wantReason || stored != tt.wantStored {
			t.Errorf("input %q: %+v stored=%q, want %s %q stored=%q", tt.input, d, stored, tt.want, tt.wantReason, tt.wantStored)
		}
		for _, want := range []string{"wield wants to call ● rm a.txt", `"path": "a.txt"`, "asks because: deletes files",
			"[s] always in this session: allow rm(a.txt)", "[p] always in this project: save that to .wield/settings.local.json"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("input %q: the prompt lacks %q:\n%s", tt.input, want, out.String())
			}
		}
		if tt.wantStored == "project" && !strings.Contains(out.String(), "saved to .wield/settings.local.json: allow rm(a.txt)") {
			t.Errorf("the saved rule's file is not printed:\n%s", out.String())
		}
	}
}

func TestTerminalAsker(t *testing.T) {
	q := askuser.Question{Text: "Which database?", Options: []askuser.Option{{Label: "sqlite", Description: "one file"}, {Label: "postgres"}}}
	multi := q
	multi.Multiple = true
	tests := []struct {
		name  string
		q     askuser.Question
		input string
		want  askuser.Answer
		err   string
	}{
		{"number", q, "2\n", askuser.Answer{Chosen: []string{"postgres"}}, ""},
		{"words", q, "mysql\n", askuser.Answer{Text: "mysql"}, ""},
		{"out of range, then a number", q, "7\n1\n", askuser.Answer{Chosen: []string{"sqlite"}}, ""},
		{"several", multi, "2 1\n", askuser.Answer{Chosen: []string{"postgres", "sqlite"}}, ""},
		{"several for one, then words", q, "1,2\nboth\n", askuser.Answer{Text: "both"}, ""},
		{"free question", askuser.Question{Text: "Name?"}, "Ada\n", askuser.Answer{Text: "Ada"}, ""},
		{"end of input", q, "", askuser.Answer{}, "EOF"},
	}
	for _, tt := range tests {
		var out strings.Builder
		a := terminalAsker{&terminalApprover{in: bufio.NewReader(strings.NewReader(tt.input)), out: &out}}
		got, err := a.Ask(t.Context(), tt.q)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Chosen, tt.want.Chosen) || got.Text != tt.want.Text {
			t.Errorf("%s: Ask = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
		if len(tt.q.Options) > 0 && !strings.Contains(out.String(), "  1. sqlite — one file\n  2. postgres\n") {
			t.Errorf("%s: the options are not listed:\n%s", tt.name, out.String())
		}
	}
}
