package shell

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// This file finds, signals, waits for and reaps the processes of a
// command on Linux, using /proc and pidfds. See "Which processes are
// killed" in doc.go.

// sysProcAttr starts the shell in a session of its own: it leads a new
// process group (so one kill(-pgid) reaches the pipeline) and has no
// controlling terminal (so a program that opens /dev/tty to prompt fails
// at once instead of stopping the job on SIGTTIN).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// startSupported returns an error if commands cannot be run safely here.
func startSupported() error { return nil }

// setSubreaper makes this process a child subreaper: orphaned
// descendants are re-parented to it rather than to init.
func setSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// clockTicks returns the time since boot in the units of the start time
// in /proc/PID/stat (USER_HZ, 100 a second on every Linux ABI).
func clockTicks() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0
	}
	return uint64(ts.Nano() / int64(10*time.Millisecond))
}

// lastPID returns the last process id the kernel handed out in this pid
// namespace, or -1. If it is still the shell's own pid when the shell has
// exited, the shell created no process: nothing can be left behind.
func lastPID() int {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	b = bytes.TrimSpace(b)
	i := bytes.LastIndexByte(b, ' ')
	n, err := strconv.Atoi(string(b[i+1:]))
	if err != nil {
		return -1
	}
	return n
}

// A pinfo is what /proc/PID/stat says about a process.
type pinfo struct {
	pid, ppid, pgid, sid int
	state                byte
	start                uint64
}

func readStat(pid int, buf []byte) (pinfo, bool) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return pinfo{}, false
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return pinfo{}, false
	}
	return parseStat(buf[:n])
}

// parseStat parses a /proc/PID/stat line. The command name is in
// parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(b []byte) (pinfo, bool) {
	var p pinfo
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open || end+2 >= len(b) {
		return p, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return p, false
	}
	p.pid = pid
	fields := bytes.Fields(b[end+2:])
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 {
		return p, false
	}
	p.state = fields[0][0]
	p.ppid, _ = strconv.Atoi(string(fields[1]))
	p.pgid, _ = strconv.Atoi(string(fields[2]))
	p.sid, _ = strconv.Atoi(string(fields[3]))
	p.start, _ = strconv.ParseUint(string(fields[19]), 10, 64)
	return p, true
}

// A group identifies the processes of one command: those in the shell's
// session or process group, those whose environment holds the command's
// marker, the children of its supervisor, and the descendants of any of
// these.
type group struct {
	pid     int      // the shell; also the session and process group id; 0 when unknown
	markers [][]byte // "WIELD_SHELL_JOB=<token>"
	start   uint64   // clock ticks at start, minus one
	// adopter, when not 0, is the command's supervisor: a subreaper whose
	// children other than the shell are orphans of the command.
	adopter int
	// seen records the processes found alive before, by pid and start
	// time, so that they are known again as zombies.
	seen map[int]uint64
}

// members lists the processes of g that are alive now, and the zombies
// among its processes that are this process's children (adopted when
// this process is a subreaper).
func (g group) members() (alive, zombies []pinfo) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	buf := make([]byte, 1024)
	all := make([]pinfo, 0, len(names))
	in := map[int]bool{}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		p, ok := readStat(pid, buf)
		if !ok || p.sid == 0 && p.pgid == 0 { // kernel threads
			continue
		}
		all = append(all, p)
		if g.pid > 0 && (p.sid == g.pid || p.pgid == g.pid || p.pid == g.pid) {
			in[p.pid] = true
		} else if start, ok := g.seen[p.pid]; ok && start == p.start {
			in[p.pid] = true
		}
	}
	// The marker: only processes started since the command began can
	// carry it, and a zombie's environment can no longer be read.
	for _, p := range all {
		if !in[p.pid] && p.start >= g.start && p.state != 'Z' && g.hasMarker(p.pid) {
			in[p.pid] = true
		}
	}
	// Descendants, to any depth.
	for grown := true; grown; {
		grown = false
		for _, p := range all {
			if !in[p.pid] && (in[p.ppid] || g.adopter != 0 && p.ppid == g.adopter) && p.start >= g.start {
				in[p.pid] = true
				grown = true
			}
		}
	}
	for _, p := range all {
		switch {
		case !in[p.pid]:
		case p.state == 'Z' || p.state == 'X':
			if p.ppid == self && p.pid != g.pid {
				zombies = append(zombies, p)
			}
		default:
			alive = append(alive, p)
			if g.seen != nil {
				g.seen[p.pid] = p.start
			}
		}
	}
	return alive, zombies
}

// readEnviron returns a process's environment. A process in the middle of
// an exec (a daemon that wrote its pid and now execs its program) shows
// an empty one for a moment: an empty read is tried again a few times,
// a millisecond apart, before it is believed.
func readEnviron(pid int) ([]byte, error) {
	name := "/proc/" + strconv.Itoa(pid) + "/environ"
	for range 5 {
		env, err := os.ReadFile(name)
		if err != nil || len(env) > 0 {
			return env, err
		}
		time.Sleep(time.Millisecond)
	}
	return os.ReadFile(name)
}

func (g group) hasMarker(pid int) bool {
	if len(g.markers) == 0 {
		return false
	}
	env, err := readEnviron(pid)
	if err != nil {
		return false
	}
	for len(env) > 0 {
		kv := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			kv, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		for _, m := range g.markers {
			if bytes.Equal(kv, m) {
				return true
			}
		}
	}
	return false
}

// A handle is a pidfd: a reference to one process that cannot be
// confused with a later process of the same pid.
type handle struct {
	fd  int
	pid int
}

// openHandle returns a handle on p, or false if p has gone or its pid
// now names another process.
func openHandle(p pinfo) (handle, bool) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		// Before Linux 5.3: signal by pid, and do not wait.
		return handle{fd: -1, pid: p.pid}, true
	}
	if err != nil {
		return handle{}, false
	}
	// The pid may have been reused between reading /proc and opening the
	// pidfd: check that it is still the process we read.
	q, ok := readStat(p.pid, make([]byte, 1024))
	if !ok || q.start != p.start {
		unix.Close(fd)
		return handle{}, false
	}
	return handle{fd: fd, pid: p.pid}, true
}

func (h handle) signal(sig syscall.Signal) {
	if h.fd < 0 {
		unix.Kill(h.pid, sig)
		return
	}
	if err := unix.PidfdSendSignal(h.fd, sig, nil, 0); errors.Is(err, unix.ENOSYS) {
		unix.Kill(h.pid, sig)
	}
}

func (h handle) close() {
	if h.fd >= 0 {
		unix.Close(h.fd)
	}
}

// signalGroup sends sig to g's process group and to each of its other
// processes, and returns handles on those it signalled. The caller closes
// them.
func (g group) signal(sig syscall.Signal) []handle {
	if g.pid > 0 { // kill(0) would signal this process's own group
		unix.Kill(-g.pid, sig)
		if sig == unix.SIGTERM {
			// A stopped process acts on SIGTERM only once continued.
			unix.Kill(-g.pid, unix.SIGCONT)
		}
	}
	alive, _ := g.members()
	hs := make([]handle, 0, len(alive))
	for _, p := range alive {
		h, ok := openHandle(p)
		if !ok {
			continue
		}
		h.signal(sig)
		if sig == unix.SIGTERM {
			h.signal(unix.SIGCONT)
		}
		hs = append(hs, h)
	}
	return hs
}

// waitExit waits until every process of hs has exited or d has passed,
// and closes the handles. It reports whether all exited.
func waitExit(hs []handle, d time.Duration) bool {
	defer func() {
		for _, h := range hs {
			h.close()
		}
	}()
	deadline := time.Now().Add(d)
	fds := make([]unix.PollFd, 0, len(hs))
	for _, h := range hs {
		if h.fd >= 0 { // without a pidfd there is nothing to wait on
			fds = append(fds, unix.PollFd{Fd: int32(h.fd), Events: unix.POLLIN})
		}
	}
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll(fds, int((left+time.Millisecond-1)/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		if n == 0 {
			continue
		}
		kept := fds[:0]
		for _, f := range fds {
			if f.Revents == 0 {
				kept = append(kept, f)
			}
		}
		fds = kept
	}
	return true
}

// reap collects the exit status of zombies that this process adopted as
// a subreaper, so that they do not linger until it exits. Only processes
// found to belong to a command are reaped: a child started by other code
// must be left to that code's Wait.
func reap(zombies []pinfo) {
	for _, z := range zombies {
		var ws unix.WaitStatus
		unix.Wait4(z.pid, &ws, unix.WNOHANG, nil)
	}
}

func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(sig))
}

// sweep kills the processes that carry one of markers; see [Sweep].
func sweep(markers []string) int {
	g := group{}
	for _, m := range markers {
		if m != "" {
			g.markers = append(g.markers, []byte(markerVar+"="+m))
		}
	}
	if len(g.markers) == 0 {
		return 0
	}
	killed := map[int]bool{}
	for range 10 { // a process may fork while we kill; go round again
		hs := g.signal(unix.SIGKILL)
		if len(hs) == 0 {
			break
		}
		for _, h := range hs {
			killed[h.pid] = true
		}
		waitExit(hs, killWait)
	}
	return len(killed)
}
