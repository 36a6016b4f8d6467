//go:build unix && !linux

package mcp

import "syscall"

// setParentDeathSignal does nothing: only Linux has a parent-death signal.
// A stdio server still sees its standard input close when wield dies.
func setParentDeathSignal(*syscall.SysProcAttr) {}
