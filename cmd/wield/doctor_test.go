package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/sandbox"
)

func TestDoctor(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("WIELD_MODEL", "")
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"--workdir", ws, "doctor", "--json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("wield doctor --json: exit %d, stderr %q", code, stderr.String())
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
	if code := run(t.Context(), []string{"--workdir", ws, "doctor"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("wield doctor: exit %d, stderr %q", code, stderr.String())
	}
	for _, want := range []string{"sandbox    " + string(rep.Sandboxed), "bubblewrap", "landlock", "git        git version", "mcp        none configured"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("wield doctor prints\n%s\nwant it to contain %q", stdout.String(), want)
		}
	}
}
