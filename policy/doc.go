// Package policy decides which tool calls run, which need a person's
// approval and which are denied.
//
// A [Policy] is a [tool.Gate]: the runner asks it about every call after
// the arguments validated. It applies, in order: PreToolUse hooks
// ([Hooks]), plan mode's limits, deny rules, ask rules, allow rules, and
// the [Mode]. Rules use Claude Code's syntax ("run_shell_command(git
// diff:*)", "write_file(src/**)", "mcp__github__*"; Claude's own tool
// names such as Bash work too), so settings can be shared. Deny beats
// ask beats allow.
//
// # Shell commands
//
// A shell command line is split into its simple commands (package
// shellcmd) and every one is judged: through &&, ||, ;, pipes, newlines,
// subshells and $(...). The strictest decision wins. An allow rule vouches
// for a command, not for what it writes: an output redirection to a file
// turns its allow into ask, and so do environment assignments before the
// command. Commands that run other commands (xargs, env, sudo, bash -c,
// find -exec, git -c, interpreters) are allowed only by exact rules; a
// dynamic command name is never allowed by a rule.
//
// Commands that change nothing and show no file's content run without a
// rule, in every mode: ls, stat, du, df, tree, file, pwd, echo, printf,
// test, sleep, date, whoami, id, uname, basename, dirname, which, type,
// realpath, readlink, as the read-only whitelist below admits them, with
// no argument that expands a variable or a command's output (a glob
// shows names only; $HOME or $(cat key) could show a secret). What they
// print is names, sizes, times and their own arguments; asking about
// them only trains people to say yes. cd is not among them: it changes
// where the commands after it act.
//
// A rule vouches only for the commands written on the line, so no allow
// rule matches any command of a line on which Bash may evaluate a value
// as code: arithmetic on a variable ($((a)), [[ $a -eq 1 ]], let),
// non-literal array subscripts, ${!x}, ${x@P}, declare -i, printf -v,
// read into a subscript and the like (shellcmd's [shellcmd.Line] Evals;
// design/shell-policy.md has the table). With a='x[$(rm -rf ~)]', echo
// $((a)) would run rm. Such a line asks, with the construct in the reason.
//
// # Plan mode
//
// In [ModePlan] the policy lets only what changes nothing run, and says
// so before any rule, hook or person is consulted: a user's one-off
// "allow" cannot let a write through, because the call is denied before
// anyone is asked. What runs:
//
//   - read-only tools (Annotations.ReadOnly), which then meet the rules
//     as in the default mode;
//   - shell lines whose every simple command is read-only by a
//     conservative whitelist (ls, cat, grep, find without -exec or
//     -delete, git status/log/diff/show/…, go list/doc/version/env, sort
//     without -o, …; no assignments, no output redirection except to
//     /dev/null, nothing Bash may evaluate as code). Such a line still
//     needs what the default mode needs (a rule, or a person's yes,
//     unless it changes nothing and shows no file's content): plan mode
//     narrows, never widens. Read-only means it writes nothing; it may
//     read anything the shell can;
//   - write_file and replace on a .md file directly in the session's plan
//     directory, .wield/plans/SESSION ([PlanDir]), with no symbolic link
//     on the way.
//
// Every other call is denied with a reason that tells the model to
// describe the change in its plan instead. The mode can change during a
// run: [Policy.Modes] reads it per session from the host's store (a
// session enters plan mode, or leaves it when its plan is approved), so
// plan mode hides no tools; it is enforced on each call.
//
// The whitelist is tested against real Bash: every line it accepts, of
// generated and fuzzed ones, runs in a copy of a git repository that must
// come out unchanged (git's own index stat cache aside).
//
// # Approvals
//
// "Ask" is not a prompt: the runner hands it to an approver (a terminal
// prompt in the CLI) or, when told to pause, returns the pending calls as
// data (see the agent package's Resume). [AllowAlways] gives the rule to
// store for "allow always": the command prefix, never the verbatim line.
// A headless policy turns ask into deny with a reason the model reads; the
// host may end it with how its user grants permission
// ([Policy.HeadlessHint]), since the policy knows no command line or file
// layout.
//
// # Logging
//
// A [Policy] and its [Hooks] log warnings (an unsupported hook event, a
// hook that failed) to their Logger; a nil Logger discards them.
package policy
