// Command wield-sandbox is wield's sandbox helper, a program that does
// nothing else so that it starts fast: wield starts it for every
// sandboxed command (run_code, and the shell under --sandbox), and it
// applies the sandbox to itself before it executes the command (see
// package sandbox, "The helper"). wield uses it when it is installed
// beside the wield executable, and otherwise re-executes itself, which
// costs the initialisation of every package wield links.
//
//	go install github.com/wieldhq/wield/cmd/wield github.com/wieldhq/wield/cmd/wield-sandbox
//
// It is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/wieldhq/wield/sandbox"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Enter(os.Args[2:]))
	}
	fmt.Fprintf(os.Stderr, "wield-sandbox: wield starts this program to run sandboxed commands (as wield-sandbox %s SPEC); it is not run by hand\n", sandbox.HelperArg)
	os.Exit(2)
}
