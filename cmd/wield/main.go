// Command wield gives LLM agents tools: it lists and calls typed tools,
// runs an agent loop against any OpenAI-compatible model and serves its
// tools over MCP.
//
// Run "wield help" for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tools/shell"
)

// Exit codes, documented in docs/cli.md.
const (
	exitOK          = 0
	exitToolFailure = 1 // the command failed: a tool call, a run
	exitUsage       = 2 // the command line or configuration is wrong
	// exitDenied (call.go) is 3: calls were denied.
	// exitInterrupted ends a command stopped by Ctrl-C or SIGTERM, as a
	// shell reports a process killed by SIGINT (128+2).
	exitInterrupted = 130
)

// exitError carries an exit code out of a command; a nil err exits
// silently with code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// shellSupervisorArg, as wield's first argument, makes wield a shell
// command supervisor: the shell tools run each command under
// "wield __shell-supervisor ...", which kills the command when wield dies,
// however it dies (see shell.Supervise).
const shellSupervisorArg = "__shell-supervisor"

// init turns the process into a supervisor, before anything else, when it
// was started as one. It is init rather than the top of main so that this
// package's test binaries, which the shell tools start the same way in
// tests that run commands, are supervisors too.
func init() {
	if len(os.Args) > 1 && os.Args[1] == shellSupervisorArg {
		os.Exit(shell.Supervise(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Enter(os.Args[2:]))
	}
}

// shellSupervisor is the command line that starts the supervisor of a
// shell command: wield itself. /proc/self/exe names the running binary
// even when its file has since been replaced or deleted, as by go install;
// os.Executable would name the new file, or none. Elsewhere than on Linux
// commands run without a supervisor.
func shellSupervisor() []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	return []string{"/proc/self/exe", shellSupervisorArg}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the wield command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, g := newRootCommand(stdin, stdout, stderr)
	setExamples(root)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if cerr := g.close(); cerr != nil {
		fmt.Fprintf(stderr, "wield: stopping background jobs: %v\n", cerr)
	}
	if cerr := g.closeLog(); cerr != nil {
		fmt.Fprintf(stderr, "wield: closing the log: %v\n", cerr)
	}
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		// Interrupted: whatever the command was doing failed because of
		// it, which needs no second message.
		fmt.Fprintln(stderr, "wield: interrupted")
		return exitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "wield: %v%s\n", ee.err, hint(ee.err))
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "wield: %v%s\n", err, hint(err))
	return exitUsage
}
