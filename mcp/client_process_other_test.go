//go:build !unix

package mcp

import "os"

// processGone reports whether no process has the id pid.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
