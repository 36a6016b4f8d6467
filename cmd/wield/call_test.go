package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCallObeysPolicy checks that `wield call` goes through the permission
// policy: deny is deny (with or without --approve), "ask" is denied
// headless unless --approve is given, allowed calls run, and a denial
// prints its reason once and exits exitDenied.
func TestCallObeysPolicy(t *testing.T) {
	// The user's own settings and MCP servers must not take part.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	write := `{"path":"out.txt","content":"written"}`
	tests := []struct {
		name     string
		settings string // .wield/settings.json; empty means none
		args     []string
		wantCode int
		wantFile bool   // whether out.txt exists afterwards
		wantOnce string // text that must appear exactly once in stdout+stderr
	}{
		{"deny rule", `{"permissions":{"deny":["write_file"]}}`,
			[]string{"write_file", write}, exitDenied, false, "denied by the rule write_file"},
		{"deny rule beats --approve", `{"permissions":{"deny":["write_file"]}}`,
			[]string{"--approve", "write_file", write}, exitDenied, false, "denied by the rule write_file"},
		{"deny rule with a path", `{"permissions":{"deny":["write_file(out.*)"]}}`,
			[]string{"--approve", "--output", "text", "write_file", write}, exitDenied, false, "denied by the rule write_file(out.*)"},
		{"deny rule beats yolo", `{"permissions":{"deny":["write_file"]}}`,
			[]string{"--mode", "yolo", "write_file", write}, exitDenied, false, "denied by the rule write_file"},
		{"deny rule on a shell command", `{"permissions":{"deny":["run_shell_command(touch:*)"]}}`,
			[]string{"--approve", "run_shell_command", `{"command":"touch out.txt"}`}, exitDenied, false, "is denied by the rule run_shell_command(touch:*)"},
		{"ask headless", "",
			[]string{"write_file", write}, exitDenied, false, "pass --approve to approve this call"},
		{"ask rule headless", `{"permissions":{"ask":["write_file"],"allow":["write_file"]}}`,
			[]string{"--output", "text", "write_file", write}, exitDenied, false, "matches the ask rule write_file"},
		{"ask with --approve", "",
			[]string{"--approve", "write_file", write}, exitOK, true, `"success": true`},
		{"ask rule with --approve", `{"permissions":{"ask":["write_file"]}}`,
			[]string{"--approve", "write_file", write}, exitOK, true, `"success": true`},
		{"allow rule", `{"permissions":{"allow":["write_file"]}}`,
			[]string{"--trust", "write_file", write}, exitOK, true, `"success": true`},
		{"allow rule of an untrusted folder", `{"permissions":{"allow":["write_file"]}}`,
			[]string{"write_file", write}, exitDenied, false, "ignored this folder's configuration (not trusted): .wield/settings.json (1 allow rule)"},
		{"the denial of an untrusted folder names the user's settings", `{"permissions":{"allow":["write_file"]}}`,
			[]string{"write_file", write}, exitDenied, false, "or add an allow rule to ~/.config/wield/settings.json (this folder's .wield/settings.json is not trusted: wield trust)"},
		{"auto-edit mode", "",
			[]string{"--mode", "auto-edit", "write_file", write}, exitOK, true, `"success": true`},
		{"plan mode", "",
			[]string{"--mode", "plan", "--approve", "write_file", write}, exitDenied, false, "plan mode: write_file may write only the session's plan file"},
		{"read-only tool", "",
			[]string{"--output", "text", "read_file", `{"path":"in.txt"}`}, exitOK, false, "hello"},
		{"allowed call that fails", "",
			[]string{"read_file", `{"path":"missing.txt"}`}, exitToolFailure, false, `"success": false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "in.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.settings != "" {
				if err := os.MkdirAll(filepath.Join(ws, ".wield"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, ".wield", "settings.json"), []byte(tt.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"--workdir", ws, "--no-mcp", "call"}, tt.args...)
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			out := stdout.String() + stderr.String()
			if code != tt.wantCode {
				t.Errorf("wield %s: exit %d, want %d\n%s", strings.Join(args, " "), code, tt.wantCode, out)
			}
			if n := strings.Count(out, tt.wantOnce); n != 1 {
				t.Errorf("wield %s: %q appears %d times, want once:\n%s", strings.Join(args, " "), tt.wantOnce, n, out)
			}
			_, err := os.Stat(filepath.Join(ws, "out.txt"))
			if exists := err == nil; exists != tt.wantFile {
				t.Errorf("wield %s: out.txt exists = %v, want %v (stat: %v)", strings.Join(args, " "), exists, tt.wantFile, err)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			if tt.wantCode == exitDenied && !slices.Contains(tt.args, "text") {
				// The JSON result says why.
				var res struct {
					Success bool   `json:"success"`
					Error   string `json:"error"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("stdout is not a JSON result: %v\n%s", err, stdout.String())
				}
				if res.Success || !strings.HasPrefix(res.Error, "denied") {
					t.Errorf("result = %+v, want a failure that starts with \"denied\"", res)
				}
			}
		})
	}
}
