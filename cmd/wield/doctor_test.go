package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/sandbox"
)

func TestDoctor(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("WIELD_MODEL", "")
	var stdout, stderr bytes.Buffer
	// No model is configured: a problem, so the exit status is 1.
	if code := run(t.Context(), []string{"--workdir", ws, "doctor", "--json"}, strings.NewReader(""), &stdout, &stderr); code != exitToolFailure {
		t.Fatalf("wield doctor --json: exit %d, want 1; stderr %q", code, stderr.String())
	}
	var rep doctorReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json output %q: %v", stdout.String(), err)
	}
	var mechs []sandbox.Mechanism
	for _, c := range rep.Sandbox {
		mechs = append(mechs, c.Mechanism)
		if !c.Available && c.Reason == "" {
			t.Errorf("%s unavailable without a reason", c.Mechanism)
		}
	}
	if want := []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock, sandbox.NoIsolation}; !slices.Equal(mechs, want) {
		t.Errorf("sandbox mechanisms %v, want %v", mechs, want)
	}
	// The test machines (and CI) have a sandbox: bubblewrap or Landlock.
	if rep.Sandboxed == "" || rep.Git == "" || rep.Workspace == "" {
		t.Errorf("sandboxed %q, git %q, workspace %q; want all set (problems: %q)", rep.Sandboxed, rep.Git, rep.Workspace, rep.Problems)
	}
	if rep.Model.Error == "" || rep.MCP == nil {
		t.Errorf("model %+v, mcp %v; want a configuration error (no model) and an empty list", rep.Model, rep.MCP)
	}

	stdout.Reset()
	if code := run(t.Context(), []string{"--workdir", ws, "doctor"}, strings.NewReader(""), &stdout, &stderr); code != exitToolFailure {
		t.Fatalf("wield doctor: exit %d, want 1; stderr %q", code, stderr.String())
	}
	for _, want := range []string{"sandbox    " + string(rep.Sandboxed), "bubblewrap", "landlock", "git        git version", "mcp        none configured"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("wield doctor prints\n%s\nwant it to contain %q", stdout.String(), want)
		}
	}
}

// TestUnknownKeys: keys wield does not read in config, settings and MCP
// files (wield.UnknownKeys) are reported where a run starts, before it
// fails for want of a base URL (the typo): it never falls back to
// OpenAI's endpoint.
func TestUnknownKeys(t *testing.T) {
	ws := testWorkspace(t)
	os.MkdirAll(filepath.Join(ws, ".wield"), 0o755)
	config := `{"model": "my-model", "baseUrl": "http://127.0.0.1:1/v1"}`
	if err := os.WriteFile(filepath.Join(ws, ".wield/config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(ws, ".wield/config.json") + `: unknown key "baseUrl"; did you mean "base_url"?`
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workdir", ws, "run", "x"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), `wield: warning: `+want) || !strings.Contains(stderr.String(), "my-model") {
		t.Errorf("wield run: exit %d, stderr:\n%s", code, stderr.String())
	}
}
