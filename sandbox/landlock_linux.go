//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// This file holds both sides of Landlock: the probe, in the host, and
// the restriction, in the helper.

// probeLandlock asks the kernel for its Landlock ABI version.
func probeLandlock() Capabilities {
	c := Capabilities{Mechanism: Landlock}
	abi, err := llsyscall.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.EOPNOTSUPP):
		c.Reason = "Landlock is built into the kernel but not enabled: add landlock to the lsm= boot parameter"
		return c
	case err != nil:
		c.Reason = fmt.Sprintf("the kernel has no Landlock (%v): it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK, and a container runtime that lets the landlock system calls through", err)
		return c
	case abi < 3:
		// Before ABI 3, truncate(2) is not restricted: a file outside
		// the sandbox could be emptied.
		c.Version = fmt.Sprintf("ABI %d", abi)
		c.Reason = fmt.Sprintf("Landlock ABI %d cannot stop truncating files (ABI 3, Linux 6.2, can)", abi)
		return c
	}
	c.Available, c.Version = true, fmt.Sprintf("ABI %d", abi)
	c.Level, c.Filesystem, c.Limits = LevelFilesystem, true, allLimits
	switch {
	case abi >= 10:
		c.Level, c.Network = LevelNetwork, "tcp+udp"
	case abi >= 4:
		c.Level, c.Network = LevelNetwork, "tcp"
		c.Reason = fmt.Sprintf("Landlock ABI %d denies TCP only (UDP from ABI 10); no PID namespace without bubblewrap", abi)
	default:
		c.Reason = fmt.Sprintf("Landlock ABI %d cannot deny the network (ABI 4, Linux 6.7, can)", abi)
	}
	c.Signals = abi >= 6
	return c
}

// restrictLandlock restricts this process, and what it executes, to
// reading and executing everywhere and writing beneath s.Writable and to
// /dev/null; unless s.Network, TCP (and, from ABI 10, UDP) is denied; and
// signals and abstract sockets reach only processes in the sandbox. It
// sets no_new_privs.
func restrictLandlock(s *spec) error {
	cfg := landlock.V11.BestEffort()
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles("/dev/null"),
	}
	if len(s.Writable) > 0 {
		rules = append(rules, landlock.RWDirs(s.Writable...).WithRefer())
	}
	if !s.Network {
		return cfg.Restrict(rules...)
	}
	if err := cfg.RestrictPaths(rules...); err != nil {
		return err
	}
	return cfg.RestrictScoped()
}
