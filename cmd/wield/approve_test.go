package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
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
