package shell

import (
	"bufio"
	"crypto/rand"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wieldhq/wield/sandbox"
)

// supervisorArg, as the first argument of the test binary, makes it a
// supervisor instead of running tests: the tests name the binary in
// Config.Supervisor, as wield names itself.
const supervisorArg = "__shell-supervisor"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		os.Exit(Supervise(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Enter(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// withSupervisor returns cfg with the test binary as its supervisor.
func withSupervisor(cfg Config) Config {
	cfg.Supervisor = []string{"/proc/self/exe", supervisorArg}
	return cfg
}

// A supervisorRun is a command started under a supervisor by hand, so
// that the test plays the host's part of the protocol.
type supervisorRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	sup    *supervised
	pid    int // the shell's
	marker []byte
	out    *bufio.Reader
	pipe   *os.File
}

func startSupervisor(t *testing.T, command string) *supervisorRun {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	token := rand.Text()
	spec := procSpec{shell: bash, command: command, dir: t.TempDir(), env: newShell(Config{}).environ(),
		supervisor: withSupervisor(Config{}).Supervisor}
	cmd, sup, err := supervisedCmd(spec, token, w)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	w.Close()
	pid, err := sup.started(cmd, err)
	if err != nil {
		r.Close()
		t.Fatalf("start %q under the supervisor: %v", command, err)
	}
	sr := &supervisorRun{t: t, cmd: cmd, sup: sup, pid: pid, marker: []byte(markerVar + "=" + token), out: bufio.NewReader(r), pipe: r}
	t.Cleanup(func() {
		// Whatever the test did, nothing may be left.
		sup.ctl.Close()
		if cmd.ProcessState == nil {
			cmd.Wait()
		}
		r.Close()
		if alive := sr.members(); len(alive) > 0 {
			t.Errorf("processes of %q survive the supervisor: %v", command, alive)
		}
	})
	return sr
}

// members lists the live processes that carry the command's marker.
func (sr *supervisorRun) members() []pinfo {
	alive, _ := group{markers: [][]byte{sr.marker}}.members()
	return alive
}

// waitLine reads the command's output up to a line that holds s.
func (sr *supervisorRun) waitLine(s string) string {
	sr.t.Helper()
	var all strings.Builder
	for {
		line, err := sr.out.ReadString('\n')
		all.WriteString(line)
		if strings.Contains(line, s) {
			return all.String()
		}
		if err != nil {
			sr.t.Fatalf("output %q ended (%v) before a line with %q", all.String(), err, s)
		}
	}
}

func TestSuperviseRelaysExitStatus(t *testing.T) {
	tests := []struct {
		name      string
		command   string
		exit      int            // -1: killed by signal
		signal    syscall.Signal // when exit is -1
		clean     bool
		supStatus int // the supervisor's own exit code
	}{
		{"success", "true", 0, 0, true, 0},
		{"exit code", "exit 3", 3, 0, true, 3},
		{"killed by a signal", "kill -SEGV $$", -1, syscall.SIGSEGV, true, 128 + 11},
		{"a child left running", "sleep 1000 & exit 4", 4, 0, false, 4},
		{"an orphan left in a session of its own", "(setsid sleep 1000 &); exit 5", 5, 0, false, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sr := startSupervisor(t, tt.command)
			sr.sup.wait()
			ws, ok := sr.sup.status()
			switch {
			case !ok:
				t.Fatalf("no exit status reported for %q", tt.command)
			case tt.exit >= 0 && (!ws.Exited() || ws.ExitStatus() != tt.exit):
				t.Errorf("status of %q = %#x, want exit code %d", tt.command, ws, tt.exit)
			case tt.exit < 0 && (!ws.Signaled() || ws.Signal() != tt.signal):
				t.Errorf("status of %q = %#x, want killed by %v", tt.command, ws, tt.signal)
			}
			if got := sr.sup.nothingLeft(); got != tt.clean {
				t.Errorf("nothing left of %q = %v, want %v", tt.command, got, tt.clean)
			}
			// Releasing the supervisor kills what is left; then it exits
			// with the shell's status.
			sr.sup.release(sr.cmd)
			if got := sr.cmd.ProcessState.ExitCode(); got != tt.supStatus {
				t.Errorf("supervisor of %q exited with %d, want %d", tt.command, got, tt.supStatus)
			}
		})
	}
}

// TestSuperviseExitsWhenNothingIsLeft checks that a supervisor whose
// command is over exits on its own, without being released.
func TestSuperviseExitsWhenNothingIsLeft(t *testing.T) {
	sr := startSupervisor(t, "exit 6")
	if err := sr.cmd.Wait(); sr.cmd.ProcessState == nil || sr.cmd.ProcessState.ExitCode() != 6 {
		t.Errorf("supervisor ended with %v, want exit code 6", err)
	}
}

func TestSuperviseRelaysSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1} {
		t.Run(unix.SignalName(sig), func(t *testing.T) {
			name := strings.TrimPrefix(unix.SignalName(sig), "SIG")
			sr := startSupervisor(t, "trap 'echo got "+name+"; exit 7' "+name+"; echo ready; sleep 1000 & wait")
			sr.waitLine("ready")
			if err := sr.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			out := sr.waitLine("got " + name)
			sr.sup.wait()
			if ws, ok := sr.sup.status(); !ok || !ws.Exited() || ws.ExitStatus() != 7 {
				t.Errorf("after %v: status %#x (reported %v), output %q; want the trap's exit code 7", sig, ws, ok, out)
			}
		})
	}
}

// TestSuperviseKillsTreeWhenHostGoes plays a host that dies while its
// command runs: the supervisor sees its control socket close and must
// kill every process of the command, including those that left the
// session, those that left the process tree's branch by double forking,
// and one that did both and also cleared its environment, which only
// the supervisor's subreaper status keeps in sight.
func TestSuperviseKillsTreeWhenHostGoes(t *testing.T) {
	sr := startSupervisor(t, `sleep 1000 &
setsid sleep 1000 &
(trap '' TERM; exec sleep 1000) &
mkfifo f; (setsid env -i sh -c 'echo orphan:$$ > f; exec sleep 1000' &); cat f
echo ready; wait`)
	orphans := pidsIn(t, sr.waitLine("ready"), "orphan")
	var hs []handle
	seen := map[int]bool{}
	for _, p := range sr.members() {
		seen[p.pid] = true
	}
	for _, pid := range orphans {
		if !seen[pid] {
			p, ok := readStat(pid, make([]byte, 1024))
			if !ok {
				t.Fatalf("orphan %d is gone before the host", pid)
			}
			seen[pid] = true
			h, _ := openHandle(p)
			hs = append(hs, h)
		}
	}
	for _, p := range sr.members() {
		if h, ok := openHandle(p); ok {
			hs = append(hs, h)
		}
	}
	if len(hs) < 5 {
		t.Fatalf("found %d processes of the command, want at least 5 (bash and four sleeps)", len(hs))
	}
	sr.sup.ctl.Close() // the host has gone
	if !waitExit(hs, 2*time.Second) {
		t.Errorf("processes of the command still run 2s after the host went")
	}
	if err := sr.cmd.Wait(); sr.cmd.ProcessState == nil || sr.cmd.ProcessState.ExitCode() != 128+9 {
		t.Errorf("supervisor ended with %v, want exit code 137", err)
	}
}

func TestSuperviseBadStart(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	spec := procSpec{shell: "/no/such/shell", command: "true", dir: t.TempDir(), supervisor: withSupervisor(Config{}).Supervisor}
	cmd, sup, err := supervisedCmd(spec, rand.Text(), w)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	w.Close()
	if _, err := sup.started(cmd, err); err == nil || !strings.Contains(err.Error(), "/no/such/shell") {
		t.Errorf("start of a missing shell: %v, want an error naming it", err)
	}
	if code := Supervise([]string{"token"}); code != 2 {
		t.Errorf("Supervise with too few arguments = %d, want 2", code)
	}
}

// TestSweep starts processes as a host that died would have left them,
// and checks that Sweep kills those whose marker it is given, and only
// those.
func TestSweep(t *testing.T) {
	swept, kept := rand.Text(), rand.Text()
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "1000")
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
		return cmd
	}
	a := start(markerVar + "=" + swept)
	b := start(markerVar + "=" + swept)
	other := start(markerVar + "=" + kept)
	plain := start("X=" + markerVar + "=" + swept) // the marker's text, not the marker
	if n := Sweep([]string{swept, ""}); n != 2 {
		t.Errorf("Sweep killed %d processes, want 2", n)
	}
	for _, c := range []*exec.Cmd{a, b} {
		c.Wait()
		if ws := c.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("process with the swept marker: %v, want killed", c.ProcessState)
		}
	}
	for _, c := range []*exec.Cmd{other, plain} {
		if !alive(c.Process.Pid) {
			t.Errorf("process %v without the swept marker was killed", c.Args)
		}
	}
	if n := Sweep(nil); n != 0 {
		t.Errorf("Sweep(nil) = %d, want 0", n)
	}
}
