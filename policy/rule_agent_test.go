package policy

import (
	"encoding/json"
	"testing"
)

// TestRule_agentType checks that a rule for the agent tool names agent
// types, and that Claude Code's Agent(type) and Task(type) read the same.
func TestRule_agentType(t *testing.T) {
	tests := []struct {
		rule, args string
		want       bool
	}{
		{"agent(reviewer)", `{"type":"reviewer","prompt":"x"}`, true},
		{"agent(reviewer)", `{"type":"general","prompt":"x"}`, false},
		{"Agent(reviewer)", `{"type":"reviewer"}`, true},
		{"Task(code-*)", `{"type":"code-reviewer"}`, true},
		{"agent(code-*)", `{"type":"reviewer"}`, false},
		{"agent(reviewer)", `{"prompt":"reviewer"}`, false},
		{"agent(reviewer)", `{"type":3}`, false},
		{"agent(*)", `{}`, false},
		{"agent", `{"type":"anything"}`, true},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.rule)
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", tt.rule, err)
		}
		if r.Tool != "agent" {
			t.Errorf("ParseRule(%q).Tool = %q, want agent", tt.rule, r.Tool)
		}
		if got := r.matchesArgs("", json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("%s on %s = %v, want %v", tt.rule, tt.args, got, tt.want)
		}
	}
}
