// Package git holds wield's git tools: git_status, git_diff, git_log,
// git_show, git_blame and git_branch read the repository the workspace is
// in; git_add, git_commit and git_checkout change it.
//
//	tools := git.New(git.Config{})
//
// Each tool runs the git binary in the workspace root (the directory of
// [tool.Call.Root]), with an argument vector fixed by the tool, never
// through a shell, and reports git's own message when git fails. The
// read-only tools are annotated ReadOnly and ParallelSafe, so a policy
// runs them without asking and the runner runs them side by side; the
// others ask first unless a rule allows them.
//
// # What the model can and cannot make git do
//
// Arguments are checked before git sees them: a ref or path that starts
// with '-' is refused, so it cannot be read as an option, and refs go
// after --end-of-options. Paths must lie inside the workspace: relative
// ones are taken from the root, absolute ones must be under it, ".." may
// not climb out, and a symbolic link on the way may not lead out (the
// call's os.Root refuses those); paths go after "--", and pathspecs are
// literal (--literal-pathspecs), so "*" and ":(top)" mean files of those
// names. git_commit takes its message on standard input and refuses to
// make an empty commit; no tool amends, pushes, fetches, resets, rebases
// or discards changes, and git_checkout runs git switch, which refuses to
// overwrite uncommitted work.
//
// The repository's own configuration and hooks still apply: a commit runs
// its pre-commit hooks, and a filter or fsmonitor configured in
// .git/config runs as it would for the user. The tools do not guard
// against a repository configured to run commands; the workspace is the
// user's.
//
// # Environment and limits
//
// git runs with the caller's environment less every GIT_ variable that
// could point it at another repository, index, object store or
// configuration (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_*, …;
// the author and committer identity and the ssh settings are kept), with
// prompts, pagers and editors off (GIT_TERMINAL_PROMPT=0, core.pager=cat)
// and standard input empty. Read-only commands take no optional locks
// (--no-optional-locks), so they never block the user's own git.
//
// A command runs at most [Config.Timeout] (default [DefaultTimeout]); on
// timeout or cancellation its process group is killed, so a hook or helper
// it started dies with it. A result keeps at most [Config.MaxOutput]
// bytes of output (default [DefaultMaxOutput]) and says when it cut some;
// the runner then shows the head and tail of what was kept and saves it
// whole.
package git
