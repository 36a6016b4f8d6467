//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// markerVar marks every process of a run, so that those which leave its
// process group are still found and killed.
const markerVar = "WIELD_SANDBOX"

// drainTimeout bounds the reading of output once every process of a run
// has been killed; a process that escaped the kill may hold the pipes.
const drainTimeout = time.Second

var (
	errTimeout = errors.New("sandbox: wall-clock limit reached")
	errOutput  = errors.New("sandbox: output limit reached")
)

// Run runs c in the sandbox and returns how it ended. A command that
// exits non-zero, or is stopped by a limit, is a Result with a nil error;
// the error is for a command that could not be started (not found, or
// the sandbox could not be set up) and, with the Result so far, for ctx
// ending. When Run returns, every process of the command has been killed,
// save one that escaped as "What is not guaranteed" in the package
// documentation says.
func (s *Sandbox) Run(ctx context.Context, c *Command) (*Result, error) {
	p, err := s.prepare(c)
	if err != nil {
		return nil, err
	}
	defer p.cleanup()
	res := &Result{Mechanism: s.caps.Mechanism}
	token := rand.Text()
	env := append(p.env[:len(p.env):len(p.env)], markerVar+"="+token)

	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer statusR.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p.spec.StatusFD = 3
	p.spec.Host = os.Getpid()
	cmd := &exec.Cmd{
		Path:       s.cfg.Helper[0],
		Args:       append(append([]string(nil), s.cfg.Helper...), p.spec.encode()),
		Env:        env,
		Dir:        "/",
		Stdin:      c.Stdin,
		Stdout:     outW,
		Stderr:     errW,
		ExtraFiles: []*os.File{statusW},
		// A process group of its own, for one kill to reach; death with
		// the thread that started it (wield), for nothing to outlive it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
		WaitDelay:   drainTimeout,
	}

	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	runCtx, cancel := context.WithTimeoutCause(runCtx, p.timeout, errTimeout)
	defer cancel()

	start := time.Now()
	err = cmd.Start()
	statusW.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("sandbox: start helper %s: %w", cmd.Path, err)
	}
	pid := cmd.Process.Pid
	marker := markerVar + "=" + token

	stdout := &capped{max: p.maxOutput, stop: func() { stop(errOutput) }}
	stderr := &capped{max: p.maxOutput, stop: func() { stop(errOutput) }}
	var readers sync.WaitGroup
	readers.Go(func() { stdout.readFrom(outR) })
	readers.Go(func() { stderr.readFrom(errR) })

	exited := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		select {
		case <-runCtx.Done():
			// The helper is not reaped yet, so its pid still names its
			// process group.
			unix.Kill(-pid, unix.SIGKILL)
			sweep(marker)
		case <-exited:
		}
	})

	status, _ := io.ReadAll(statusR) // end of file once the command (or bwrap) runs
	// Wait for the command to exit without reaping it: while it is a
	// zombie its pid still names its process group, and what it left
	// running there dies with it. (The sweep below finds the rest by
	// their marker, but can miss a process in the middle of an exec,
	// whose environment reads empty for a moment.)
	var info unix.Siginfo
	for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
	}
	unix.Kill(-pid, unix.SIGKILL)
	werr := cmd.Wait()
	close(exited)
	watcher.Wait()
	res.Duration = time.Since(start)
	// Whatever else the command left behind dies with it, as it does in
	// bubblewrap's PID namespace.
	sweep(marker)
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	res.Stdout, res.Stderr = stdout.buf, stderr.buf
	res.Truncated = stdout.over || stderr.over

	if len(status) > 0 {
		return nil, fmt.Errorf("sandbox: %s", bytes.TrimSpace(status))
	}
	var ws syscall.WaitStatus
	if cmd.ProcessState == nil {
		return nil, fmt.Errorf("sandbox: wait: %w", werr)
	}
	ws = cmd.ProcessState.Sys().(syscall.WaitStatus)
	res.ExitCode = ws.ExitStatus()
	var sig syscall.Signal
	if ws.Signaled() {
		sig = ws.Signal()
	} else if n, ok := signalExit(res.ExitCode); ok && s.caps.Mechanism == Bubblewrap {
		sig = syscall.Signal(n)
	}
	if sig != 0 {
		res.ExitCode = -1
		res.Signal = unix.SignalName(sig)
		if res.Signal == "" {
			res.Signal = "signal " + strconv.Itoa(int(sig))
		}
	}
	switch cause := context.Cause(runCtx); {
	case cause == errTimeout:
		res.Limit = "timeout"
	case cause == errOutput:
		res.Limit = "output"
	case sig == unix.SIGXCPU,
		sig == unix.SIGKILL && cause == nil && p.spec.CPUSeconds > 0 &&
			cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime() >= time.Duration(p.spec.CPUSeconds)*time.Second:
		res.Limit = "cpu"
	case cause != nil:
		return res, fmt.Errorf("sandbox: %w", cause)
	}
	s.log.Debug("sandbox run", "mechanism", res.Mechanism, "args", c.Args, "exit", res.ExitCode,
		"signal", res.Signal, "limit", res.Limit, "duration", res.Duration)
	return res, nil
}

// A capped keeps the first max bytes read from a stream, and calls stop
// once when there are more.
type capped struct {
	buf  []byte
	max  int
	over bool
	stop func()
}

func (c *capped) readFrom(r io.Reader) {
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 && !c.over {
			room := c.max - len(c.buf)
			if n > room {
				c.buf = append(c.buf, chunk[:room]...)
				c.over = true
				c.stop()
			} else {
				c.buf = append(c.buf, chunk[:n]...)
			}
		}
		if err != nil {
			return
		}
	}
}

// sweep kills every process whose environment holds marker and waits
// until they have gone, going round again while it finds more (a process
// may fork while it is being killed). Reading another user's environment
// takes privilege, but a sandboxed process runs as the caller's user.
func sweep(marker string) {
	m := []byte(marker)
	self := os.Getpid()
	for range 10 {
		d, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		var fds []unix.PollFd
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + name + "/environ")
			if err != nil || !slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, m) }) {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				unix.Kill(pid, unix.SIGKILL) // before Linux 5.3: kill, and go round again
				fds = append(fds, unix.PollFd{Fd: -1})
				continue
			}
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		}
		if len(fds) == 0 {
			return
		}
		waitGone(fds, killWait)
	}
}

// killWait bounds the wait for SIGKILLed processes to go.
const killWait = 5 * time.Second

// waitGone waits until the processes of the pidfds in fds have exited, or
// d has passed, and closes the pidfds. Entries with Fd -1 are skipped.
func waitGone(fds []unix.PollFd, d time.Duration) {
	open := fds[:0]
	for _, f := range fds {
		if f.Fd >= 0 {
			open = append(open, f)
		}
	}
	defer func() {
		for _, f := range fds[:len(open)] {
			unix.Close(int(f.Fd))
		}
	}()
	pending := slices.Clone(open)
	deadline := time.Now().Add(d)
	for len(pending) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll(pending, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		pending = slices.DeleteFunc(pending, func(f unix.PollFd) bool { return f.Revents != 0 })
	}
}
