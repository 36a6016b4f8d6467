package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wieldhq/wield/sandbox"
)

// An app is a program launched on the display.
type app struct {
	command string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd.Wait has returned
	output  *capped
	scratch string // the app's scratch directory in the sandbox, if any
	cleanup func()
}

// apps are the programs launched on a display. Each runs in a process
// group of its own, gets SIGKILL from the kernel when wield dies
// (PR_SET_PDEATHSIG), and loses its X connection, which ends X programs,
// when the display's server dies; close stops them all.
type apps struct {
	mu   sync.Mutex
	list []*app
}

// launch starts command with bash -c (sh where there is no bash) on
// display d, in sb when it is not nil.
func (d *display) launch(cfg *Config, command string) (*app, error) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		if shell, err = exec.LookPath("sh"); err != nil {
			return nil, fmt.Errorf("no shell to run the command: %w", err)
		}
	}
	env := slices.DeleteFunc(slices.Clone(cfg.Environ), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "DISPLAY" || name == "XAUTHORITY" || name == "WAYLAND_DISPLAY"
	})
	env = append(env, d.env()...)
	a := &app{command: command, exited: make(chan struct{}), output: &capped{max: 4096}, cleanup: func() {}}
	argv := []string{shell, "-c", command}
	dir := cfg.Dir
	if cfg.Sandbox != nil {
		scratch, err := os.MkdirTemp("", "wield-desktop-app-")
		if err != nil {
			return nil, fmt.Errorf("scratch directory: %w", err)
		}
		env = append(slices.DeleteFunc(env, func(kv string) bool {
			return strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "HOME=")
		}), "TMPDIR="+scratch, "HOME="+scratch)
		w, err := cfg.Sandbox.Wrap(&sandbox.Command{Args: argv, Env: env, Scratch: scratch, Network: cfg.SandboxNetwork,
			// GUI programs run for as long as the display; they map large
			// shared libraries and fonts.
			CPUTime: -1, Memory: -1, MaxFileSize: -1})
		if err != nil {
			os.RemoveAll(scratch)
			return nil, err
		}
		argv, env, dir = w.Args, w.Env, scratch
		a.scratch = scratch
		a.cleanup = func() { w.Cleanup(); os.RemoveAll(scratch) }
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdout, cmd.Stderr = a.output, a.output
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		a.cleanup()
		return nil, fmt.Errorf("start %q: %w", command, err)
	}
	a.cmd = cmd
	go func() {
		cmd.Wait()
		close(a.exited)
	}()
	d.apps.mu.Lock()
	d.apps.list = append(d.apps.list, a)
	d.apps.mu.Unlock()
	return a, nil
}

// close stops every app: SIGTERM to its process group, then SIGKILL
// after grace.
func (as *apps) close(grace time.Duration) {
	as.mu.Lock()
	list := as.list
	as.list = nil
	as.mu.Unlock()
	// What an app started outside its process group, or in a sandbox's
	// PID namespace, is awaited as well.
	var gone []int
	for _, a := range list {
		gone = append(gone, descendants(a.cmd.Process.Pid)...)
		syscall.Kill(-a.cmd.Process.Pid, syscall.SIGTERM)
	}
	defer awaitGone(gone, grace)
	deadline := time.Now().Add(grace)
	for _, a := range list {
		select {
		case <-a.exited:
		case <-time.After(time.Until(deadline)):
			// The leader has not been reaped, so its pid still names the
			// group.
			syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
			<-a.exited
		}
		a.cleanup()
	}
}
