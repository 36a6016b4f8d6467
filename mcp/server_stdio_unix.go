//go:build unix

package mcp

import (
	"io"
	"os"
	"syscall"
)

// PollStdin returns a reader of f, meant to be standard input, that waits
// for input in the Go runtime's poller rather than in a blocking read(2).
// A goroutine blocked in read(2) keeps one of the runtime's processors
// (GOMAXPROCS of them) until the runtime's monitor takes it back, which
// takes up to 10 ms when the process is otherwise busy: on two cores, a
// server building its tools while it answers the client's initialize
// measured 15 to 20 ms slower for it.
//
// It does so only for a pipe or a socket, through a duplicate of f's
// descriptor in non-blocking mode; a terminal or a regular file, whose
// other readers would see the mode change, comes back as f. done puts
// the descriptor back in blocking mode, which other readers of the same
// pipe expect, and closes the duplicate (so a Read waiting on it
// returns); call it once reading is over.
func PollStdin(f *os.File) (r io.Reader, done func()) {
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return f, func() {}
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return f, func() {}
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return f, func() {}
	}
	syscall.CloseOnExec(dup)
	// The mode belongs to the open file description, which the duplicate
	// shares with fd: set on one, it is set on both.
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return f, func() {}
	}
	nf := os.NewFile(uintptr(dup), f.Name()) // non-blocking, so on the poller
	return nf, func() {
		_ = syscall.SetNonblock(fd, false)
		_ = nf.Close()
	}
}
