//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// sysProcAttr puts the child in a process group of its own, so that
// killGroup reaches everything it starts.
func sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a)
	return a
}

// killGroup kills the process group that p leads. A group that is gone
// already is no error.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
