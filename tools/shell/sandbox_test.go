package shell

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wieldhq/wield/sandbox"
)

// testSandbox returns the strongest sandbox this machine offers, with the
// test binary as its helper, and fails the test when there is none.
func testSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: []string{"/proc/self/exe", sandbox.HelperArg}})
	if err != nil {
		t.Fatalf("no sandbox on this machine: %v", err)
	}
	return sb
}

// TestRunShellCommand_Sandbox runs commands with Config.Sandbox, with and
// without a supervisor: writes inside the workspace and TMPDIR succeed,
// writes elsewhere and the network fail, and nothing is left behind.
func TestRunShellCommand_Sandbox(t *testing.T) {
	sb := testSandbox(t)
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
	for _, supervised := range []bool{false, true} {
		t.Run("supervised="+strconv.FormatBool(supervised), func(t *testing.T) {
			cfg := Config{Sandbox: sb}
			if supervised {
				cfg = withSupervisor(cfg)
			}
			h := newHarness(t, cfg, true)
			outside := t.TempDir()
			cases := []struct {
				name, command string
				ok            bool
				want          string // in the output
			}{
				{"write the workspace", "mkdir -p sub && echo x > sub/f && cat sub/f", true, "x"},
				{"write TMPDIR", `echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`, true, "t"},
				{"write outside the workspace", "echo x > " + filepath.Join(outside, "f"), false, "Read-only file system"},
				{"write /etc", "echo x > /etc/wield-shell-escape", false, "Read-only file system"},
				{"reach the network", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && head -n1 <&3", false, ""},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					res := h.run(RunInput{Command: c.command})
					if res.Success != c.ok || !strings.Contains(res.Output, c.want) {
						t.Errorf("run(%q) = success %t, output %q, error %q; want success %t and output with %q", c.command, res.Success, res.Output, res.Error, c.ok, c.want)
					}
					if strings.Contains(res.Output, "hello") {
						t.Errorf("run(%q) reached the network: %q", c.command, res.Output)
					}
				})
			}
			if _, err := os.Stat(filepath.Join(h.dir, "sub/f")); err != nil {
				t.Errorf("file written in the workspace: %v", err)
			}
			for _, p := range []string{filepath.Join(outside, "f"), "/etc/wield-shell-escape"} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					os.Remove(p)
					t.Errorf("%s: %v, want it not to exist", p, err)
				}
			}
			res := h.run(RunInput{Command: `echo "$TMPDIR"`})
			tmp := strings.TrimSpace(res.Output)
			if _, err := os.Stat(tmp); tmp == "" || !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command's TMPDIR %q after it ended: %v, want it removed", tmp, err)
			}
		})
	}
}

// TestRunShellCommand_SandboxBackground checks that a background job
// runs in the sandbox and is stopped, with all it started, by shell_kill.
func TestRunShellCommand_SandboxBackground(t *testing.T) {
	h := newHarness(t, withSupervisor(Config{Sandbox: testSandbox(t)}), true)
	res := h.run(RunInput{Command: "sleep 300 & echo started; (echo x > /etc/wield-bg) 2>&1; wait", Background: true})
	if !res.Success {
		t.Fatalf("background start: %+v", res)
	}
	id := data(t, res).JobID
	if res := h.kill(id); !res.Success && !strings.Contains(res.Error, "killed") {
		t.Errorf("shell_kill: %+v", res)
	}
	if _, err := os.Stat("/etc/wield-bg"); err == nil {
		os.Remove("/etc/wield-bg")
		t.Error("the background job wrote /etc/wield-bg")
	}
}
