//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts git as the leader of a process group of its own
// and makes cancelling it kill the whole group: a hook, a credential
// helper or a textconv filter git started dies with it. The shell tools
// do much more (sessions, pidfds, supervisors) for commands that may
// daemonise; git's children are short-lived helpers, so one kill of the
// group is enough here.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
