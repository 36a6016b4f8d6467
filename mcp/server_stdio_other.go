//go:build !unix

package mcp

import (
	"io"
	"os"
)

// PollStdin returns f, whose Close does nothing: on this platform
// standard input is read as it is. On Unix it returns a reader that waits
// for input in the Go runtime's poller rather than in a blocking read,
// and that Close interrupts.
func PollStdin(f *os.File) io.ReadCloser { return io.NopCloser(f) }
