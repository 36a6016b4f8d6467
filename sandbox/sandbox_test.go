package sandbox_test

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/sandbox"
)

// TestMain makes the test binary the sandbox helper, as wield's main is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Enter(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func helper(t testing.TB) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, sandbox.HelperArg}
}

// sandboxes returns a sandbox for each isolating mechanism that works on
// this machine, and fails the test when there is none: every test runs
// its assertions against each of them.
func sandboxes(t *testing.T) []*sandbox.Sandbox {
	t.Helper()
	var sbs []*sandbox.Sandbox
	var errs []error
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: m})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sbs = append(sbs, sb)
	}
	if len(sbs) == 0 {
		t.Fatalf("no sandbox mechanism works on this machine: %v", errors.Join(errs...))
	}
	return sbs
}

// each runs f as a subtest for each sandbox.
func each(t *testing.T, f func(t *testing.T, sb *sandbox.Sandbox)) {
	for _, sb := range sandboxes(t) {
		t.Run(string(sb.Capabilities().Mechanism), func(t *testing.T) { f(t, sb) })
	}
}

func run(t *testing.T, sb *sandbox.Sandbox, c *sandbox.Command) *sandbox.Result {
	t.Helper()
	res, err := sb.Run(t.Context(), c)
	if err != nil {
		t.Fatalf("Run(%q) = %v", c.Args, err)
	}
	return res
}

func sh(script string) []string { return []string{"sh", "-c", script} }

// TestEscapes runs each attempt to change something outside the scratch
// directory and checks that it fails and that nothing changed.
func TestEscapes(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		outside := t.TempDir()
		victim := filepath.Join(outside, "victim")
		if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		cases := []struct{ name, script string }{
			{"create file outside", "echo x > " + outside + "/new"},
			{"create dir outside", "mkdir " + outside + "/newdir"},
			{"overwrite file outside", "echo x > " + victim},
			{"truncate file outside", "truncate -s 0 " + victim},
			{"remove file outside", "rm -f " + victim},
			{"rename file outside", "mv " + victim + " " + outside + "/moved"},
			{"move file into scratch", "mv " + victim + " ./stolen"},
			{"write through symlink in scratch", "ln -s " + victim + " link && echo x > link"},
			{"write /etc", "echo x > /etc/wield-sandbox-test"},
			{"remount root", "mount -o remount,rw / && echo x > /etc/wield-sandbox-test"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res := run(t, sb, &sandbox.Command{Args: sh(c.script), Scratch: t.TempDir()})
				if res.ExitCode == 0 {
					t.Errorf("%s: exit 0, want a failure; stderr %q", c.script, res.Stderr)
				}
				entries, _ := os.ReadDir(outside)
				if len(entries) != 1 || entries[0].Name() != "victim" {
					t.Errorf("%s: outside holds %v, want only victim", c.script, entries)
				}
				if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
					t.Errorf("%s: victim = %q, %v; want \"keep\"", c.script, b, err)
				}
				if _, err := os.Stat("/etc/wield-sandbox-test"); err == nil {
					os.Remove("/etc/wield-sandbox-test")
					t.Errorf("%s: /etc/wield-sandbox-test was created", c.script)
				}
			})
		}
	})
}

// TestMetadataOutside checks chmod outside the scratch directory against
// what the mechanism says it protects: Landlock does not restrict it.
func TestMetadataOutside(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		victim := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		res := run(t, sb, &sandbox.Command{Args: []string{"chmod", "777", victim}})
		fi, err := os.Stat(victim)
		if err != nil {
			t.Fatal(err)
		}
		protected := sb.Capabilities().Metadata
		if changed := fi.Mode().Perm() != 0o644; changed == protected || (res.ExitCode == 0) == protected {
			t.Errorf("chmod 777 outside: exit %d, mode %v; Capabilities.Metadata is %t", res.ExitCode, fi.Mode().Perm(), protected)
		}
	})
}

func TestScratchAndWorkspaceAreWritable(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		scratch, ws := t.TempDir(), t.TempDir()
		res := run(t, sb, &sandbox.Command{
			Args:      sh(`echo hi > f && mkdir d && mv f d/g && cat d/g && echo there > "$WS/out" && echo tmp > "$TMPDIR/t"`),
			Env:       []string{"PATH=" + os.Getenv("PATH"), "WS=" + ws, "TMPDIR=" + scratch},
			Scratch:   scratch,
			Workspace: ws,
		})
		if res.ExitCode != 0 || string(res.Stdout) != "hi\n" {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 0, \"hi\\n\"", res.ExitCode, res.Stdout, res.Stderr)
		}
		for _, f := range []string{filepath.Join(scratch, "d/g"), filepath.Join(ws, "out"), filepath.Join(scratch, "t")} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("%s not written: %v", f, err)
			}
		}
	})
}

func TestReadsSystemFiles(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: []string{"cat", "/etc/passwd"}})
		if res.ExitCode != 0 || !bytes.Contains(res.Stdout, []byte("root:")) {
			t.Errorf("cat /etc/passwd: exit %d, stdout %.40q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
}

func TestNetwork(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := []string{"bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && head -n1 <&3"}
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: connect})
		if res.ExitCode == 0 || bytes.Contains(res.Stdout, []byte("hello")) {
			t.Errorf("network denied: connect exit %d, stdout %q; want a failure", res.ExitCode, res.Stdout)
		}
		res = run(t, sb, &sandbox.Command{Args: connect, Network: true})
		if res.ExitCode != 0 || string(res.Stdout) != "hello\n" {
			t.Errorf("network allowed: connect exit %d, stdout %q, stderr %q; want 0, \"hello\\n\"", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
}

// TestCannotSignalOutside checks that the command can neither see nor
// signal the test's own process: a PID namespace hides it, Landlock's
// signal scope forbids it.
func TestCannotSignalOutside(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: sh("kill -0 " + self + " && echo reached")})
		if res.ExitCode == 0 || bytes.Contains(res.Stdout, []byte("reached")) {
			t.Errorf("kill -0 %s from the sandbox: exit %d, stdout %q; want a failure", self, res.ExitCode, res.Stdout)
		}
		// The command can still signal its own processes.
		res = run(t, sb, &sandbox.Command{Args: sh("sleep 60 & kill $! && wait $!; echo $?")})
		if string(res.Stdout) != "143\n" {
			t.Errorf("killing its own child: stdout %q, stderr %q; want \"143\\n\"", res.Stdout, res.Stderr)
		}
	})
}

func TestPIDNamespace(t *testing.T) {
	for _, sb := range sandboxes(t) {
		if !sb.Capabilities().PIDNamespace {
			continue
		}
		t.Run(string(sb.Capabilities().Mechanism), func(t *testing.T) {
			res := run(t, sb, &sandbox.Command{Args: sh("ls /proc | grep -c '^[0-9]'")})
			n, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
			if err != nil || n > 5 {
				t.Errorf("processes seen in the sandbox: %q (%v), want at most 5", res.Stdout, err)
			}
		})
	}
}

func TestCPULimit(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: sh("while :; do :; done"), CPUTime: time.Second, Timeout: time.Minute})
		if res.Limit != "cpu" || res.Signal != "SIGXCPU" {
			t.Errorf("busy loop: limit %q, signal %q, exit %d; want cpu, SIGXCPU", res.Limit, res.Signal, res.ExitCode)
		}
	})
}

func TestMemoryLimit(t *testing.T) {
	// awk doubles a string until it is 1 GiB: far past the limit.
	grow := []string{"awk", `BEGIN { s = "x"; while (length(s) < 1073741824) s = s s; print "done" }`}
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: grow, Memory: 64 << 20})
		if res.ExitCode == 0 || bytes.Contains(res.Stdout, []byte("done")) {
			t.Errorf("allocating 1 GiB under a 64 MiB limit: exit %d, stdout %q; want a failure", res.ExitCode, res.Stdout)
		}
	})
}

func TestFileSizeLimit(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		scratch := t.TempDir()
		res := run(t, sb, &sandbox.Command{Args: sh("head -c 2000000 /dev/zero > big"), Scratch: scratch, MaxFileSize: 1 << 20})
		fi, err := os.Stat(filepath.Join(scratch, "big"))
		if res.ExitCode == 0 || err != nil || fi.Size() > 1<<20 {
			t.Errorf("writing 2 MB under a 1 MiB limit: exit %d, file %v %v; want a failure and at most 1 MiB", res.ExitCode, fi, err)
		}
	})
}

func TestOutputLimit(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: []string{"yes"}, MaxOutput: 1000})
		if !res.Truncated || res.Limit != "output" || len(res.Stdout) != 1000 {
			t.Errorf("yes: truncated %t, limit %q, %d bytes; want true, output, 1000", res.Truncated, res.Limit, len(res.Stdout))
		}
	})
}

func TestTimeoutKillsEverything(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		// A child in the background, one in a session of its own, and the
		// shell itself all sleep; each gets a mark of its own.
		mark := processMark(t)
		script := "sleep 3601." + mark + " & setsid sleep 3602." + mark + " & sleep 3603." + mark
		res := run(t, sb, &sandbox.Command{Args: sh(script), Timeout: 300 * time.Millisecond})
		if res.Limit != "timeout" {
			t.Errorf("limit %q, want timeout", res.Limit)
		}
		if left := processesWith(t, "."+mark); len(left) > 0 {
			t.Errorf("still running after Run returned: %q", left)
		}
	})
}

func TestLeftoversDieWithTheCommand(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		mark := processMark(t)
		res := run(t, sb, &sandbox.Command{Args: sh("sleep 3604." + mark + " > /dev/null 2>&1 & echo started")})
		if res.ExitCode != 0 || res.Limit != "" {
			t.Errorf("exit %d, limit %q; want 0 and none", res.ExitCode, res.Limit)
		}
		if left := processesWith(t, "."+mark); len(left) > 0 {
			t.Errorf("still running after Run returned: %q", left)
		}
	})
}

// processMark returns the mark that the processes t starts carry in
// their command lines (sleep 3601.MARK), for processesWith to find them
// and no others: the test process's id and a hash of the test's name, 16
// digits. It differs between the tests of one process and between test
// processes running at once, and is never short enough for another
// command line to hold it by chance.
func processMark(t *testing.T) string {
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return fmt.Sprintf("%08d%08d", os.Getpid()%1e8, h.Sum32()%1e8)
}

// processesWith lists the command lines of live processes that contain
// s.
func processesWith(t *testing.T, s string) []string {
	t.Helper()
	names, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || !bytes.Contains(b, []byte(s)) {
			continue
		}
		stat, err := os.ReadFile(strings.TrimSuffix(n, "cmdline") + "stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue // a zombie has gone, only its exit status is left
		}
		found = append(found, string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	return found
}

func TestExitStatusAndStdin(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: sh("cat; echo err >&2; exit 3"), Stdin: strings.NewReader("in\n")})
		if res.ExitCode != 3 || string(res.Stdout) != "in\n" || string(res.Stderr) != "err\n" || res.Signal != "" {
			t.Errorf("got exit %d, signal %q, stdout %q, stderr %q; want 3, none, \"in\\n\", \"err\\n\"", res.ExitCode, res.Signal, res.Stdout, res.Stderr)
		}
		res = run(t, sb, &sandbox.Command{Args: sh("kill -TERM $$")})
		if res.ExitCode != -1 || res.Signal != "SIGTERM" {
			t.Errorf("killed by SIGTERM: exit %d, signal %q; want -1, SIGTERM", res.ExitCode, res.Signal)
		}
	})
}

func TestProgramNotFound(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		_, err := sb.Run(t.Context(), &sandbox.Command{Args: []string{"no-such-program-wield"}})
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("Run(no-such-program) = %v, want a not-found error", err)
		}
	})
}

func TestMinimumUnmet(t *testing.T) {
	cases := []struct {
		name string
		cfg  sandbox.Config
		want string
	}{
		{"no bwrap", sandbox.Config{Mechanism: sandbox.Bubblewrap, Bwrap: "/nonexistent/bwrap"}, "install bubblewrap"},
		{"landlock has no PID namespace", sandbox.Config{Mechanism: sandbox.Landlock, Minimum: sandbox.LevelProcesses}, "landlock"},
		{"limits only is not isolation", sandbox.Config{Mechanism: sandbox.NoIsolation}, `isolation "network"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Helper = helper(t)
			sb, err := sandbox.New(t.Context(), c.cfg)
			ue, ok := errors.AsType[*sandbox.UnavailableError](err)
			if !ok {
				t.Fatalf("New(%+v) = %v, %v; want an *UnavailableError", c.cfg, sb, err)
			}
			if ue.Minimum < sandbox.LevelNetwork || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q (minimum %s); want it to mention %q", err, ue.Minimum, c.want)
			}
		})
	}
	t.Run("limits only when asked", func(t *testing.T) {
		sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: sandbox.NoIsolation, Minimum: sandbox.LevelLimits})
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, sb, &sandbox.Command{Args: sh("while :; do :; done"), CPUTime: time.Second})
		if res.Limit != "cpu" {
			t.Errorf("busy loop without isolation: limit %q, want cpu", res.Limit)
		}
	})
}

func TestHelperRequired(t *testing.T) {
	if _, err := sandbox.New(t.Context(), sandbox.Config{}); err == nil {
		t.Error("New without a helper succeeded")
	}
}

// TestWrap starts a wrapped command as a caller that runs the process
// itself would, and checks that the sandbox holds.
func TestWrap(t *testing.T) {
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		scratch := t.TempDir()
		w, err := sb.Wrap(&sandbox.Command{Args: sh("echo in > f && cat f && echo x > /etc/wield-wrap-test"), Scratch: scratch})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Cleanup()
		cmd := exec.Command(w.Args[0], w.Args[1:]...)
		cmd.Env = w.Env
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.HasPrefix(string(out), "in\n") {
			t.Errorf("wrapped command: %v, output %q; want it to write its scratch directory and fail at /etc", err, out)
		}
		if _, err := os.Stat("/etc/wield-wrap-test"); err == nil {
			os.Remove("/etc/wield-wrap-test")
			t.Error("/etc/wield-wrap-test was created")
		}
	})
}
