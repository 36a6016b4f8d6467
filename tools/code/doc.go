// Package code provides run_code, the tool that runs a snippet of Python,
// JavaScript or Bash in a sandbox ([sandbox.Sandbox]) and returns what it
// printed, the files it wrote and the value it left in result.
//
//	sb, err := sandbox.New(ctx, sandbox.Config{Helper: []string{"/proc/self/exe", sandbox.HelperArg}})
//	if err != nil {
//		return err // names what to install
//	}
//	sessions := code.NewSessions(0)
//	defer sessions.Close() // removes every session's scratch directory
//	t := code.NewRunCode(code.Config{Sandbox: sb, Sessions: sessions})
//
// # Isolation
//
// Code runs only in a sandbox: with no [Config.Sandbox], or one that
// turns out to be unavailable, every call fails with a result naming what
// to install, and nothing runs. In the sandbox the code sees the system
// read-only with the user's credentials hidden, may write only to its
// scratch directory, which is also its working directory, HOME and
// TMPDIR, has no network unless [Config.Network], and is bounded in
// wall-clock time, CPU time, memory, file size and output. The sandbox
// package's documentation says what that does not guarantee: only the
// usual credential locations are hidden, and every other file the user
// can read stays readable. That is why run_code is not annotated
// read-only: a policy asks before it runs, as it would before a shell
// command that reads the user's files.
//
// # State
//
// Each call gets a new, empty scratch directory, removed when the call
// returns: nothing carries over from one call to the next. A call that
// names a session works in that session's scratch directory instead,
// which keeps its files for the session's later calls; calls in one
// session run one at a time. [Sessions] bounds how many there are and
// removes them all on Close, so that none outlives the program.
//
// # Context and result
//
// The call's context object is handed to the code: in Python as a dict
// named context, and each key that is an identifier as a variable of its
// own; in JavaScript as the global context; in Bash as the file named by
// $WIELD_CONTEXT, and each key that is a shell name with a string, number
// or boolean value as an environment variable. A value the Python or
// JavaScript code assigns to a top-level result (Bash: JSON written to the
// file $WIELD_RESULT) comes back as the result's structured data.
package code
