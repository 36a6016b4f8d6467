package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Capabilities is what one mechanism offers on this machine.
type Capabilities struct {
	Mechanism Mechanism `json:"mechanism"`
	// Available reports whether the mechanism works here; when it does
	// not, Reason says why and how to get it.
	Available bool `json:"available"`
	// Level is the most isolation the mechanism gives.
	Level Level `json:"level"`
	// Filesystem reports whether the system is read-only to the command,
	// with writes only beneath the writable directories.
	Filesystem bool `json:"filesystem"`
	// Metadata reports whether the mode, owner and times of files
	// outside the writable directories are protected too; Landlock does
	// not restrict chmod, chown, utime or extended attributes.
	Metadata bool `json:"metadata"`
	// Network is what is cut off when the network is not allowed: "all",
	// "tcp" (TCP connect and bind, under Landlock before ABI 10), or "".
	Network string `json:"network"`
	// PIDNamespace reports whether the command runs in a PID namespace
	// of its own, seeing only its own processes.
	PIDNamespace bool `json:"pid_namespace"`
	// Signals reports whether the command is kept from signalling
	// processes outside the sandbox.
	Signals bool `json:"signals"`
	// UserNamespace reports whether bwrap runs the command in a user
	// namespace of its own.
	UserNamespace bool `json:"user_namespace,omitempty"`
	// Limits lists the limits enforced: "cpu", "memory", "file_size",
	// "output" and "timeout".
	Limits []string `json:"limits"`
	// Version is the mechanism's version: "bubblewrap 0.8.0", "ABI 7".
	Version string `json:"version,omitempty"`
	// Path is the bwrap program used.
	Path string `json:"path,omitempty"`
	// Reason says why the mechanism is unavailable or weaker than it
	// could be, and how to get it.
	Reason string `json:"reason,omitempty"`
}

var allLimits = []string{"cpu", "memory", "file_size", "output", "timeout"}

// Probe reports what each mechanism offers here, strongest first:
// bubblewrap, Landlock, then no isolation (always available). bwrap is
// the bwrap program; empty means "bwrap" looked up in PATH. Probing
// bubblewrap runs it, a few milliseconds; ctx bounds that.
func Probe(ctx context.Context, bwrap string) []Capabilities {
	return []Capabilities{
		probeBwrap(ctx, bwrap),
		probeLandlock(),
		{Mechanism: NoIsolation, Available: runtime.GOOS == "linux", Level: LevelLimits, Limits: allLimits},
	}
}

// probeBwrap runs bwrap once with every namespace, in a user namespace of
// its own if it can, else (as root) without one.
func probeBwrap(ctx context.Context, path string) Capabilities {
	c := Capabilities{Mechanism: Bubblewrap}
	if path == "" {
		path = "bwrap"
	}
	p, err := exec.LookPath(path)
	if err != nil {
		c.Reason = fmt.Sprintf("%s not found: install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)", path)
		return c
	}
	c.Path = p
	truePath, err := exec.LookPath("true")
	if err != nil {
		c.Reason = "no true program in PATH to probe bwrap with"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	try := func(userns bool) error {
		s := spec{Mechanism: Bubblewrap, Bwrap: p, UserNS: userns, Args: []string{truePath}, Dir: "/"}
		cmd := exec.CommandContext(ctx, p, s.bwrapArgs()[1:]...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return fmt.Errorf("%w: %s", err, msg)
			}
			return err
		}
		return nil
	}
	errUser := try(true)
	if errUser != nil {
		if os.Geteuid() != 0 {
			c.Reason = fmt.Sprintf("bwrap cannot create namespaces (%v): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0) or run in a container that allows them", errUser)
			return c
		}
		if err := try(false); err != nil {
			c.Reason = fmt.Sprintf("bwrap cannot create namespaces, even as root (%v; with a user namespace: %v): the container forbids unshare; run it with --privileged or a seccomp profile that allows namespaces", err, errUser)
			return c
		}
	}
	c.UserNamespace = errUser == nil
	if out, err := exec.CommandContext(ctx, p, "--version").Output(); err == nil {
		c.Version = strings.TrimSpace(string(out))
	}
	c.Available, c.Level = true, LevelProcesses
	c.Filesystem, c.Metadata, c.Network, c.PIDNamespace, c.Signals = true, true, "all", true, true
	c.Limits = allLimits
	return c
}
