//go:build !unix

package git

import "os/exec"

// setProcessGroup does nothing here: without process groups, cancelling
// kills git itself (exec.CommandContext's default), not its children.
func setProcessGroup(*exec.Cmd) {}
