package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUntrustedAgentsRunOnTheParentsModel: an agent definition of an
// untrusted workspace loads, but its model is the parent's; trusted, its
// own. Its tools need no trust: a definition only narrows its parent's.
func TestUntrustedAgentsRunOnTheParentsModel(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(trustEnv, "")
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".wield", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nname: rev\ndescription: Reviews.\nmodel: openai:gpt-5\ntools: read_file\n---\nReview.\n"
	if err := os.WriteFile(filepath.Join(ws, ".wield", "agents", "rev.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, trusted := range []bool{false, true} {
		var stderr strings.Builder
		g := &globals{stderr: &stderr, trustFlag: trusted}
		d, ok := g.loadAgents(ws).Get("rev")
		if !ok {
			t.Fatalf("trusted %v: the definition did not load", trusted)
		}
		want := ""
		if trusted {
			want = "openai:gpt-5"
		}
		if d.Model != want || !slices.Equal(d.Tools, []string{"read_file"}) {
			t.Errorf("trusted %v: model %q tools %v, want model %q and tools [read_file]", trusted, d.Model, d.Tools, want)
		}
		if !trusted && !strings.Contains(stderr.String(), ".wield/agents/rev.md (1 agent)") {
			t.Errorf("untrusted: stderr does not name what was ignored: %q", stderr.String())
		}
	}
}
