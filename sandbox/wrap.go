package sandbox

import "slices"

// A Wrapped is a command made ready for a caller that starts the process
// itself; see [Sandbox.Wrap].
type Wrapped struct {
	// Args is the command line to execute: Config.Helper, then the
	// command's specification for the helper.
	Args []string
	// Env is the environment to execute Args with: the command's
	// environment, as [Command.Env] documents it.
	Env []string
	// Cleanup removes the scratch directory Wrap made, if it made one. The
	// caller calls it once, after the command and all it started have
	// ended.
	Cleanup func()
}

// Wrap returns the command line that runs c in the sandbox, for a caller
// that starts, watches and stops the process itself, such as a shell tool
// that streams output and keeps background jobs. The helper applies the
// file system view, the network, the namespaces and the resource limits
// of c as it does for [Sandbox.Run], then executes the command in its
// place; a failure to set up the sandbox is reported on the process's
// standard error with exit status 125 (127 when the command cannot be
// executed). What Run itself enforces is the caller's to enforce: c's
// Timeout and MaxOutput, standard input (c.Stdin is ignored), and killing
// what the command leaves behind, which under Landlock may outlive it.
// The caller may start the command through an intermediary (a
// supervisor): the helper does not check who its parent is. The
// command's process group and session are the caller's to set.
func (s *Sandbox) Wrap(c *Command) (*Wrapped, error) {
	p, err := s.prepare(c)
	if err != nil {
		return nil, err
	}
	args := append(slices.Clone(s.cfg.Helper), p.spec.encode())
	return &Wrapped{Args: args, Env: slices.Clone(p.env), Cleanup: p.cleanup}, nil
}
