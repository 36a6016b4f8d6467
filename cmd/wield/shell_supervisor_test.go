package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/shell"
)

// TestShellCommandsDieWithWield is the regression test for shell commands
// that outlived a wield killed with SIGKILL: a command's processes, one of
// them in a session of its own, must all be gone within 2 seconds of
// wield's death.
func TestShellCommandsDieWithWield(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shell tools run commands only on Linux")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no go command to build wield with: %v", err)
		}
		t.Skipf("no go command to build wield with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "wield")
	if out, err := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ws := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(ws, "started"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Every process of this test's command carries the tag, and nothing
	// else on the machine does.
	tag := "WIELD_TEST_KILLED_RUN=" + rand.Text()
	cmd := exec.Command(bin, "--workdir", ws, "--no-mcp", "call", "--approve", "run_shell_command",
		`{"command":"sleep 300 & setsid sleep 300 & echo started > started; wait"}`)
	cmd.Env = append(os.Environ(), tag, "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "WIELD_HOME=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		for _, p := range tagged(tag) {
			unix.Kill(p.pid, unix.SIGKILL)
		}
	})

	// The command writes to the FIFO once it has started both sleeps.
	// Opened read-write, the FIFO never reads end of file; the deadline
	// only bounds a failure.
	fifo, err := os.OpenFile(filepath.Join(ws, "started"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	fifo.SetReadDeadline(time.Now().Add(2 * time.Minute))
	if line, err := bufio.NewReader(fifo).ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("the command did not start: %q, %v; wield said:\n%s", line, err, out.String())
	}
	// The shell and its two children (which may not have exec'd sleep yet)
	// exist now, and under a supervisor the supervisor too.
	var pidfds []unix.PollFd
	var names []string
	for _, p := range tagged(tag) {
		if p.pid == cmd.Process.Pid {
			continue
		}
		fd, err := unix.PidfdOpen(p.pid, 0)
		if err != nil {
			continue // gone already
		}
		defer unix.Close(fd)
		pidfds = append(pidfds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		names = append(names, strconv.Itoa(p.pid)+" "+p.cmdline)
	}
	if len(pidfds) < 3 {
		t.Fatalf("found %d processes of the command, want at least 3:\n%s", len(pidfds), strings.Join(names, "\n"))
	}
	t.Logf("processes of the command:\n%s", strings.Join(names, "\n"))

	if err := cmd.Process.Signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(pidfds) > 0 && time.Now().Before(deadline) {
		_, err := unix.Poll(pidfds, int(time.Until(deadline)/time.Millisecond)+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			t.Fatal(err)
		}
		kept := pidfds[:0]
		for _, p := range pidfds {
			if p.Revents == 0 {
				kept = append(kept, p)
			}
		}
		pidfds = kept
	}
	cmd.Wait()
	// Processes started since the list was made are caught here.
	if left := tagged(tag); len(left) > 0 {
		var b strings.Builder
		for _, p := range left {
			b.WriteString(strconv.Itoa(p.pid) + " " + p.cmdline + "\n")
		}
		t.Errorf("2s after wield was killed, %d processes of its command still run:\n%s", len(left), b.String())
	} else if len(pidfds) > 0 {
		t.Errorf("%d processes of the command outlived wield by more than 2s", len(pidfds))
	}
}

// procState returns the state letter of process pid, or 0.
func procState(pid int) byte {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) {
		return stat[i+2]
	}
	return 0
}

// A taggedProc is a live process whose environment holds a test's tag.
type taggedProc struct {
	pid     int
	cmdline string
}

// tagged lists the live processes whose environment holds tag.
func tagged(tag string) []taggedProc {
	names, _ := os.ReadDir("/proc")
	var out []taggedProc
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), []byte("\x00"+tag+"\x00")) {
			continue
		}
		if state := procState(pid); state == 0 || state == 'Z' || state == 'X' {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, taggedProc{pid, strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))})
	}
	return out
}

// TestResumeSweepsShellJobs checks that continuing a session kills the
// processes of shell commands its journal recorded as running, found by
// their marker, and leaves others alone.
func TestResumeSweepsShellJobs(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("WIELD_HOME", "")
	ws := t.TempDir()
	left, other := rand.Text(), rand.Text()
	start := func(marker string) *exec.Cmd {
		cmd := exec.Command("sleep", "1000")
		cmd.Env = append(os.Environ(), "WIELD_SHELL_JOB="+marker)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
		return cmd
	}
	orphan, unrelated := start(left), start(other)

	// The journal of a run that died while a background job ran.
	g := &globals{stdout: io.Discard, stderr: io.Discard}
	sess, err := g.store(ws).Create(t.Context(), session.Header{ID: "crashed", Agent: "wield"})
	if err != nil {
		t.Fatal(err)
	}
	c := &tool.Call{ID: "call_1", Tool: "run_shell_command"}
	for _, err := range []error{
		sess.Begin(t.Context(), "start a server"),
		sess.RecordCall(t.Context(), c, json.RawMessage(`{"command":"serve","background":true}`)),
		sess.RecordResult(t.Context(), c, tool.Result{Success: true, Output: "Started background job job-1.",
			Data: shell.RunData{JobID: "job-1", Running: true, PGID: orphan.Process.Pid, Marker: left}}),
		sess.Commit(t.Context()),
		sess.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	script := filepath.Join(t.TempDir(), "answer.jsonl")
	if err := os.WriteFile(script, []byte(`{"round": 1, "text": "done"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--workdir", ws, "--no-mcp", "run", "--replay", script, "--session", "crashed", "go on"}
	if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("wield %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	// The sweep waits until what it kills has exited: the recorded job's
	// process is a zombie now, waiting for this test to reap it.
	if state := procState(orphan.Process.Pid); state != 'Z' {
		t.Errorf("the recorded job's process is in state %c, want killed by the resume", state)
	}
	if state := procState(unrelated.Process.Pid); state == 'Z' {
		t.Errorf("a process with another marker was killed")
	}
	// The warning goes to the run's log, and stderr says so.
	logged, _ := os.ReadFile(filepath.Join(ws, ".wield", "logs", "wield.log"))
	if !strings.Contains(string(logged), "killed processes of shell commands") || !strings.Contains(stderr.String(), "1 warning logged to") {
		t.Errorf("log %q, stderr %q; want a warning about the killed processes in the log", logged, stderr.String())
	}
}
