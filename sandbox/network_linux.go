//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// This file holds the helper's side of the proxy: under bubblewrap, the
// command line that starts the helper again inside the sandbox, and that
// inner helper, which forwards 127.0.0.1:PORT of the sandbox's network
// namespace to the proxy's Unix socket; under Landlock, the rule that
// lets TCP connect to the proxy's port.

// forwarderArgs returns bwrap's command line for s when s has a proxy:
// the sandbox as s.bwrapArgs builds it, running the helper again (this
// program, with s.Proxy.Helper's arguments) with a spec marked Inside in
// place of the command. The limits move to that spec, so that s's are
// cleared: the inner helper, a Go program with goroutines, must not run
// under them. The status descriptor is left open across the exec, for
// the inner helpers to report a failure on; bwrap passes it on.
func (s *spec) forwarderArgs() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("proxy: the helper's own path: %w", err)
	}
	inner := *s
	inner.Proxy = &proxySpec{Socket: s.Proxy.Socket, Port: s.Proxy.Port, Helper: s.Proxy.Helper, Inside: true}
	inner.Host = 0 // its parent is bwrap's
	outer := *s
	outer.Args = append(append([]string{exe}, s.Proxy.Helper...), inner.encode())
	if s.StatusFD >= 0 {
		if _, err := unix.FcntlInt(uintptr(s.StatusFD), unix.F_SETFD, 0); err != nil {
			return nil, fmt.Errorf("proxy: status descriptor: %w", err)
		}
	}
	s.CPUSeconds, s.Memory, s.FileSize = 0, 0, 0
	return outer.bwrapArgs(), nil
}

// forwardInside is the helper inside bubblewrap's sandbox, started by
// the command line of forwarderArgs. It listens on 127.0.0.1:PORT in the
// sandbox's network namespace, where nothing else listens, and forwards
// each connection to the proxy's socket; it starts the command through
// one more helper (which sets the limits and executes the command in its
// place), passes on the signals it gets, and when the command ends stops
// forwarding and exits with the command's status, or 128+N for signal N,
// as bwrap reports it. status is where a setup failure is written.
func forwardInside(s *spec, status *os.File) int {
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(s.Proxy.Port))))
	if err != nil {
		fmt.Fprintf(status, "proxy forwarder: %v", err)
		return exitSetup
	}
	defer ln.Close()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(status, "proxy forwarder: the helper's own path: %v", err)
		return exitSetup
	}
	cmdSpec := *s
	cmdSpec.Mechanism, cmdSpec.Bwrap, cmdSpec.Proxy = NoIsolation, "", nil
	cmdSpec.Hide, cmdSpec.Show = nil, nil
	cmdSpec.Host = os.Getpid()
	cmd := &exec.Cmd{
		Path:   exe,
		Env:    os.Environ(),
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		// Enter locked this goroutine to its thread, so the signal
		// comes when this process dies, not when a thread ends.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	if s.StatusFD >= 0 {
		cmd.ExtraFiles = []*os.File{status}
		cmdSpec.StatusFD = 3
	}
	cmd.Args = append(append([]string{exe}, s.Proxy.Helper...), cmdSpec.encode())
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(status, "proxy forwarder: start the command's helper: %v", err)
		return exitExec
	}
	if s.StatusFD >= 0 {
		status.Close() // the command's helper has it; the host reads end of file when it is done with it
	}
	f := &forwarder{socket: s.Proxy.Socket, conns: map[net.Conn]struct{}{}}
	var wg sync.WaitGroup
	wg.Go(func() { f.serve(ln) })
	done := make(chan struct{})
	var relay sync.WaitGroup
	relay.Go(func() {
		for {
			select {
			case sig := <-signals:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	})
	werr := cmd.Wait()
	close(done)
	relay.Wait()
	ln.Close()
	f.closeAll()
	wg.Wait()
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "sandbox proxy forwarder: wait: %v\n", werr)
		return exitSetup
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// A forwarder carries connections from the sandbox's 127.0.0.1 to the
// proxy's Unix socket.
type forwarder struct {
	socket string
	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// serve accepts connections on ln until it is closed, forwarding each.
func (f *forwarder) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				f.wg.Wait()
				return
			}
			continue // a connection that went before it was taken
		}
		f.wg.Go(func() { f.forward(c) })
	}
}

// track records c for closeAll, and reports false when closeAll has run.
func (f *forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
}

// closeAll closes every connection being forwarded, and any that comes.
func (f *forwarder) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
}

// forward carries c to a new connection to the proxy and back, passing
// each side's end of input on as a half close.
func (f *forwarder) forward(c net.Conn) {
	defer c.Close()
	if !f.track(c) {
		return
	}
	defer f.untrack(c)
	up, err := net.Dial("unix", f.socket)
	if err != nil {
		// The command sees its connection closed, as when a proxy is
		// down.
		return
	}
	if !f.track(up) {
		up.Close()
		return
	}
	defer f.untrack(up)
	defer up.Close()
	var wg sync.WaitGroup
	wg.Go(func() {
		io.Copy(up, c)
		up.(*net.UnixConn).CloseWrite()
	})
	io.Copy(c, up)
	c.(*net.TCPConn).CloseWrite()
	wg.Wait()
}

// proxyRules returns the Landlock rules for s's proxy: TCP connect to
// its port. Landlock restricts ports, not addresses, so the command may
// connect to that port of any host.
func (s *spec) proxyRules() []landlock.Rule {
	if s.Proxy == nil {
		return nil
	}
	return []landlock.Rule{landlock.ConnectTCP(s.Proxy.Port)}
}
