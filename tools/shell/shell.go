package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/internal/gitsafe"
	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// Defaults for the fields of [Config].
const (
	DefaultTimeout      = 120 * time.Second
	DefaultMaxTimeout   = 600 * time.Second
	DefaultInactivity   = 60 * time.Second
	DefaultKillGrace    = 2 * time.Second
	DefaultYieldAfter   = 30 * time.Second
	DefaultOutputLimit  = 24_000
	DefaultCaptureLimit = 16 << 20
	DefaultMaxOutput    = 256 << 20
)

// Config configures the shell tools. The zero value gives the documented
// defaults, with commands in the foreground only: background jobs need a
// job table in [Config.Jobs].
type Config struct {
	// Shell is the shell that runs commands with -c. Empty means bash
	// from PATH, or sh when there is no bash.
	Shell string
	// Timeout is the wall-clock limit of a command that gives no
	// timeout_ms; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxTimeout is the largest timeout_ms accepted; zero means
	// DefaultMaxTimeout.
	MaxTimeout time.Duration
	// Inactivity stops a command that prints nothing for this long; zero
	// means DefaultInactivity and a negative value means no such limit.
	// Jobs started with background=true are exempt.
	Inactivity time.Duration
	// KillGrace is how long a command has between SIGTERM and SIGKILL;
	// zero means DefaultKillGrace.
	KillGrace time.Duration
	// YieldAfter is how long a foreground command may run before the call
	// returns and the command goes on as a background job; zero means
	// DefaultYieldAfter, and a negative value means never (the call waits
	// for the command). It applies only when there is a job table.
	YieldAfter time.Duration
	// OutputLimit caps the bytes of output in a result; longer output
	// keeps its head and tail and is saved whole to a file in the
	// workspace. Zero means DefaultOutputLimit.
	OutputLimit int
	// CaptureLimit caps the output kept in memory for one command: its
	// first quarter and its last three quarters. Zero means
	// DefaultCaptureLimit.
	CaptureLimit int
	// MaxOutput stops a command that prints more than this many bytes;
	// zero means DefaultMaxOutput and a negative value means no limit.
	MaxOutput int64
	// AllowEnv lists environment variables passed to commands even though
	// their names look like secrets; each entry is a name or a path.Match
	// pattern such as "NPM_*".
	AllowEnv []string
	// Jobs is the job table for background jobs, created by the caller
	// with [NewJobs] and closed by it. Nil means commands run in the
	// foreground only and never yield.
	Jobs *Jobs
	// Supervisor is the command line that starts a supervisor for each
	// command: a program's path, then arguments, to which the tools add
	// their own. The program must call [Supervise] with the added
	// arguments. A supervisor keeps what a command starts in its own
	// process tree and kills all of it when the host dies, even by
	// SIGKILL; see "Supervisors" in the package documentation. Nil means
	// that commands run as children of the host itself. The tools copy
	// the slice.
	Supervisor []string
	// Sandbox, when set, runs every command in it: the system read-only,
	// writes allowed only to the workspace and to a scratch directory made
	// for the command (its TMPDIR), no network unless SandboxNetwork; see
	// "Sandboxing" in the package documentation. Nil means that commands
	// run with all the rights of the user running wield. The policy
	// decides which commands run either way.
	Sandbox *sandbox.Sandbox
	// SandboxNetwork allows sandboxed commands the network.
	SandboxNetwork bool
	// Env, if set, is called for every command and returns variables
	// ("KEY=VALUE") added to its environment, replacing any of the same
	// name; nil means none. They pass even when their names look like
	// secrets: the host chose them (wield gives the values the user
	// supplied with request_env). Env must be safe for concurrent use.
	Env func() []string
	// GitHooks reports whether git commands may run the repository's
	// hooks. Set it only for a workspace the user trusts. False, the zero
	// value, sets core.hooksPath to /dev/null for every command; see
	// "Git" in the package documentation for the rest of what git is kept
	// from running.
	GitHooks bool
}

// Tools returns the shell tools in display order: run_shell_command,
// shell_output and shell_kill.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{NewRunShellCommand(cfg), NewShellOutput(cfg), NewShellKill(cfg)}
}

// A shell is a Config with its defaults applied and its shell resolved.
type shell struct {
	cfg      Config
	path     string
	pathErr  error
	describe map[string]any // numbers for the descriptions
}

func newShell(cfg Config) *shell {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&cfg.Timeout, DefaultTimeout)
	def(&cfg.MaxTimeout, DefaultMaxTimeout)
	def(&cfg.Inactivity, DefaultInactivity)
	def(&cfg.KillGrace, DefaultKillGrace)
	def(&cfg.YieldAfter, DefaultYieldAfter)
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = DefaultOutputLimit
	}
	if cfg.CaptureLimit <= 0 {
		cfg.CaptureLimit = DefaultCaptureLimit
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	cfg.Timeout = min(cfg.Timeout, cfg.MaxTimeout)
	cfg.Supervisor = slices.Clone(cfg.Supervisor)
	s := &shell{cfg: cfg}
	switch {
	case cfg.Shell != "":
		s.path, s.pathErr = exec.LookPath(cfg.Shell)
	default:
		if s.path, s.pathErr = exec.LookPath("bash"); s.pathErr != nil {
			s.path, s.pathErr = exec.LookPath("sh")
		}
	}
	s.describe = map[string]any{
		"Timeout":      int(cfg.Timeout / time.Second),
		"TimeoutMs":    cfg.Timeout.Milliseconds(),
		"MaxTimeout":   int(cfg.MaxTimeout / time.Second),
		"MaxTimeoutMs": cfg.MaxTimeout.Milliseconds(),
		"Inactivity":   int(cfg.Inactivity / time.Second),
		"YieldAfter":   int(cfg.YieldAfter / time.Second),
		"CaptureMiB":   cfg.CaptureLimit >> 20,
		"Sandboxed":    cfg.Sandbox != nil,
		"Network":      cfg.SandboxNetwork,
	}
	return s
}

// description renders a tool description template with the effective
// limits, so that the numbers the model reads are the ones enforced.
func (s *shell) description(name, text string) string {
	var b bytes.Buffer
	template.Must(template.New(name).Parse(text)).Execute(&b, s.describe)
	return b.String()
}

// jobs returns the job table, or nil.
func (s *shell) jobs() *Jobs { return s.cfg.Jobs }

// environ returns the environment for a command: wield's own, less the
// variables whose names look like secrets, with pagers, editors and
// prompts turned off, and then the variables of [Config.Env].
func (s *shell) environ() []string {
	env := os.Environ()
	var extra []string
	if s.cfg.Env != nil {
		extra = s.cfg.Env()
	}
	given := make(map[string]bool, len(extra))
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		given[name] = true
	}
	out := make([]string, 0, len(env)+5+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "GIT_EDITOR", markerVar:
			continue
		}
		if secretName(name) && !s.allowed(name) || given[name] {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
	for _, kv := range extra {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" && name != markerVar {
			out = append(out, kv)
		}
	}
	return out
}

// gitListTimeout bounds the git config --list run before a command.
const gitListTimeout = 10 * time.Second

// gitEnviron returns env with the configuration that keeps git, in the
// commands run in dir, from running programs the repository in dir (or
// above it) chose. When that configuration cannot be read (no git, a
// configuration git cannot parse) it still sets what needs no reading:
// no hooks, no fsmonitor, no pager or editor, no ext:: transport, no
// credential helper.
func (s *shell) gitEnviron(ctx context.Context, dir string, env []string) []string {
	// A git that only reads takes no optional lock either: git status
	// would otherwise refresh and write the index (and leave index.lock
	// behind when it is killed), though the policy ran it as read-only.
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_OPTIONAL_LOCKS=") }) {
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	opts := gitsafe.Options{Hooks: s.cfg.GitHooks}
	git, err := exec.LookPath("git")
	if err != nil {
		return gitsafe.Environ(nil, env, opts)
	}
	ctx, cancel := context.WithTimeout(ctx, gitListTimeout)
	defer cancel()
	out, err := gitsafe.Load(ctx, git, dir, env, opts)
	if err != nil {
		return gitsafe.Environ(nil, env, opts)
	}
	return out
}

func (s *shell) allowed(name string) bool {
	for _, pat := range s.cfg.AllowEnv {
		if ok, _ := path.Match(pat, name); ok || pat == name {
			return true
		}
	}
	return false
}

// secretName reports whether a variable name looks like it holds a
// secret. SSH_AUTH_SOCK and the like are kept: they name a socket, and
// git needs them.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "PRIVATE_KEY", "AUTHTOKEN"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	// A word of the name (split at '_') may mark it too: GITHUB_TOKEN,
	// OPENAI_API_KEY, DB_PASS.
	for w := range strings.SplitSeq(n, "_") {
		switch w {
		case "TOKEN", "TOKENS", "KEY", "KEYS", "APIKEY", "PAT", "PASS":
			return true
		}
	}
	return false
}

// directory resolves the directory a command runs in: the workspace root,
// or dir inside it (relative to the root, or absolute). The message of the
// error is for the model.
func (s *shell) directory(root *os.Root, dir string) (string, error) {
	base, err := filepath.Abs(root.Name())
	if err == nil {
		base, err = filepath.EvalSymlinks(base)
	}
	if err != nil {
		return "", fmt.Errorf("the workspace %s cannot be used: %w", root.Name(), err)
	}
	if dir == "" || dir == "." {
		return base, nil
	}
	rel := dir
	if filepath.IsAbs(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", fmt.Errorf("directory %q does not exist", dir)
		}
		if rel, err = inside(base, real); err != nil {
			return "", fmt.Errorf("directory %q is outside the workspace %s; give a directory inside it", dir, base)
		}
	}
	fi, err := root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("directory %q does not exist in the workspace", dir)
	case err != nil:
		// os.Root refuses paths that leave it, through .. or a symlink.
		return "", fmt.Errorf("directory %q is outside the workspace %s; give a directory inside it", dir, base)
	case !fi.IsDir():
		return "", fmt.Errorf("%q is a file, not a directory", dir)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(base, rel))
	if err == nil {
		_, err = inside(base, real)
	}
	if err != nil {
		return "", fmt.Errorf("directory %q is outside the workspace %s; give a directory inside it", dir, base)
	}
	return real, nil
}

// inside returns path relative to base, or an error if it is not inside.
func inside(base, p string) (string, error) {
	rel, err := filepath.Rel(base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", errors.New("outside")
	}
	return rel, nil
}

// spill writes out to .wield/spill/<session>/<name>.log in the workspace
// and returns that path, relative to the workspace root.
func spill(c *tool.Call, name string, out []byte) (string, error) {
	rel := filepath.Join(workspace.Layout{}.Spill(""), tool.SpillName(c, name, ".log"))
	if err := c.Root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return "", err
	}
	if err := c.Root.WriteFile(rel, out, 0o644); err != nil {
		return "", err
	}
	return rel, nil
}

// sandboxed makes spec run its shell in the sandbox, with the workspace
// of root and a scratch directory of its own writable. The scratch
// directory is removed when the command has ended.
func (s *shell) sandboxed(spec *procSpec, root *os.Root) error {
	ws, err := filepath.Abs(root.Name())
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "wield-shell-")
	if err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	env := append(slices.DeleteFunc(slices.Clone(spec.env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }), "TMPDIR="+scratch)
	w, err := s.cfg.Sandbox.Wrap(&sandbox.Command{
		Args: []string{spec.shell, "-c", spec.command}, Dir: spec.dir, Env: env,
		Scratch: scratch, Workspace: ws, Network: s.cfg.SandboxNetwork,
		// The shell's own limits bound the command's time and output;
		// builds and test runs need more than the sandbox's defaults.
		CPUTime: -1, Memory: -1, MaxFileSize: -1,
	})
	if err != nil {
		os.RemoveAll(scratch)
		return err
	}
	spec.argv, spec.env = w.Args, w.Env
	spec.cleanup = func() { os.RemoveAll(scratch) }
	return nil
}
