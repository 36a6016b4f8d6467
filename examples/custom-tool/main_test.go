package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inTempWorkspace makes the test's working directory a fresh workspace,
// with HOME and the user's configuration in a folder of their own, so
// that no settings of the machine's user apply.
func inTempWorkspace(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WIELD_HOME", "")
	ws := t.TempDir()
	t.Chdir(ws)
	return ws
}

func TestRun(t *testing.T) {
	tests := []struct {
		name string
		// script, when set, is given with -replay instead of script.jsonl.
		script     string
		args       []string
		wantStdout string
		wantStderr []string
	}{
		{
			name:       "built-in script",
			wantStdout: "Order A-1001 (2 × espresso cups) shipped on 3 March with DHL and should arrive in two days.\n",
			wantStderr: []string{
				`● lookup_order {"order": "A-1001"}`,
				"  ✗ lookup_order: invalid arguments (2 problems):\n    - at the top level: missing property 'id'\n",
				`● lookup_order {"id": "A-1001"}`,
				"  ✓ lookup_order: A-1001: 2 × espresso cups; shipped 3 March by DHL, arriving in two days\n",
			},
		},
		{
			name: "an order that does not exist",
			script: `{"round": 1, "tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {"id": "B-7"}}]}
{"round": 2, "text": "There is no order B-7."}`,
			args:       []string{"Where is order B-7?"},
			wantStdout: "There is no order B-7.\n",
			wantStderr: []string{`  ✗ lookup_order: no order "B-7": order numbers look like A-1001`},
		},
		{
			name: "a tool not on the list",
			script: `{"round": 1, "tool_calls": [{"id": "c1", "name": "write_file", "arguments": {"path": "x", "content": "y"}}]}
{"round": 2, "text": "I cannot write files."}`,
			wantStdout: "I cannot write files.\n",
			wantStderr: []string{"  ✗ write_file: tool write_file not found"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := inTempWorkspace(t)
			args := tt.args
			if tt.script != "" {
				file := filepath.Join(t.TempDir(), "script.jsonl")
				if err := os.WriteFile(file, []byte(tt.script), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append([]string{"-replay", file}, args...)
			}
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), args, &stdout, &stderr); err != nil {
				t.Fatalf("run(%q) = %v; stderr:\n%s", args, err, stderr.String())
			}
			if got := stdout.String(); got != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", got, tt.wantStdout)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr does not contain %q; it is:\n%s", want, stderr.String())
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "x")); err == nil {
				t.Errorf("the run wrote x, which no offered tool can")
			}
		})
	}
}

// TestRun_realModel checks that -model reaches wield.New: without the
// provider's key, the run stops before any request, naming the variable.
func TestRun_realModel(t *testing.T) {
	inTempWorkspace(t)
	t.Setenv("ANTHROPIC_API_KEY", "")
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"-model", "anthropic:claude-sonnet-4-5"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") {
		t.Errorf("run(-model anthropic:claude-sonnet-4-5) without a key = %v, want an error naming ANTHROPIC_API_KEY", err)
	}
}
