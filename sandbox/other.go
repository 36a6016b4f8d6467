//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
)

// Enter is the sandbox helper; see the Linux documentation. On this
// system it returns 2 at once.
func Enter(args []string) int {
	fmt.Fprintf(os.Stderr, "sandbox helper: not supported on %s\n", runtime.GOOS)
	return 2
}

func probeLandlock() Capabilities {
	return Capabilities{Mechanism: Landlock, Reason: "Landlock is a Linux security module; this is " + runtime.GOOS}
}

// Run runs c in the sandbox; on this system it always fails.
func (s *Sandbox) Run(ctx context.Context, c *Command) (*Result, error) {
	return nil, errors.New("sandbox: running commands needs Linux")
}
