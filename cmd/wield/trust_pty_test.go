package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustQuestionAtATerminal runs wield run at a terminal in a folder
// whose configuration has a hook: the question lists it; n goes on
// without it; t records the trust and the hook runs; a changed hook asks
// again, showing what changed; q stops with status 130.
func TestTrustQuestionAtATerminal(t *testing.T) {
	dir := t.TempDir()
	ws, home := filepath.Join(dir, "repo"), filepath.Join(dir, "home")
	marker := filepath.Join(dir, "marker")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, ".wield"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeHook := func(cmd string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, ".wield", "settings.json"), []byte(hookSettings("PreToolUse", cmd)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeHook("touch " + marker)
	if err := os.WriteFile(filepath.Join(ws, "model.jsonl"), []byte(replayFile(echoCall)), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := wieldBinary(t)
	// run starts wield run at a terminal, answers the trust question with
	// answer, and returns the screen and how wield exited.
	run := func(want, answer string) (string, error) {
		t.Helper()
		cmd := exec.Command(bin, "run", "--no-mcp", "--replay", "model.jsonl", "go")
		cmd.Dir = ws
		cmd.Env = append(trustTestEnv(home), "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0")
		tty, screen, copied := startPTY(t, cmd, 30, 100)
		defer tty.Close()
		screen.waitFor(t, want)
		screen.waitFor(t, "trust this folder? [t/n/q]")
		tty.WriteString(answer + "\r")
		err := cmd.Wait()
		<-copied
		return screen.text(), err
	}

	out, err := run("hook PreToolUse: touch "+marker, "n")
	if err != nil || !strings.Contains(out, "continuing without this folder's configuration") || !strings.Contains(out, "done") {
		t.Fatalf("answered n: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("answered n, and the hook ran")
	}

	out, err = run("hook PreToolUse: touch "+marker, "t")
	if err != nil || !strings.Contains(out, "trusted "+ws) {
		t.Fatalf("answered t: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("answered t, and the hook did not run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "wield", "trusted.json")); err != nil {
		t.Fatalf("no trust recorded: %v", err)
	}

	writeHook("touch " + marker + "2")
	out, err = run("changed since you trusted it", "q")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("answered q: %v, want exit status %d\n%s", err, exitInterrupted, out)
	}
	for _, want := range []string{"+ .wield/settings.json", "hook PreToolUse: touch " + marker + "2", "- .wield/settings.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("the changed question lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(marker + "2"); err == nil {
		t.Fatal("the changed hook ran")
	}
}
