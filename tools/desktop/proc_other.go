//go:build !linux

package desktop

import (
	"syscall"
	"time"
)

// sysProcAttr puts a process in a process group of its own. Without
// PR_SET_PDEATHSIG, a process outlives a wield that dies by SIGKILL.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// descendants returns nothing outside Linux.
func descendants(int) []int { return nil }

func awaitGone([]int, time.Duration) {}
