//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Exit statuses of the helper when it fails before the command starts.
const (
	exitUsage = 2   // not started by Run
	exitSetup = 125 // the sandbox could not be set up
	exitExec  = 127 // the command could not be executed
)

// Enter is the sandbox helper, the process [Config.Helper] starts for
// each command. It applies the sandbox to itself and executes bwrap or
// the command in its place, so it returns only on failure: 2 when args
// are not what [Sandbox.Run] passes, 125 when the sandbox cannot be set
// up, 127 when the command cannot be executed, with the reason sent back
// to Run. args are the arguments that follow Config.Helper's on the
// command line. A program that names itself in Config.Helper calls Enter
// first thing when its arguments say so, and exits with the status:
//
//	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
//		os.Exit(sandbox.Enter(os.Args[2:]))
//	}
//
// On systems other than Linux it returns 2 at once.
func Enter(args []string) int {
	// Landlock and the exec must happen on one thread: the exec keeps
	// the credentials of the thread that calls it.
	runtime.LockOSThread()
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "sandbox helper: want one SPEC argument (sandbox.Run starts the helper)")
		return exitUsage
	}
	s, err := decodeSpec(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitUsage
	}
	status := os.Stderr
	if s.StatusFD >= 0 {
		if _, err := unix.FcntlInt(uintptr(s.StatusFD), unix.F_GETFD, 0); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox helper: status descriptor %d: %v\n", s.StatusFD, err)
			return exitUsage
		}
		unix.CloseOnExec(s.StatusFD)
		status = os.NewFile(uintptr(s.StatusFD), "sandbox-status")
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(status, format, a...)
		return code
	}
	// Never outlive the host, even if the host's parent-death signal was
	// not set; and start nothing with more privilege than the helper has.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fail(exitSetup, "set parent-death signal: %v", err)
	}
	if s.Host != 0 && os.Getppid() != s.Host {
		return fail(exitSetup, "the host is gone")
	}
	if s.Proxy != nil && s.Proxy.Inside {
		return forwardInside(s, status)
	}
	argv := s.Args
	switch s.Mechanism {
	case Bubblewrap:
		argv = s.bwrapArgs()
		if s.Proxy != nil {
			if argv, err = s.forwarderArgs(); err != nil {
				return fail(exitSetup, "%v", err)
			}
		}
	case Landlock:
		dropCapabilities()
		if err := restrictLandlock(s); err != nil {
			return fail(exitSetup, "landlock: %v", err)
		}
	}
	if s.Mechanism != Bubblewrap {
		if err := unix.Chdir(s.Dir); err != nil {
			return fail(exitExec, "chdir %s: %v", s.Dir, err)
		}
	}
	// Everything the exec needs is made before the limits are set: once
	// the data limit is in force this process may not be able to grow its
	// heap (a Go runtime built with the race detector maps a lot), and an
	// allocation then kills it before the command starts.
	argv0, err := unix.BytePtrFromString(argv[0])
	if err != nil {
		return fail(exitExec, "exec %s: %v", argv[0], err)
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return fail(exitExec, "exec %s: %v", argv[0], err)
	}
	envp, err := syscall.SlicePtrFromStrings(os.Environ())
	if err != nil {
		return fail(exitExec, "exec %s: environment: %v", argv[0], err)
	}
	if err := setLimits(s); err != nil {
		return fail(exitSetup, "%v", err)
	}
	_, _, errno := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(argv0)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	return fail(exitExec, "exec %s: %v", argv[0], errno)
}

// dropCapabilities empties the capability bounding and ambient sets, so
// that a command executed as root has no capabilities (a process without
// CAP_SETPCAP cannot, and has none to lose).
func dropCapabilities() {
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
	}
}

// setLimits sets the resource limits of s on this process, which the
// command inherits. It is the last step before the exec: a Go program
// under a low memory limit may not be able to grow.
func setLimits(s *spec) error {
	set := func(name string, res int, v uint64, hard uint64) error {
		if v == 0 {
			return nil
		}
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: v, Max: hard}); err != nil {
			return fmt.Errorf("set %s limit: %w", name, err)
		}
		return nil
	}
	unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}) // no core files in the scratch directory
	// The Go runtime raised the soft limit of open files to the hard one
	// when this helper started; the command gets the usual soft limit
	// back (syscall.Exec would restore the original, but it allocates).
	var nofile unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &nofile) == nil && nofile.Cur > 1024 {
		nofile.Cur = 1024
		unix.Setrlimit(unix.RLIMIT_NOFILE, &nofile)
	}
	// SIGXCPU at the soft limit, SIGKILL a second later.
	if err := set("CPU time", unix.RLIMIT_CPU, s.CPUSeconds, s.CPUSeconds+1); err != nil {
		return err
	}
	if err := set("memory", unix.RLIMIT_DATA, s.Memory, s.Memory); err != nil {
		return err
	}
	return set("file size", unix.RLIMIT_FSIZE, s.FileSize, s.FileSize)
}
