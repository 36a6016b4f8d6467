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
// # What the repository cannot make git do
//
// A repository's .git/config (with what it includes) and .gitattributes
// can name programs that git runs: an fsmonitor on git status, a filter
// on git add, a textconv on git diff, hooks, a pager, gpg. Before every
// command the tools read git's configuration (git config --list
// --show-scope) and override on git's command line (GIT_CONFIG_COUNT)
// every key the repository set that names a program, with the user's own
// value (from the system or global configuration) or with none; the
// list of keys is in internal/gitsafe. No hook runs, except those of
// git_commit when [Config.RunHooks] is set, for a workspace the user
// trusts. git_diff, git_show and git_blame also pass --no-ext-diff and
// --no-textconv, so a diff driver the repository defines does not make
// them fail, and git_status and git_diff pass --ignore-submodules=dirty,
// so git does not run in a submodule, whose configuration is not read.
// Programs the user configured (a credential helper, git-lfs as a
// filter) still run.
//
// What this does not guarantee: the configuration is read as it is just
// before each command, and is git 2.39's list of keys; a later git may
// add keys that run programs. The tools do not stop the user's own
// programs from reading the repository's settings (git-lfs reads lfs.*
// keys beyond those overridden), nor a repository's core.worktree from
// pointing git at files outside the workspace.
//
// # Environment and limits
//
// git runs with the caller's environment less every GIT_ variable that
// could point it at another repository, index, object store or
// configuration (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_*, …;
// the author and committer identity and the ssh settings are kept), with
// prompts, pagers and editors off (GIT_TERMINAL_PROMPT=0, core.pager=cat),
// the overrides above, and standard input empty. Read-only commands take no optional locks
// (--no-optional-locks), so they never block the user's own git.
//
// A command runs at most [Config.Timeout] (default [DefaultTimeout]); on
// timeout or cancellation its process group is killed, so a hook or helper
// it started dies with it. A result keeps at most [Config.MaxOutput]
// bytes of output (default [DefaultMaxOutput]) and says when it cut some;
// the runner then shows the head and tail of what was kept and saves it
// whole.
package git
