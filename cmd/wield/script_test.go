package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// wield is main itself, signal handling included: a test may stop a
	// long-running wield (mcp --http) with SIGTERM, as a service manager
	// would.
	testscript.Main(m, map[string]func(){"wield": main})
}

// TestScripts runs the CLI scripts in testdata/script, as cmd/go does.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
