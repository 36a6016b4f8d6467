package desktop

import (
	"encoding/json"
	"testing"
)

// TestViewOnlyCall checks which calls the policy may treat as read-only:
// only the looking actions, and nothing it cannot read.
func TestViewOnlyCall(t *testing.T) {
	tests := []struct {
		args string
		want bool
	}{
		{`{"action":"screenshot"}`, true},
		{`{"action":"zoom","region":[0,0,10,10]}`, true},
		{`{"action":"cursor_position"}`, true},
		{`{"action":"wait","duration":1}`, true},
		{`{"action":"left_click","coordinate":[1,2]}`, false},
		{`{"action":"type","text":"rm -rf ~"}`, false},
		{`{"action":"key","text":"ctrl+s"}`, false},
		{`{"action":"launch","command":"xterm"}`, false},
		// The tool decodes with encoding/json too: the last of two equal
		// keys wins in both places.
		{`{"action":"screenshot","action":"launch"}`, false},
		{`{"action":"launch","action":"screenshot"}`, true},
		{`{"action":"Screenshot"}`, false},
		{`{}`, false},
		{`[1]`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := viewOnlyCall(json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("viewOnlyCall(%s) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
