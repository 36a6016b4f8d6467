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
	"syscall"
)

// Exit codes.
const (
	exitOK          = 0
	exitToolFailure = 1
	exitUsage       = 2
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the wield command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, g := newRootCommand(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if cerr := g.close(); cerr != nil {
		fmt.Fprintf(stderr, "wield: stopping background jobs: %v\n", cerr)
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "wield: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "wield: %v\n", err)
	return exitUsage
}
