//go:build temporal

package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDurableCLI drives wield worker, wield run --temporal and wield
// approve against the Temporal development server scripts/temporal-dev.sh
// starts (WIELD_TEMPORAL): a write that asks waits for its approval, the
// run finishes on the worker, and wield session show reads its session.
func TestDurableCLI(t *testing.T) {
	addr := os.Getenv("WIELD_TEMPORAL")
	if addr == "" {
		if os.Getenv("CI") == "" && os.Getenv("WIELD_ALLOW_SKIP") == "1" {
			t.Skip("WIELD_TEMPORAL is not set")
		}
		t.Fatal("WIELD_TEMPORAL is not set: run under scripts/temporal-dev.sh --exec")
	}
	// The test binary is wield when called by that name (see TestMain).
	bin := filepath.Join(t.TempDir(), "wield")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	script := `{"turn": 0, "round": 1, "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "hello.txt", "content": "hello\n"}}]}
{"turn": 0, "round": 2, "text": "wrote hello.txt"}
`
	if err := os.WriteFile(filepath.Join(ws, "script.jsonl"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	queue := "cli-" + rand.Text()[:8]
	home := t.TempDir()
	wield := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "WIELD_HOME="+home, "NO_COLOR=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	durable := []string{"--temporal", addr, "--task-queue", queue}

	worker := wield(append([]string{"worker", "--replay", "script.jsonl", "--tools", "write_file,read_file"}, durable...)...)
	var workerErr bytes.Buffer
	worker.Stderr = &workerErr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = worker.Process.Signal(syscall.SIGTERM)
		_ = worker.Wait()
		if t.Failed() {
			t.Logf("worker's stderr:\n%s", workerErr.String())
		}
	}()

	run := wield(append([]string{"run", "--session", "d1", "write a greeting"}, durable...)...)
	var stdout bytes.Buffer
	run.Stdout = &stdout
	stderr, err := run.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	var seen []string
	sc := bufio.NewScanner(stderr)
	asked := false
	for !asked && sc.Scan() {
		seen = append(seen, sc.Text())
		asked = strings.Contains(sc.Text(), "w1 (write_file) awaits approval: wield approve d1 w1 --yes|--no")
	}
	if !asked {
		t.Fatalf("wield run never showed the approval hint; it printed:\n%s", strings.Join(seen, "\n"))
	}
	out, err := wield(append([]string{"approve", "d1", "w1", "--yes"}, durable...)...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "answered yes to call w1 of run d1") {
		t.Fatalf("wield approve: %v\n%s", err, out)
	}
	for sc.Scan() {
		seen = append(seen, sc.Text())
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("wield run --temporal: %v\nstderr:\n%s", err, strings.Join(seen, "\n"))
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("wield run --temporal did not end within 2 minutes")
	}
	if got := strings.TrimSpace(stdout.String()); got != "wrote hello.txt" {
		t.Fatalf("stdout %q", got)
	}
	if !slicesContain(seen, "✓ write_file") {
		t.Errorf("the run's tool lines are missing:\n%s", strings.Join(seen, "\n"))
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("hello.txt: %q %v", b, err)
	}
	show, err := wield("session", "show", "d1").CombinedOutput()
	if err != nil || !strings.Contains(string(show), "call w1 write_file") || !strings.Contains(string(show), "model> wrote hello.txt") {
		t.Fatalf("wield session show d1: %v\n%s", err, show)
	}
}

func slicesContain(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
