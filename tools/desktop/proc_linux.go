package desktop

import "syscall"

// sysProcAttr puts a process in a process group of its own, and has the
// kernel send it SIGKILL when the thread that started it exits (with
// wield, for Go does not end its threads while it runs).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
