package mcp

import "syscall"

// setParentDeathSignal asks Linux to kill the child when wield dies, even
// by SIGKILL, when no Close could run. (Linux sends the signal when the
// thread that started the child exits; Go keeps its threads alive.)
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
