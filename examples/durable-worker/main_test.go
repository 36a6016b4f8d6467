//go:build temporal

package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
)

// temporalAddress returns the Temporal development server's address that
// scripts/temporal-dev.sh --exec sets in WIELD_TEMPORAL. Without it the
// test fails, so that a run that forgot the server cannot pass for one
// that ran against it; on a developer machine WIELD_ALLOW_SKIP=1 (and CI
// unset) skips it instead.
func temporalAddress(t *testing.T) string {
	t.Helper()
	if addr := os.Getenv("WIELD_TEMPORAL"); addr != "" {
		return addr
	}
	const msg = "WIELD_TEMPORAL is not set: run the test under scripts/temporal-dev.sh --exec, which starts a Temporal development server and sets it"
	if os.Getenv("WIELD_ALLOW_SKIP") == "1" && os.Getenv("CI") == "" {
		t.Skip(msg)
	}
	t.Fatal(msg)
	return ""
}

func TestDurableWorker(t *testing.T) {
	addr := temporalAddress(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WIELD_HOME", "")
	ws := t.TempDir()
	t.Chdir(ws)
	if err := os.WriteFile("notes.txt", []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(script, []byte(`{"round": 1, "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "notes.txt"}}]}
{"round": 2, "text": "The notes say 42."}`), 0o644); err != nil {
		t.Fatal(err)
	}
	namespace := os.Getenv("WIELD_TEMPORAL_NAMESPACE")
	if namespace == "" {
		namespace = "default"
	}
	// A queue of its own: no other test's worker takes its tasks.
	queue := "durable-worker-example-" + rand.Text()

	var stdout, stderr bytes.Buffer
	args := []string{"-temporal", addr, "-namespace", namespace, "-queue", queue, "-replay", script, "What do the notes say?"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run = %v; stderr:\n%s", err, stderr.String())
	}
	if got, want := stdout.String(), "The notes say 42.\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	// The run's session, written by the worker's activities, holds the
	// tool call and its result.
	id, ok := strings.CutPrefix(stderr.String(), "durable-worker: run ")
	id, _, _ = strings.Cut(id, ":")
	if !ok || !strings.Contains(stderr.String(), ": 2 rounds, 1 tool calls\n") {
		t.Fatalf("stderr = %q, want the run's id, 2 rounds and 1 tool call", stderr.String())
	}
	st, err := (&session.Store{Dir: filepath.Join(ws, ".wield", "sessions")}).Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var read string
	for _, turn := range st.Turns {
		if turn.Kind == session.TurnToolResponse && turn.Tool == "read_file" {
			read = turn.Output
		}
	}
	if !strings.Contains(read, "the answer is 42") {
		t.Errorf("session %s: read_file's result = %q, want the notes", id, read)
	}
}
