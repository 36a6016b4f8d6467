//go:build unix

package mcp

import (
	"io"
	"os"
	"sync"
	"syscall"
)

// PollStdin returns a reader of f, meant to be standard input, that waits
// for input in the Go runtime's poller rather than in a blocking read(2),
// and that Close interrupts. A goroutine blocked in read(2) keeps one of
// the runtime's processors (GOMAXPROCS of them) until the runtime's
// monitor takes it back, which takes up to 10 ms when the process is
// otherwise busy: on two cores, a server building its tools while it
// answered the client's initialize measured 15 to 20 ms slower for it.
// And nothing interrupts a blocking read: a server whose client keeps its
// end open could not stop on SIGTERM.
//
// It does so for a pipe or a socket, through a duplicate of f's
// descriptor in non-blocking mode. Close puts the descriptor back in
// blocking mode, which other readers of the same pipe expect, and closes
// the duplicate, so that a Read waiting on it returns; f stays open. A
// terminal or a regular file, whose other readers would see the mode
// change, is read as it is, and Close does nothing.
func PollStdin(f *os.File) io.ReadCloser {
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return io.NopCloser(f)
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return io.NopCloser(f)
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return io.NopCloser(f)
	}
	syscall.CloseOnExec(dup)
	// The mode belongs to the open file description, which the duplicate
	// shares with fd: set on one, it is set on both.
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return io.NopCloser(f)
	}
	return &polledStdin{File: os.NewFile(uintptr(dup), f.Name()), fd: fd} // non-blocking, so on the poller
}

// polledStdin is a non-blocking duplicate of standard input.
type polledStdin struct {
	*os.File
	fd   int // the original descriptor
	once sync.Once
}

func (p *polledStdin) Close() error {
	var err error
	p.once.Do(func() {
		_ = syscall.SetNonblock(p.fd, false)
		err = p.File.Close()
	})
	return err
}
