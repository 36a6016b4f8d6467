package main

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield/tool"
)

// Durable runs on Temporal: wield worker, wield run --temporal and wield
// approve. The Temporal SDK is linked only into a wield built with
// -tags temporal (durable_temporal.go); any other build has the same
// commands and flags, which say how to get that build
// (durable_notemporal.go). Keeping it out of the default build keeps
// every other command's start fast and its binary small.

// durableFlags say where Temporal is.
type durableFlags struct {
	addr, namespace, queue string
}

func (d *durableFlags) register(fl *pflag.FlagSet, addrHelp string) {
	fl.StringVar(&d.addr, "temporal", "", addrHelp)
	fl.StringVar(&d.namespace, "namespace", "default", "the Temporal `namespace`")
	fl.StringVar(&d.queue, "task-queue", "wield", "the Temporal task `queue` runs go to")
}

func newWorkerCommand(g *globals) *cobra.Command {
	f := &runFlags{worker: true}
	d := &durableFlags{}
	cmd := &cobra.Command{
		Use:   "worker --temporal HOST:PORT [flags]",
		Short: "run agent runs durably, as a Temporal worker" + temporalNote,
		Long: `Worker serves durable runs from a Temporal task queue: each run is a
workflow, each model call and tool call an activity, so a run survives the
loss of any worker, spreads over many, and can wait days for an approval
(docs/durable.md). Start as many workers as you like, on as many machines;
they share the session store (WIELD_SESSIONS: a directory on a shared disk or
a postgres:// URL) and are configured like wield run: the model, the tools and
the permission mode come from the same flags and config files.

Calls the permission rules do not allow wait for an answer:
wield approve RUN CALL --yes|--no sends it.

Needs a wield built with -tags temporal.`,
		Example: `  temporal server start-dev &
  wield worker --temporal 127.0.0.1:7233 --model openai:gpt-5
  wield run --temporal 127.0.0.1:7233 "fix the failing test"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if d.addr == "" {
				return &exitError{exitUsage, errors.New("--temporal HOST:PORT is required: the address of Temporal's frontend")}
			}
			return g.runWorker(cmd.Context(), f, d)
		},
	}
	f.register(cmd)
	d.register(cmd.Flags(), "Temporal's frontend `host:port`")
	return cmd
}

func newApproveCommand(g *globals) *cobra.Command {
	d := &durableFlags{}
	var yes, no bool
	var message string
	cmd := &cobra.Command{
		Use:   "approve RUN CALL (--yes | --no [--message TEXT]) --temporal HOST:PORT",
		Short: "answer a durable run's call that awaits approval" + temporalNote,
		Long: `Approve answers a call a durable run (wield run --temporal) waits on: --yes
runs it, --no refuses it and tells the model why (--message). A run may
wait days; the answer reaches it whichever worker serves it, and an answer
sent before the run asks is kept until it does.

Needs a wield built with -tags temporal.`,
		Example: `  wield approve 20261125-101500-ab12 call_3 --yes --temporal 127.0.0.1:7233
  wield approve 20261125-101500-ab12 call_4 --no --message "not on main" --temporal 127.0.0.1:7233`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if yes == no {
				return &exitError{exitUsage, errors.New("say --yes or --no")}
			}
			if d.addr == "" {
				return &exitError{exitUsage, errors.New("--temporal HOST:PORT is required: the address of Temporal's frontend")}
			}
			verdict := tool.Allow
			if no {
				verdict = tool.Deny
			}
			return g.approveDurable(cmd.Context(), d, args[0], args[1], verdict, message)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&yes, "yes", false, "run the call")
	fl.BoolVar(&no, "no", false, "refuse the call")
	fl.StringVar(&message, "message", "", "with --no, why: the model reads it")
	d.register(fl, "Temporal's frontend `host:port`")
	return cmd
}
