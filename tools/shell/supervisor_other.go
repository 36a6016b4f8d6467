//go:build !linux

package shell

import (
	"os"
	"os/exec"
	"syscall"
)

// Supervise runs a command supervisor on Linux; elsewhere it returns 2
// at once, since the shell tools do not run commands there.
func Supervise(args []string) int { return 2 }

type supervised struct{}

func supervisedCmd(spec procSpec, token string, out *os.File) (*exec.Cmd, *supervised, error) {
	return nil, nil, errUnsupported
}

func (sup *supervised) started(cmd *exec.Cmd, err error) (int, error) { return 0, errUnsupported }
func (sup *supervised) wait()                                         {}
func (sup *supervised) status() (ws syscall.WaitStatus, ok bool)      { return ws, false }
func (sup *supervised) nothingLeft() bool                             { return false }
func (sup *supervised) release(cmd *exec.Cmd) error                   { return nil }
