package desktop

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts a process in a process group of its own, and has the
// kernel send it SIGKILL when the thread that started it exits (with
// wield, for Go does not end its threads while it runs).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// descendants returns pidfds of the living descendants of pid, found in
// /proc, so that their end can be awaited: processes in a sandbox's PID
// namespace are not the caller's children. Processes that go while it
// reads are skipped.
func descendants(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name, in parentheses, may hold anything; the
		// parent's pid is the second field after it.
		end := bytes.LastIndexByte(b, ')')
		if end < 0 {
			continue
		}
		f := bytes.Fields(b[end+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(string(f[1]))
		parent[p] = pp
	}
	var fds []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				if fd, err := unix.PidfdOpen(p, 0); err == nil {
					fds = append(fds, fd)
				}
				break
			}
		}
	}
	return fds
}

// awaitGone waits until the processes of pidfds have exited or d has
// passed, kills those left, and closes the pidfds.
func awaitGone(pidfds []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for _, fd := range pidfds {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			left := time.Until(deadline)
			if left < 0 {
				left = 0
			}
			n, err := unix.Poll(pfd, int(left/time.Millisecond))
			if err == unix.EINTR {
				continue
			}
			if n == 0 && err == nil {
				unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				unix.Poll(pfd, 1000)
			}
			break
		}
		unix.Close(fd)
	}
}
