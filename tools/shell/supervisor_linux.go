package shell

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// This file holds both sides of the supervisor (see "Supervisor" in
// doc.go and design/processes.md): Supervise, which runs in the
// supervisor process, and supervised, the host's handle on one.
//
// The protocol. The host starts Config.Supervisor followed by TOKEN
// PROGRAM ARGS..., in the command's directory and environment, in a
// process group of its own, with
//
//	fd 0  the command's standard input
//	fd 3  one end of a stream socket whose other end the host keeps
//	fd 4  the write end of the command's output pipe
//
// The supervisor becomes a child subreaper, starts PROGRAM in a session
// of its own with WIELD_SHELL_JOB=TOKEN added to its environment and fd 4
// as its standard output and error, and writes to fd 3 one line:
// "pid N" once PROGRAM runs, or "error MESSAGE" if it could not start.
// When PROGRAM exits it writes "exit W CLEAN": W is the wait status, and
// CLEAN is "true" when nothing PROGRAM started is left. The supervisor
// exits once nothing of the command is left. End of file on fd 3 means
// the host has gone: the supervisor then kills every process of the
// command and exits.

const (
	supervisorCtlFD = 3
	supervisorOutFD = 4
	// supervisorStartTimeout bounds the wait for a supervisor to say that
	// the shell runs; it takes milliseconds.
	supervisorStartTimeout = 30 * time.Second
)

// Supervise runs a command supervisor, the process [Config.Supervisor]
// starts for each command, and returns the exit status for the process:
// the command's exit code, or 128+N when signal N killed it; 125 when the
// supervisor cannot work, 127 when the command could not be started and
// 2 when args are not what the shell tools pass. args are the arguments
// that follow Config.Supervisor's on the command line; the file
// descriptors must be those the shell tools set up. A program that names
// itself in Config.Supervisor calls Supervise first thing when its
// arguments say so, and exits with the status:
//
//	if len(os.Args) > 1 && os.Args[1] == "__shell-supervisor" {
//		os.Exit(shell.Supervise(os.Args[2:]))
//	}
//
// Supervise is meant to be the whole life of its process: its goroutines,
// blocked in wait4 and read, end with the process. On systems other than
// Linux it returns 2 at once.
func Supervise(args []string) int {
	if len(args) < 2 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "shell supervisor: want TOKEN PROGRAM [ARG...]")
		return 2
	}
	for _, fd := range []int{supervisorCtlFD, supervisorOutFD} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			fmt.Fprintf(os.Stderr, "shell supervisor: file descriptor %d: %v (the shell tools start the supervisor)\n", fd, err)
			return 2
		}
	}
	// The command must not inherit the control socket, or write to it.
	syscall.CloseOnExec(supervisorCtlFD)
	ctl := os.NewFile(supervisorCtlFD, "supervisor-control")
	sv := &supervisor{ctl: ctl, marker: markerVar + "=" + args[0], self: os.Getpid()}
	return sv.run(args[1:])
}

// A supervisor is the state of the process Supervise runs.
type supervisor struct {
	ctl    *os.File
	marker string
	self   int
}

// A shellExit is what the reaper learns when the shell exits.
type shellExit struct {
	ws    unix.WaitStatus
	clean bool // nothing else of the command is left
}

func (sv *supervisor) run(argv []string) int {
	if err := setSubreaper(); err != nil {
		fmt.Fprintf(sv.ctl, "error become a child subreaper: %v\n", err)
		return 125
	}
	// These signals are passed on to the command's process group; those
	// that arrive before the shell runs wait in the channel.
	sigc := make(chan os.Signal, 8)
	signal.Notify(sigc, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2)
	start := clockTicks()
	if start > 0 {
		start--
	}
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   append(os.Environ(), sv.marker),
		Files: []uintptr{0, supervisorOutFD, supervisorOutFD},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	// Only the command may hold the output pipe, so that the host reads
	// end of file when the command's processes are gone.
	unix.Close(supervisorOutFD)
	if err != nil {
		fmt.Fprintf(sv.ctl, "error fork/exec %s: %v\n", argv[0], err)
		return 127
	}
	if _, err := fmt.Fprintf(sv.ctl, "pid %d\n", pid); err != nil {
		sv.killTree(pid, start)
		return 125
	}

	exited := make(chan shellExit, 1)
	empty := make(chan struct{}) // closed when the supervisor has no child left
	go sv.reap(pid, exited, empty)
	gone := make(chan struct{}) // closed when the host has gone, or is done
	go func() {
		io.Copy(io.Discard, sv.ctl)
		close(gone)
	}()

	code, running := 0, true
	for {
		select {
		case sig := <-sigc:
			if running {
				unix.Kill(-pid, sig.(syscall.Signal))
			}
		case e := <-exited:
			running = false
			code = exitStatus(e.ws)
			fmt.Fprintf(sv.ctl, "exit %d %t\n", uint32(e.ws), e.clean)
			if e.clean {
				return code
			}
		case <-empty:
			return code
		case <-gone:
			if !running {
				pid = 0 // the shell has been reaped: its pid may name another process now
			}
			sv.killTree(pid, start)
			if running {
				return 128 + int(unix.SIGKILL)
			}
			return code
		}
	}
}

// reap collects the exit status of every child of the supervisor: the
// shell, and the orphans of the command that the kernel re-parents to it.
// It sends the shell's status on exited, saying whether anything else is
// left, and closes empty when the supervisor has no children left after
// that.
func (sv *supervisor) reap(shell int, exited chan<- shellExit, empty chan<- struct{}) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil { // ECHILD: nothing left
			close(empty)
			return
		}
		if pid != shell {
			continue
		}
		// The shell's children, if any are alive, are the supervisor's
		// now: they were re-parented before the shell could be reaped.
		clean := noChildren()
		exited <- shellExit{ws: ws, clean: clean}
		if clean {
			return
		}
	}
}

// noChildren reaps the zombie children of this process and reports
// whether none is left.
func noChildren() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return errors.Is(err, unix.ECHILD)
		case pid == 0:
			return false
		}
	}
}

// killTree kills every process of the command, the shell pid (0 once it
// has been reaped) included, and waits until they have gone.
func (sv *supervisor) killTree(shell int, start uint64) {
	g := group{pid: shell, markers: [][]byte{[]byte(sv.marker)}, start: start, adopter: sv.self}
	for range 10 { // a process may fork while we kill; go round again
		hs := g.signal(unix.SIGKILL)
		if len(hs) == 0 {
			return
		}
		waitExit(hs, killWait)
	}
}

// exitStatus returns the exit status a shell reports for a child that
// ended with ws.
func exitStatus(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// supervised is the host's side of one supervisor: the control socket
// and what the supervisor said on it.
type supervised struct {
	ctl   *os.File // the host's end
	child *os.File // the supervisor's end, until it has started
	r     *bufio.Reader
	// Set by wait.
	ws    syscall.WaitStatus
	clean bool
	got   bool // whether ws and clean were reported
}

// supervisedCmd returns the command that starts spec's shell under
// spec.supervisor, with out as its output.
func supervisedCmd(spec procSpec, token string, out *os.File) (*exec.Cmd, *supervised, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("create supervisor socket: %w", err)
	}
	// The host's end is read with deadlines, through the runtime's poller.
	unix.SetNonblock(fds[0], true)
	sup := &supervised{ctl: os.NewFile(uintptr(fds[0]), "supervisor"), child: os.NewFile(uintptr(fds[1]), "supervisor-control")}
	sup.r = bufio.NewReaderSize(sup.ctl, 256)
	args := append(append(append([]string(nil), spec.supervisor...), token), spec.commandLine()...)
	cmd := &exec.Cmd{
		Path:       spec.supervisor[0],
		Args:       args,
		Dir:        spec.dir,
		Env:        spec.env,
		ExtraFiles: []*os.File{sup.child, out}, // fds 3 and 4
		// A process group of its own keeps the terminal's ^C and ^Z, which
		// wield handles, from reaching it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	return cmd, sup, nil
}

// started is called once cmd, the supervisor, has started (err nil) or
// failed to. It returns the pid of the shell. On an error the supervisor
// has been killed and waited for, and sup closed.
func (sup *supervised) started(cmd *exec.Cmd, err error) (int, error) {
	sup.child.Close()
	if err != nil {
		sup.ctl.Close()
		return 0, err
	}
	sup.ctl.SetReadDeadline(time.Now().Add(supervisorStartTimeout))
	line, err := sup.r.ReadString('\n')
	sup.ctl.SetReadDeadline(time.Time{})
	word, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	var pid int
	switch {
	case err != nil:
		err = fmt.Errorf("supervisor %s did not start the shell: %w", cmd.Path, err)
	case word == "pid":
		if pid, err = strconv.Atoi(rest); err == nil && pid > 0 {
			return pid, nil
		}
		err = fmt.Errorf("supervisor %s: bad reply %q", cmd.Path, line)
	case word == "error":
		err = errors.New(rest)
	default:
		err = fmt.Errorf("supervisor %s: bad reply %q", cmd.Path, line)
	}
	sup.ctl.Close()
	cmd.Process.Kill()
	cmd.Wait()
	return 0, err
}

// wait waits until the supervisor reports how the shell ended, or ends
// without saying.
func (sup *supervised) wait() {
	line, err := sup.r.ReadString('\n')
	if err != nil {
		return
	}
	var ws uint32
	var clean bool
	if _, err := fmt.Sscanf(line, "exit %d %t\n", &ws, &clean); err == nil {
		sup.ws, sup.clean, sup.got = syscall.WaitStatus(ws), clean, true
	}
}

// status returns the shell's wait status, if the supervisor reported it.
func (sup *supervised) status() (syscall.WaitStatus, bool) { return sup.ws, sup.got }

// nothingLeft reports whether the supervisor said that the command left
// no process behind.
func (sup *supervised) nothingLeft() bool { return sup.got && sup.clean }

// release tells the supervisor that the host is done, which makes it kill
// whatever of the command is left and exit, and waits for it.
func (sup *supervised) release(cmd *exec.Cmd) error {
	sup.ctl.Close()
	return cmd.Wait()
}
