package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

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
		wantStored bool
	}{
		{"y\n", tool.Allow, "", false},
		{"what?\nyes\n", tool.Allow, "", false},
		{"a\n", tool.Allow, "", true},
		{"n\n", tool.Deny, "the user denied this call", false},
		{"n keep that file\n", tool.Deny, "the user denied this call: keep that file", false},
		{"", tool.Deny, "no answer from the user: EOF", false},
	}
	for _, tt := range tests {
		var out strings.Builder
		stored := false
		a := newTerminalApprover(strings.NewReader(tt.input), &out, func(*tool.Tool, json.RawMessage) (string, error) {
			stored = true
			return "rm(a.txt)", nil
		})
		d := a.Approve(t.Context(), &tool.Call{}, rm, args, tool.Decision{Verdict: tool.Ask, Reason: "deletes files"})
		if d.Verdict != tt.want || d.Reason != tt.wantReason || stored != tt.wantStored {
			t.Errorf("input %q: %+v stored=%v, want %s %q stored=%v", tt.input, d, stored, tt.want, tt.wantReason, tt.wantStored)
		}
		if !strings.Contains(out.String(), `wield wants to run rm {"path": "a.txt"}`) || !strings.Contains(out.String(), "because: deletes files") {
			t.Errorf("prompt = %q", out.String())
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
		a := terminalAsker{newTerminalApprover(strings.NewReader(tt.input), &out, nil)}
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
