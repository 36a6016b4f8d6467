// Package shell provides the shell tools: run_shell_command, which runs a
// command line with bash, and shell_output and shell_kill, which read and
// stop the commands that go on as background jobs.
//
// The tools are built so that a command never hangs the agent and never
// leaves a process behind:
//
//	jobs, err := shell.NewJobs(&shell.JobsOptions{Subreaper: true})
//	defer jobs.Close() // stops every command still running
//	tools := shell.Tools(shell.Config{Jobs: jobs})
//
// # Running a command
//
// A command runs as bash -c COMMAND (sh when there is no bash) in the
// workspace root or a directory inside it, with standard input from
// /dev/null. The shell leads a session of its own: it and its children
// form one process group that one signal reaches, and they have no
// controlling terminal, so a program that opens /dev/tty to ask for a
// password fails at once instead of waiting. Its environment is wield's,
// less variables whose names look like secrets (see [Config.AllowEnv]),
// with PAGER=cat, GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0 and GIT_EDITOR=true,
// and with git configuration that follows (see "Git" below).
//
// The directory check is a convenience, not a sandbox: a command can cd
// anywhere and touch any file its user can. Deciding which commands may
// run is the policy's job, on the commands the shellcmd package splits
// out of the line.
//
// # Git
//
// A policy runs git status, git log, git diff and the like without
// asking, because they only read; but a repository's .git/config and
// .gitattributes can make git run programs (core.fsmonitor, a filter's
// clean command, a textconv, hooks, a pager, an alias…). So before each
// command, git config --list is read in the command's directory, and the
// command's environment gets GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n entries that override every such setting the
// repository made, with the user's own value or none (the keys are
// listed in internal/gitsafe). Entries the environment already has are
// kept, before these, when they are complete; an incomplete set (the
// GIT_CONFIG_KEY_n names look like secrets and are dropped unless
// [Config.AllowEnv] lets them through) is dropped. Hooks are off
// (core.hooksPath=/dev/null) unless [Config.GitHooks]. GIT_OPTIONAL_LOCKS=0
// is set unless the environment sets it: git status then never writes
// the index, as a command the policy ran as read-only should not.
//
// What this does not guarantee: the configuration read is that of the
// repository of the command's directory, as it was when the command
// started. A line that changes into another repository (cd vendor/x,
// git -C x) or into a submodule gets the overrides that need no reading
// (hooks, fsmonitor, pager, editors, ssh, askpass, credential helpers,
// gpg, ext::), but not those of the filters, diff and merge drivers,
// aliases and remotes that repository defines. git -c and
// GIT_CONFIG_PARAMETERS, which git reads after GIT_CONFIG_COUNT, and a
// command that drops the environment, undo the overrides; the policy
// asks before such lines. A git the repository's settings make fail
// (a diff driver it defines, whose command is now empty) says it
// "cannot run" the program.
//
// # Limits
//
// A command is stopped when it runs past its wall-clock limit (timeout_ms,
// [Config.Timeout] by default), prints nothing for [Config.Inactivity], or
// prints more than [Config.MaxOutput] bytes. Stopping means SIGTERM to
// every process of the command, then, after [Config.KillGrace], SIGKILL to
// whatever is left, until nothing is. A foreground command still running
// after [Config.YieldAfter] becomes a background job, keeping its limits;
// the call returns its job id and output so far. A job started with
// background=true has no limits unless the call gives timeout_ms.
//
// # Output
//
// Standard output and standard error share one pipe, so they interleave
// as the command writes them. While a foreground command runs, its output
// is streamed as progress events whose Data is an [OutputEvent], at most
// one every 100 ms. [Config.CaptureLimit] bytes are kept (the first
// quarter and the last three quarters); a result shows at most
// [Config.OutputLimit] bytes of them, head and tail, and saves all of them
// to .wield/spill/SESSION/CALL.log in the workspace, whose path is in the
// result's [RunData]. Invalid UTF-8 is replaced, carriage-return progress
// lines are collapsed, and binary output is summarised rather than shown.
//
// # Which processes are killed
//
// When a command is stopped, and also when its shell exits on its own,
// every process that belongs to it is killed: a command does not leave
// daemons or background processes behind (use background=true to keep
// something running). A process belongs to a command when
//
//   - it is in the shell's session or process group;
//   - its environment holds the command's marker, WIELD_SHELL_JOB=TOKEN,
//     which every process inherits unless it clears its environment; this
//     finds processes that left the session with setsid or were orphaned
//     and re-parented, without cgroups; or
//   - its parent is the command's supervisor (see "Supervisors"), which
//     orphans are re-parented to; or
//   - its parent belongs to the command.
//
// These are found by reading /proc, and signalled and waited for through
// pidfds, so a pid reused by an unrelated process is never signalled.
// When the shell exits and the kernel has handed out no process id since
// it started the shell (the last pid in /proc/loadavg), or its supervisor
// says that it has no other child, the command cannot have left anything
// and /proc is not read: a command such as "go env" costs no scan.
//
// With [JobsOptions.Subreaper], wield becomes a child subreaper
// (PR_SET_CHILD_SUBREAPER): processes that a command orphans are
// re-parented to wield instead of init, and wield reaps those it kills.
// That keeps orphans inside wield's process tree, which matters when
// wield runs as a container's first process. The setting is process-wide:
// an orphan of some other child of wield becomes wield's zombie until
// wield exits, since wield cannot tell it apart from a child that other
// code will wait for.
//
// What escapes: without a supervisor, a process that clears its
// environment, leaves the session and is orphaned, all three, cannot be
// told from any other process of the user without cgroups or a pid
// namespace. Its output is not waited for past one second after the
// command's other processes are gone. On systems other than Linux the
// tools refuse to run commands.
//
// # Supervisors
//
// Without a supervisor, commands are children of the host, and if the
// host is killed with SIGKILL they live on. With [Config.Supervisor], each
// command runs under a small supervisor process, which the host starts
// with the command line it names, followed by arguments of the tools' own;
// the program it names must hand those to [Supervise]. cmd/wield names
// itself:
//
//	if len(os.Args) > 1 && os.Args[1] == "__shell-supervisor" {
//		os.Exit(shell.Supervise(os.Args[2:]))
//	}
//	tools := shell.Tools(shell.Config{Supervisor: []string{"/proc/self/exe", "__shell-supervisor"}})
//
// The supervisor is a child subreaper, so everything the command starts,
// orphans included, stays in its process tree; it reaps those processes,
// passes SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 it receives
// on to the command's process group, and tells the host the shell's exit
// status and whether anything else of the command is left (so the host
// reads /proc only when something is). It holds one end of a socket whose
// other end only the host has: when the host dies, however it dies, the
// supervisor reads end of file, kills every process of the command with
// SIGKILL and exits. The hop costs one start of the supervisor's program
// per command; see design/processes.md.
//
// After a crash of a host that ran without supervisors, or whose
// supervisors were killed with it, [Sweep] kills what is left of the
// commands its results recorded as running ([RunData.Marker]).
//
// # Sandboxing
//
// With [Config.Sandbox] every command runs in that sandbox (package
// sandbox): the system read-only, writes allowed only beneath the
// workspace root and a scratch directory made for the command and removed
// when it ends (its TMPDIR), no network unless [Config.SandboxNetwork],
// and, under bubblewrap, a PID namespace of its own. The sandbox helper
// takes the shell's place in the process tree, under the supervisor when
// there is one, so limits, background jobs and the killing of what a
// command leaves behind work as without a sandbox. The sandbox's CPU,
// memory and file size limits are off: the shell's own limits bound a
// command. Caches beneath HOME are read-only too, so tools that write
// them (go build's GOCACHE, npm's cache) need them pointed into the
// workspace or TMPDIR. Without a sandbox the directory check is a
// convenience, not a boundary.
//
// # Background jobs
//
// A [Jobs] table holds the background jobs, by ids such as "job-1", and
// the running foreground commands; [Jobs.Close] stops them all. The tools
// take the table from [Config.Jobs]; without one, commands run in the
// foreground only and never yield. shell_output returns a job's output not returned before
// (or its last lines), and shell_kill stops it. Finished jobs are kept,
// [JobsOptions.KeepFinished] of them, so their output can still be read.
package shell
