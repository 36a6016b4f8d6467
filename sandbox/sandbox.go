package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// HelperArg is the argument that, first on a program's command line,
// makes it the sandbox helper: the conventional [Config.Helper] is
// {"/proc/self/exe", HelperArg}, and the program's main calls [Enter]
// with the arguments after it.
const HelperArg = "__sandbox-exec"

// Defaults for the limits of a [Command].
const (
	DefaultTimeout     = 60 * time.Second
	DefaultCPUTime     = 30 * time.Second
	DefaultMemory      = 1 << 30 // bytes of data segment per process
	DefaultMaxFileSize = 256 << 20
	DefaultMaxOutput   = 1 << 20 // bytes kept of each of stdout and stderr
)

// A Mechanism is a way of isolating a command.
type Mechanism string

// The mechanisms, strongest first.
const (
	Bubblewrap Mechanism = "bubblewrap"
	Landlock   Mechanism = "landlock"
	// NoIsolation runs the command with resource limits only.
	NoIsolation Mechanism = "none"
)

// A Level is how much isolation a mechanism gives; each level includes
// the ones before it. The zero Level is LevelDefault.
type Level int

const (
	// LevelDefault, the zero value, stands for LevelNetwork.
	LevelDefault Level = iota
	// LevelLimits is resource limits and the wall-clock timeout only.
	LevelLimits
	// LevelFilesystem adds a read-only view of the system with writes
	// confined to the writable directories.
	LevelFilesystem
	// LevelNetwork adds denying the network (under Landlock before ABI
	// 10: TCP only).
	LevelNetwork
	// LevelProcesses adds a PID namespace: the command cannot see or
	// signal any process but its own.
	LevelProcesses
)

var levelNames = []string{"default", "limits", "filesystem", "network", "processes"}

// String returns the level's name: "limits", "filesystem", "network" or
// "processes".
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText returns the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText sets the level from its name, as a setting gives it.
func (l *Level) UnmarshalText(b []byte) error {
	i := slices.Index(levelNames, strings.ToLower(string(b)))
	if i < 0 {
		return fmt.Errorf("sandbox level %q: want one of %s", b, strings.Join(levelNames[1:], ", "))
	}
	*l = Level(i)
	return nil
}

func (l Level) effective() Level {
	if l == LevelDefault {
		return LevelNetwork
	}
	return l
}

// Config configures a [Sandbox]. Helper is required; the zero value of
// every other field means its documented default.
type Config struct {
	// Helper is the command line that starts the sandbox helper: a
	// program's path, then arguments, to which Run adds its own. The
	// program must call [Enter] with the added arguments; see "The
	// helper" in the package documentation. New copies the slice.
	Helper []string
	// Minimum is the least isolation to accept: New fails when no
	// mechanism reaches it. Zero means LevelNetwork.
	Minimum Level
	// Mechanism, when set, is the one mechanism to use; New fails when it
	// is not available. Empty means the strongest available.
	Mechanism Mechanism
	// Bwrap is the bwrap program; empty means "bwrap" looked up in PATH.
	Bwrap string
	// Hide lists more absolute paths to hide from commands, beyond the
	// credential locations hidden by default (see "What is hidden" in
	// the package documentation). New copies the slice.
	Hide []string
	// Show lists absolute paths to keep visible: a hidden path equal to
	// or beneath one is not hidden, and one inside a hidden directory is
	// shown there, read-only. {"/"} hides nothing. Nil hides every
	// default. New copies the slice.
	Show []string
	// Proxy, when set, is the network proxy through which commands
	// without [Command.Network] reach the network (package
	// sandbox/egress serves one); see "Network through a proxy" in the
	// package documentation. Nil means such commands have no network.
	// New copies it.
	Proxy *Proxy
	// Logger receives a debug record per run; nil discards.
	Logger *slog.Logger
}

// A Sandbox runs commands with one mechanism. It is safe for concurrent
// use; each Run is independent of the others.
type Sandbox struct {
	cfg  Config
	caps Capabilities
	log  *slog.Logger
	// hide and show are the paths to hide and show, before resolution,
	// which Run does for each command: a path may appear at any time.
	hide, show []string
}

// New returns a sandbox with the strongest mechanism available (or
// cfg.Mechanism), probing the machine with [Probe]. It returns an
// [*UnavailableError] when that mechanism is below cfg.Minimum, and an
// error when cfg.Helper is empty or a path of cfg.Hide or cfg.Show is not
// absolute. The paths hidden by default are found through the caller's
// environment (HOME, XDG_CONFIG_HOME and the others "What is hidden"
// names) as it is when New is called.
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	if len(cfg.Helper) == 0 || cfg.Helper[0] == "" {
		return nil, errors.New("sandbox: Config.Helper is empty: name the program that calls sandbox.Enter")
	}
	hide, show, err := hideLists(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Helper = slices.Clone(cfg.Helper)
	cfg.Hide, cfg.Show = slices.Clone(cfg.Hide), slices.Clone(cfg.Show)
	cfg.Minimum = cfg.Minimum.effective()
	probed := Probe(ctx, cfg.Bwrap)
	var chosen *Capabilities
	for i := range probed {
		c := &probed[i]
		if c.Available && (cfg.Mechanism == "" || cfg.Mechanism == c.Mechanism) {
			chosen = c
			break
		}
	}
	if chosen == nil || chosen.Level < cfg.Minimum {
		return nil, &UnavailableError{Minimum: cfg.Minimum, Mechanism: cfg.Mechanism, Probed: probed}
	}
	if cfg.Proxy, err = checkProxy(cfg.Proxy, chosen.Mechanism); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Sandbox{cfg: cfg, caps: *chosen, log: log, hide: hide, show: show}, nil
}

// Capabilities returns what the sandbox's mechanism enforces.
func (s *Sandbox) Capabilities() Capabilities { return s.caps }

// An UnavailableError is returned by [New] when the machine offers less
// isolation than asked for. Its message names what each mechanism lacks
// and how to get it.
type UnavailableError struct {
	Minimum   Level          // the level asked for
	Mechanism Mechanism      // the mechanism asked for, if one was
	Probed    []Capabilities // what each mechanism offers here
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	if e.Mechanism != "" {
		fmt.Fprintf(&b, "sandbox: mechanism %s with isolation %q is not available", e.Mechanism, e.Minimum)
	} else {
		fmt.Fprintf(&b, "sandbox: isolation %q is not available, and commands are never run with less", e.Minimum)
	}
	for _, c := range e.Probed {
		if c.Mechanism == NoIsolation {
			continue
		}
		switch {
		case !c.Available:
			fmt.Fprintf(&b, "; %s: %s", c.Mechanism, c.Reason)
		case c.Level < e.Minimum:
			fmt.Fprintf(&b, "; %s gives only %q", c.Mechanism, c.Level)
			if c.Reason != "" {
				fmt.Fprintf(&b, " (%s)", c.Reason)
			}
		default:
			fmt.Fprintf(&b, "; %s gives %q", c.Mechanism, c.Level)
		}
	}
	return b.String()
}

// A Command is one command to run in the sandbox. Run does not modify it.
type Command struct {
	// Args is the program and its arguments. A program name without a
	// slash is looked up in the PATH of Env.
	Args []string
	// Dir is the working directory; empty means Scratch.
	Dir string
	// Env is the command's whole environment. Nil means PATH (the
	// caller's), HOME and TMPDIR (Scratch) and LANG=C.UTF-8: nothing of
	// the caller's secrets.
	Env []string
	// Stdin is the command's standard input; nil means none (/dev/null).
	Stdin io.Reader
	// Scratch is the directory the command may write to. Empty means a
	// new temporary directory, removed when Run returns.
	Scratch string
	// Workspace, when set, is a second directory the command may write to.
	Workspace string
	// Network allows the network.
	Network bool
	// Timeout is the wall-clock limit; zero means DefaultTimeout.
	Timeout time.Duration
	// CPUTime is the CPU time each process may use, rounded up to whole
	// seconds; zero means DefaultCPUTime and a negative value no limit.
	CPUTime time.Duration
	// Memory is the data segment each process may have, in bytes; zero
	// means DefaultMemory and a negative value no limit.
	Memory int64
	// MaxFileSize is the largest file a process may write, in bytes;
	// zero means DefaultMaxFileSize and a negative value no limit.
	MaxFileSize int64
	// MaxOutput is the bytes of each of stdout and stderr that are kept;
	// a command that prints more is stopped. Zero means DefaultMaxOutput.
	MaxOutput int
}

// A Result is how a command ended and what it printed.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is the command's exit status, or -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the command ("SIGKILL"), if one
	// did. Under bubblewrap an exit status of 128+N from the sandbox is
	// taken as signal N, as shells report it.
	Signal string
	// Limit names the limit that stopped the command: "timeout",
	// "output", "cpu" (SIGXCPU, or SIGKILL past the hard CPU limit), or
	// "" when none did. Running out of memory shows as the command's own
	// failure to allocate.
	Limit string
	// Truncated reports whether output was cut at MaxOutput.
	Truncated bool
	// Duration is the wall-clock time from start to end.
	Duration time.Duration
	// Mechanism is the mechanism the command ran under.
	Mechanism Mechanism
}
