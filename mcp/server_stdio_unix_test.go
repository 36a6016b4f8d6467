//go:build unix

package mcp

import (
	"bufio"
	"io"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// blocking reports whether fd is in blocking mode.
func blocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK == 0
}

// TestPollStdin checks PollStdin on a blocking pipe, as a client hands a
// server its standard input: the reader reads what the client writes and
// sees the end of the input; done puts the pipe back in blocking mode
// and leaves the original descriptor open. A regular file comes back as
// it is.
func TestPollStdin(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil { // blocking, unlike os.Pipe's
		t.Fatal(err)
	}
	rf, wf := os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "client")
	defer rf.Close()
	if !blocking(t, p[0]) {
		t.Fatal("syscall.Pipe gave a non-blocking pipe")
	}
	r := PollStdin(rf)
	done := func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	if _, ok := r.(*polledStdin); !ok {
		t.Fatalf("PollStdin returned %T for a pipe", r)
	}
	if blocking(t, p[0]) {
		t.Error("the pipe is still in blocking mode")
	}
	go func() {
		_, _ = io.WriteString(wf, "{\"jsonrpc\":\"2.0\"}\nsecond\n")
		wf.Close()
	}()
	br := bufio.NewReader(r)
	for _, want := range []string{"{\"jsonrpc\":\"2.0\"}\n", "second\n"} {
		if got, err := br.ReadString('\n'); got != want || err != nil {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	if _, err := br.ReadString('\n'); err != io.EOF {
		t.Fatalf("at the end of the input: %v, want io.EOF", err)
	}
	done()
	if !blocking(t, p[0]) {
		t.Error("after done the pipe is still non-blocking")
	}
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_GETFD, 0); err != nil {
		t.Errorf("after done the original descriptor is closed: %v", err)
	}

	// A Read waiting for input when done is called returns.
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	rf2, wf2 := os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "client")
	defer rf2.Close()
	defer wf2.Close()
	r2 := PollStdin(rf2)
	read := make(chan error, 1)
	go func() {
		_, err := r2.Read(make([]byte, 8))
		read <- err
	}()
	r2.Close()
	if err := <-read; err == nil {
		t.Error("a Read waiting when done was called returned no error")
	}

	f, err := os.CreateTemp(t.TempDir(), "requests")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := PollStdin(f); r == nil {
		t.Error("PollStdin gave nil for a regular file")
	} else if _, ok := r.(*polledStdin); ok {
		t.Error("PollStdin made a regular file non-blocking")
	} else if err := r.Close(); err != nil {
		t.Error(err)
	}
	if _, err := f.Stat(); err != nil {
		t.Errorf("Close closed the regular file: %v", err)
	}
}
