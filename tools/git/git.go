package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/internal/gitsafe"
	"github.com/wieldhq/wield/tool"
)

// Limits and defaults of the git tools. The descriptions the model reads
// are rendered from these.
const (
	// DefaultTimeout bounds one git command.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutput caps the bytes of one command's output that a
	// result keeps; the rest is counted and dropped, with a note. The
	// runner shows the head and tail of what is kept and saves it whole.
	DefaultMaxOutput = 1 << 20
	// DefaultLogLimit is the number of commits git_log lists when no
	// limit is given; MaxLogLimit is the most it lists.
	DefaultLogLimit = 20
	MaxLogLimit     = 500
	// maxStderr caps the bytes of a command's standard error kept.
	maxStderr = 16 << 10
	// maxConfig caps the bytes of configuration read before a command.
	maxConfig = 8 << 20
)

// Config configures the git tools. The zero Config is ready to use: every
// zero field means the default documented on it. [New] copies it.
type Config struct {
	// Git is the git binary: a path, or a name looked up in PATH. Empty
	// means "git".
	Git string
	// Timeout bounds one git command; zero means DefaultTimeout. A command
	// that runs longer is killed, with everything it started.
	Timeout time.Duration
	// MaxOutput caps the bytes of output one result keeps; zero means
	// DefaultMaxOutput.
	MaxOutput int
	// RunHooks reports whether git_commit runs the repository's hooks
	// (pre-commit, commit-msg, …). Set it only for a workspace the user
	// trusts: the hooks are programs the repository chose. False, the
	// zero value, means no hook runs; the other tools never run hooks.
	RunHooks bool
}

// New returns the git tools in display order: the read-only git_status,
// git_diff, git_log, git_show, git_blame and git_branch, then git_add,
// git_commit and git_checkout.
func New(cfg Config) []*tool.Tool {
	return []*tool.Tool{
		NewStatus(cfg), NewDiff(cfg), NewLog(cfg), NewShow(cfg), NewBlame(cfg), NewBranch(cfg),
		NewAdd(cfg), NewCommit(cfg), NewCheckout(cfg),
	}
}

// A runner is a Config with its defaults applied. It runs git with a fixed
// argument vector, never through a shell.
type runner struct {
	cfg Config
}

func newRunner(cfg Config) *runner {
	if cfg.Git == "" {
		cfg.Git = "git"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	return &runner{cfg: cfg}
}

// numbers returns the values the descriptions are rendered with.
func (r *runner) numbers() map[string]any {
	return map[string]any{
		"Timeout":         int(r.cfg.Timeout / time.Second),
		"MaxOutputKiB":    r.cfg.MaxOutput >> 10,
		"DefaultLogLimit": DefaultLogLimit,
		"MaxLogLimit":     MaxLogLimit,
		"RunHooks":        r.cfg.RunHooks,
	}
}

// An output is what one git command printed and how it ended.
type output struct {
	stdout   string
	total    int64 // bytes printed on standard output, kept or not
	stderr   string
	exitCode int
}

// truncated reports whether output was dropped.
func (o output) truncated() bool { return o.total > int64(len(o.stdout)) }

// errTimeout is the cause of a command's context when its time is up.
var errTimeout = errors.New("git timed out")

// A request is one git command: its arguments after the global options,
// whether it only reads, whether it may run hooks (if the Config allows
// them), and what to give it on standard input.
type request struct {
	args  []string
	read  bool
	hooks bool
	stdin string
}

// run runs git in dir. A non-zero exit is not an error: it is in the
// output. The error says why git could not be run or was stopped, in
// words for the model.
//
// Before each command, run reads the configuration git will use (the
// command before may have changed it) and sets on git's command line
// what keeps the repository from making git run programs (see
// internal/gitsafe).
func (r *runner) run(ctx context.Context, dir string, req request) (output, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, r.cfg.Timeout, errTimeout)
	defer cancel()
	env := environ(os.Environ(), req.read)
	list, err := r.exec(ctx, req.args[0], dir, gitsafe.ListArgs(), env, "", maxConfig)
	switch {
	case err != nil:
		return output{}, err
	case list.exitCode != 0:
		return output{}, fmt.Errorf("git %s was not run: git cannot read its configuration: %s", req.args[0], gitMessage(list))
	case list.truncated():
		return output{}, fmt.Errorf("git %s was not run: the configuration is over %d MiB", req.args[0], maxConfig>>20)
	}
	entries, err := gitsafe.ParseList([]byte(list.stdout))
	if err != nil {
		return output{}, fmt.Errorf("git %s was not run: %w", req.args[0], err)
	}
	env = gitsafe.Environ(entries, env, gitsafe.Options{Hooks: req.hooks && r.cfg.RunHooks})
	return r.exec(ctx, req.args[0], dir, append(globalArgs(req.read), req.args...), env, req.stdin, r.cfg.MaxOutput)
}

// exec runs git with argv, for the command named name, keeping max bytes
// of its output; run's doc says what its error means.
func (r *runner) exec(ctx context.Context, name, dir string, argv, env []string, stdin string, max int) (output, error) {
	cmd := exec.CommandContext(ctx, r.cfg.Git, argv...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	stdout := &capped{max: max}
	stderr := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	// A hook or a credential helper may have started children that hold
	// the pipes open; stop waiting for them soon after git exits.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	out := output{stdout: stdout.String(), total: stdout.total, stderr: strings.TrimSpace(stderr.String())}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil && context.Cause(ctx) == errTimeout:
		return out, fmt.Errorf("git %s timed out after %s and was stopped", name, r.cfg.Timeout)
	case ctx.Err() != nil:
		return out, fmt.Errorf("git %s was cancelled", name)
	case errors.As(err, &exit):
		out.exitCode = exit.ExitCode()
		return out, nil
	case errors.Is(err, exec.ErrWaitDelay):
		return out, nil
	case err != nil:
		return out, fmt.Errorf("cannot run git: %w", err)
	}
	return out, nil
}

// globalArgs returns the options given before every subcommand: no
// pager, no colour, paths printed as they are, pathspecs taken literally
// (no globs, no ":(magic)"), and, for commands that only read, no
// optional locks, so that a read never blocks the user's own git.
func globalArgs(read bool) []string {
	args := []string{
		"-c", "core.pager=cat", "-c", "color.ui=false", "-c", "core.quotepath=false",
		"-c", "advice.detachedHead=false", "--no-pager", "--literal-pathspecs",
	}
	if read {
		args = append(args, "--no-optional-locks")
	}
	return args
}

// environ returns the environment git runs with: env without the
// variables that would point git at another repository, index, object
// store or configuration, with prompts, pagers and editors off.
func environ(env []string, read bool) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !keepVar(name) {
			continue
		}
		switch name {
		case "PAGER", "EDITOR", "VISUAL":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true", "GCM_INTERACTIVE=never")
	if read {
		out = append(out, "GIT_OPTIONAL_LOCKS=0")
	}
	return out
}

// keepVar reports whether a GIT_ variable of the caller's is passed on:
// only the identity a commit is made with, and how git reaches remotes.
func keepVar(name string) bool {
	switch name {
	case "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS":
		return true
	}
	return false
}

// A capped writer keeps the first max bytes written to it and counts the
// rest.
type capped struct {
	buf   bytes.Buffer
	max   int
	total int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

var _ io.Writer = (*capped)(nil)

// WorkspaceDir returns the directory the git tools run in for a call
// whose workspace is root: the root's absolute name, with symbolic links
// evaluated.
func WorkspaceDir(root *os.Root) (string, error) {
	if root == nil {
		return "", errors.New("no workspace: the git tools need a workspace root, and this call has none")
	}
	dir, err := filepath.Abs(root.Name())
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return "", fmt.Errorf("the workspace %s cannot be used: %w", root.Name(), err)
	}
	return dir, nil
}

// CurrentBranch returns the name of the branch checked out in dir, using
// git from PATH. A detached HEAD or a directory outside a repository is
// an error that says so.
func CurrentBranch(ctx context.Context, dir string) (string, error) {
	out, err := newRunner(Config{}).run(ctx, dir, request{args: []string{"symbolic-ref", "--quiet", "--short", "HEAD"}, read: true})
	switch {
	case err != nil:
		return "", err
	case out.exitCode == 1:
		return "", errors.New("HEAD is detached: check out a branch first")
	case out.exitCode != 0:
		return "", fmt.Errorf("git symbolic-ref: %s", gitMessage(out))
	}
	return strings.TrimSpace(out.stdout), nil
}

// RemoteURL returns the url of the remote named name (such as "origin")
// of the repository in dir, using git from PATH.
func RemoteURL(ctx context.Context, dir, name string) (string, error) {
	if err := checkRef("remote", name); err != nil {
		return "", err
	}
	out, err := newRunner(Config{}).run(ctx, dir, request{args: []string{"remote", "get-url", "--", name}, read: true})
	switch {
	case err != nil:
		return "", err
	case out.exitCode != 0:
		return "", fmt.Errorf("git remote get-url %s: %s", name, gitMessage(out))
	}
	return strings.TrimSpace(out.stdout), nil
}

// gitMessage returns what git said about a failure: its standard error,
// else its standard output, else its exit code.
func gitMessage(o output) string {
	switch {
	case o.stderr != "":
		return o.stderr
	case strings.TrimSpace(o.stdout) != "":
		return strings.TrimSpace(o.stdout)
	}
	return fmt.Sprintf("exit code %d", o.exitCode)
}

// description renders a tool description template with the effective
// limits, so that the numbers the model reads are the ones enforced.
func (r *runner) description(name, text string) string {
	var b strings.Builder
	template.Must(template.New(name).Parse(text)).Execute(&b, r.numbers())
	return b.String()
}

// Data is the Data of the git tools' results.
type Data struct {
	// ExitCode is git's exit status.
	ExitCode int `json:"exit_code"`
	// OutputBytes counts the bytes git printed; Truncated reports whether
	// the result keeps only the first of them.
	OutputBytes int64 `json:"output_bytes"`
	Truncated   bool  `json:"truncated,omitempty"`
}

// dir returns the directory a call's git commands run in, or the failure
// to return.
func callDir(c *tool.Call) (string, *tool.Result) {
	var root *os.Root
	if c != nil {
		root = c.Root
	}
	dir, err := WorkspaceDir(root)
	if err != nil {
		res := tool.Failure(err.Error())
		return "", &res
	}
	return dir, nil
}

// result runs req in dir and turns what git printed into a result: its
// output (or empty when it printed nothing), with a note when the output
// was cut; a failure with git's own message when it exited non-zero.
func (r *runner) result(ctx context.Context, dir string, req request, empty string) tool.Result {
	out, err := r.run(ctx, dir, req)
	if err != nil {
		return tool.Failure(err.Error())
	}
	return r.render(req, out, empty)
}

// render is result's second half.
func (r *runner) render(req request, out output, empty string) tool.Result {
	data := Data{ExitCode: out.exitCode, OutputBytes: out.total, Truncated: out.truncated()}
	if out.exitCode != 0 {
		res := tool.Failure(fmt.Sprintf("git %s failed (exit code %d): %s", req.args[0], out.exitCode, notARepo(gitMessage(out))))
		res.Data = data
		return res
	}
	text := out.stdout
	if strings.TrimSpace(text) == "" {
		text = empty
	}
	if data.Truncated {
		text = strings.ToValidUTF8(text, "") + fmt.Sprintf("\n[output cut at %d KiB of %d KiB; narrow it: give a path, a ref or a smaller limit]", r.cfg.MaxOutput>>10, out.total>>10)
	}
	return tool.Result{Success: true, Output: text, Data: data}
}

// notARepo explains git's message for a workspace outside any repository.
func notARepo(msg string) string {
	if strings.Contains(msg, "not a git repository") {
		return msg + "\n(the workspace is not inside a git repository; the git tools work only in one)"
	}
	return msg
}
