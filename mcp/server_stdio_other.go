//go:build !unix

package mcp

import (
	"io"
	"os"
)

// PollStdin returns f: on this platform standard input is read as it is.
// On Unix it returns a reader that waits for input in the Go runtime's
// poller rather than in a blocking read.
func PollStdin(f *os.File) (r io.Reader, done func()) { return f, func() {} }
