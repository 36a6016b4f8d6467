// Package temporal runs wield's agent loop durably on Temporal: a run is
// a workflow, each model call and each tool call an activity, so that a
// run survives the loss of the worker that started it, spreads over many
// workers and can wait days for an approval.
//
// This package is a Go module of its own inside wield's repository, so
// that the core module never imports Temporal: programs that do not run
// agents on Temporal do not download its SDK.
//
// Its tests run against a real Temporal development server; run them
// under scripts/temporal-dev.sh --exec, which starts one on 127.0.0.1 and
// sets WIELD_TEMPORAL to its address.
package temporal
