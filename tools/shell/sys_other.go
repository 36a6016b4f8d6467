//go:build !linux

package shell

import (
	"errors"
	"syscall"
	"time"
)

// Outside Linux the shell tools cannot find or kill the processes a
// command starts, so they refuse to run commands.

var errUnsupported = errors.New("run_shell_command is only supported on Linux")

func sysProcAttr() *syscall.SysProcAttr { return nil }

func setSubreaper() error { return errUnsupported }

func clockTicks() uint64 { return 0 }

func lastPID() int { return -1 }

type pinfo struct{ pid int }

type group struct {
	pid     int
	markers [][]byte
	start   uint64
	adopter int
	seen    map[int]uint64
}

func (g group) members() (alive, zombies []pinfo) { return nil, nil }

type handle struct{}

func (g group) signal(sig syscall.Signal) []handle { return nil }

func waitExit(hs []handle, d time.Duration) bool { return true }

func reap(zombies []pinfo) {}

func signalName(sig syscall.Signal) string { return sig.String() }

func startSupported() error { return errUnsupported }

func sweep(markers []string) int { return 0 }
