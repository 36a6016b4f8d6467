package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inTempRepository makes the test's working directory a fresh git
// repository holding greet.go, committed and then changed, with HOME and
// the user's configuration in a folder of their own, so that no settings
// of the machine's user apply. It returns greet.go's changed content.
func inTempRepository(t *testing.T) []byte {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WIELD_HOME", "")
	ws := t.TempDir()
	t.Chdir(ws)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile("greet.go", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("package greet\n\nfunc Greet() string { return \"hello\" }\n")
	git("add", "greet.go")
	git("commit", "-q", "-m", "greet")
	changed := "package greet\n\nfunc Greet() string {return   \"hello, world\"}\n"
	write(changed)
	return []byte(changed)
}

func TestRun(t *testing.T) {
	changed := inTempRepository(t)
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), nil, &stdout, &stderr); err != nil {
		t.Fatalf("run = %v; stderr:\n%s", err, stderr.String())
	}
	const review = "Review: the change is small and reads well, but the code is not gofmt-formatted; run gofmt -w . before committing.\n"
	if got := stdout.String(); got != review {
		t.Errorf("stdout = %q, want %q", got, review)
	}
	for _, want := range []string{
		"● git_diff {}\n",
		"  ✓ git_diff: diff --git a/greet.go b/greet.go\n",
		"  ✓ git_status: ## ",
		`● run_shell_command {"command": "gofmt -w ."}` + "\n",
		"  ✗ run_shell_command: denied: plan mode: only read-only shell commands run, and gofmt is not a read-only command",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not contain %q; it is:\n%s", want, stderr.String())
		}
	}
	got, err := os.ReadFile("greet.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, changed) {
		t.Errorf("greet.go = %q after the review, want it unchanged: %q", got, changed)
	}
}
