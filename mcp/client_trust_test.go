package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
)

// TestUntrustedServerCannotLoosenPolicy mounts a server whose destructive
// tool claims to be read-only, from each configuration file wield reads,
// and calls it through a real policy with no rules: only the user's own
// file may trust a server, so only from there does the claim let the call
// run without approval (or at all, in plan mode). A "trust" in a project's
// file is ignored with an error.
func TestUntrustedServerCannotLoosenPolicy(t *testing.T) {
	liar := testServer(t, "liar")
	tests := []struct {
		name string
		file string // where the server is defined, relative to the workspace or "user"
		// trust is the server's "trust" key.
		trust bool
		mode  policy.Mode
		// ran reports whether the call is allowed and runs; configErr is a
		// substring of LoadConfig's error.
		ran       bool
		configErr string
	}{
		{name: "project file claims trust", file: ".mcp.json", trust: true, configErr: `"trust" is ignored`},
		{name: "workspace file claims trust", file: ".wield/mcp.json", trust: true, configErr: `"trust" is ignored`},
		{name: "project file", file: ".mcp.json"},
		{name: "user file without trust", file: "user"},
		{name: "user file trusts it", file: "user", trust: true, ran: true},
		{name: "plan mode, project file claims trust", file: ".mcp.json", trust: true, mode: policy.ModePlan, configErr: `"trust" is ignored`},
		{name: "plan mode, user file trusts it", file: "user", trust: true, mode: policy.ModePlan, ran: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", home)
			cfg := liar
			cfg.Trust = tt.trust
			file := filepath.Join(ws, tt.file)
			if tt.file == "user" {
				file = filepath.Join(home, "wield", "mcp.json")
			}
			writeConfig(t, file, map[string]ServerConfig{"liar": cfg})

			servers, err := LoadConfig(ConfigFiles(ws), nil)
			if tt.configErr == "" && err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if tt.configErr != "" && (err == nil || !strings.Contains(err.Error(), tt.configErr)) {
				t.Fatalf("LoadConfig error = %v, want %q", err, tt.configErr)
			}
			m := newTestManager(t, servers, nil)
			reg := mountAll(t, m)
			wipe, err := reg.Lookup(ToolName("liar", "wipe"))
			if err != nil {
				t.Fatal(err)
			}
			o, _ := m.Origin(wipe.Name())
			if o.Trusted != tt.ran || !o.Hints.ReadOnly || o.Hints.Destructive || !o.Hints.Idempotent || o.Hints.Title != "Look around" {
				t.Errorf("Origin = %+v: trusted %v, and the claims kept as hints", o, tt.ran)
			}

			pol := &policy.Policy{Mode: tt.mode, Headless: true, Logger: quiet()}
			// Plan mode hides no tool (the mode can change during a run);
			// Decide refuses an untrusted one below.
			if !pol.Offered(wipe) {
				t.Errorf("Offered = false; only a deny rule hides a tool")
			}
			marker := filepath.Join(t.TempDir(), "wiped")
			args, _ := json.Marshal(wipeIn{Path: marker})
			// Interactively, the call is asked about (denied in plan mode).
			want := tool.Ask
			switch {
			case tt.ran:
				want = tool.Allow
			case tt.mode == policy.ModePlan:
				want = tool.Deny
			}
			if d := (&policy.Policy{Mode: tt.mode, Logger: quiet()}).Decide(t.Context(), &tool.Call{}, wipe, args); d.Verdict != want {
				t.Errorf("Decide = %s (%s), want %s", d.Verdict, d.Reason, want)
			}
			r := tool.NewRunner(reg, &tool.RunnerOptions{Gate: pol, Logger: quiet()})
			res, err := r.Call(t.Context(), tool.Call{}, tool.Request{Name: wipe.Name(), Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			if res.Success != tt.ran || ran != tt.ran {
				t.Fatalf("call: success %v, ran %v (%s); want %v", res.Success, ran, res.ForModel(), tt.ran)
			}
			if !tt.ran && !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("marker: %v", statErr)
			}
		})
	}
}

// writeConfig writes servers as an mcpServers file.
func writeConfig(t *testing.T, file string, servers map[string]ServerConfig) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
