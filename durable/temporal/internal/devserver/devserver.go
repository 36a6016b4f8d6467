// Package devserver gives the tests of the durable/temporal module the
// Temporal development server that scripts/temporal-dev.sh starts for them.
//
// The script starts `temporal server start-dev` on 127.0.0.1 at a free
// port, sets WIELD_TEMPORAL to its frontend address and
// WIELD_TEMPORAL_NAMESPACE to its namespace, and runs the tests:
//
//	scripts/temporal-dev.sh --exec go test -race ./...
//
// A test that needs the server calls [Address]; without the server the
// test fails, it does not skip, so that a test run that forgot the server
// cannot pass for one that ran against it.
package devserver

import (
	"os"
	"testing"
)

// Address returns the host:port of the Temporal frontend in WIELD_TEMPORAL.
//
// When WIELD_TEMPORAL is unset it fails t, saying to run the tests under
// scripts/temporal-dev.sh --exec; on a developer machine
// (WIELD_ALLOW_SKIP=1 and CI unset) it skips t instead.
func Address(t testing.TB) string {
	t.Helper()
	if addr := os.Getenv("WIELD_TEMPORAL"); addr != "" {
		return addr
	}
	const msg = "WIELD_TEMPORAL is not set: run the tests under scripts/temporal-dev.sh --exec " +
		"(for example: bash scripts/temporal-dev.sh --exec go test -race ./...), " +
		"which starts a Temporal development server and sets it"
	if os.Getenv("WIELD_ALLOW_SKIP") == "1" && os.Getenv("CI") == "" {
		t.Skip(msg)
	}
	t.Fatal(msg)
	return ""
}

// Namespace returns the Temporal namespace in WIELD_TEMPORAL_NAMESPACE,
// or "default" when it is unset.
func Namespace() string {
	if ns := os.Getenv("WIELD_TEMPORAL_NAMESPACE"); ns != "" {
		return ns
	}
	return "default"
}
