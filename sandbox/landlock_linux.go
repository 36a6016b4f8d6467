//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
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
// reading and executing everywhere but the hidden paths of s (and the
// directories above them; see readable), and writing beneath s.Writable
// and to /dev/null; unless s.Network, TCP (and, from ABI 10, UDP) is
// denied; and signals and abstract sockets reach only processes in the
// sandbox. It sets no_new_privs.
func restrictLandlock(s *spec) error {
	cfg := landlock.V11.BestEffort()
	// A directory hidden for the sockets in it is left alone: Landlock
	// does not restrict connecting to a socket before ABI 9, and from
	// ABI 9 denies it for every socket outside the sandbox, so the walk
	// around it (often through /tmp) would cost time and hide nothing.
	hide := slices.DeleteFunc(slices.Clone(s.Hide), func(h hiddenPath) bool { return h.Sockets })
	rules := []landlock.Rule{landlock.RWFiles("/dev/null")}
	if len(hide) == 0 {
		rules = append(rules, landlock.RODirs("/"))
	} else {
		dirs, files := readable(hide)
		for _, sh := range s.Show {
			if sh.Dir {
				dirs = append(dirs, sh.Path)
			} else {
				files = append(files, sh.Path)
			}
		}
		// A path may go between the listing and the rule.
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing(), landlock.ROFiles(files...).IgnoreIfMissing())
	}
	if len(s.Writable) > 0 {
		rules = append(rules, landlock.RWDirs(s.Writable...).WithRefer())
	}
	if !s.Network {
		return cfg.Restrict(append(rules, s.proxyRules()...)...)
	}
	if err := cfg.RestrictPaths(rules...); err != nil {
		return err
	}
	return cfg.RestrictScoped()
}

// readable returns the directories and the other files to grant read
// access to so that all of the file system is readable save the hidden
// paths. Landlock grants access to whole hierarchies and cannot take it
// back beneath them, so each directory on the way from / to a hidden
// path is granted nothing itself (it cannot be listed) and each of its
// entries is granted instead, save the hidden path and the directories
// on the way to another. Symbolic links are left out: a rule on one
// would grant its target, which may be hidden, and following one needs
// no access to the link itself. A directory that cannot be listed or
// searched adds nothing: the caller could not reach its entries either.
func readable(hide []hiddenPath) (dirs, files []string) {
	skip := make(map[string]bool) // hidden paths and the directories above them
	var above []string
	for _, h := range hide {
		skip[h.Path] = true
		for d := filepath.Dir(h.Path); !skip[d]; d = filepath.Dir(d) {
			skip[d] = true
			above = append(above, d)
			if d == "/" {
				break
			}
		}
	}
	for _, d := range above {
		if unix.Access(d, unix.X_OK) != nil {
			continue
		}
		f, err := os.Open(d)
		if err != nil {
			continue
		}
		entries, _ := f.ReadDir(-1)
		f.Close()
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			switch t := e.Type(); {
			case skip[p], t&fs.ModeSymlink != 0:
			case t.IsDir():
				dirs = append(dirs, p)
			default:
				files = append(files, p)
			}
		}
	}
	return dirs, files
}
