package wield

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIgnoreStateKeepsGitStatusClean asks git itself: after wield has
// written its state in a repository's .wield, git status is as it was,
// the ignore file included; project configuration written there shows.
func TestIgnoreStateKeepsGitStatusClean(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is the oracle of this test: %v", err)
	}
	ws := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	write := func(rel, content string) {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.go", "package main\n")
	git("add", "main.go")
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")

	IgnoreState(ws)
	for _, rel := range []string{".wield/sessions/s.jsonl", ".wield/spill/s/c.txt", ".wield/logs/wield.log",
		".wield/plans/s/plan.md", ".wield/index/docs.db", ".wield/settings.local.json"} {
		write(rel, "state\n")
	}
	if st := git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status after wield's state was written:\n%s", st)
	}
	write(".wield/settings.json", "{}\n")
	if st := git("status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(st) != "?? .wield/settings.json" {
		t.Errorf("git status after project settings were written: %q, want them shown", st)
	}
}
