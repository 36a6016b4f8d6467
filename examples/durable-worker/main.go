//go:build temporal

// Durable-worker runs an agent built with [wield.New] durably, on
// Temporal (package durable/temporal): a run is a workflow and each model
// call and tool call an activity, so a run outlives the worker that
// started it and goes on on any worker of the same task queue that shares
// its session store (a shared directory, or PostgreSQL with package
// session/pgstore).
//
// It starts a worker, starts its task as a run on the task queue, waits
// for the run's outcome and prints its answer. With -serve it only
// serves, for runs that others start (wield run --temporal, or another
// copy of this program). With a Temporal development server and the
// scripted model in script.jsonl:
//
//	temporal server start-dev &
//	go run -tags temporal ./examples/durable-worker 'What is in this folder?'
//
// -model anthropic:claude-sonnet-4-5 (its key in ANTHROPIC_API_KEY) asks
// a real model. The build constraint keeps Temporal's SDK out of wield's
// default build, as it does for wield worker; a program of your own,
// whose module requires github.com/wieldhq/wield/durable/temporal, needs
// none.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/durable/temporal"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
)

//go:embed script.jsonl
var script []byte

// A host gives the worker's activities the agent and the sessions. One
// agent serves every run here; a host may build one per session.
type host struct{ a *wield.Agent }

func (h host) Sessions() *session.Store { return h.a.Store }

func (h host) Agent(context.Context, string) (*agent.Agent, error) { return h.a.Agent, nil }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "durable-worker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("durable-worker", flag.ContinueOnError)
	var opts temporal.Options
	flags.StringVar(&opts.HostPort, "temporal", "127.0.0.1:7233", "Temporal's frontend `host:port`")
	flags.StringVar(&opts.Namespace, "namespace", "default", "the Temporal `namespace`")
	flags.StringVar(&opts.TaskQueue, "queue", "wield-example", "the task `queue` runs go to")
	serve := flags.Bool("serve", false, "only serve runs, until interrupted")
	modelName := flags.String("model", "", "the `model`, as provider:name; empty means the scripted one")
	replayFile := flags.String("replay", "", "a JSON Lines `file` to script the model with instead of script.jsonl")
	err := flags.Parse(args)
	if err != nil {
		return err
	}
	wo := wield.Options{Model: *modelName, Tools: []string{"read_file", "list_directory", "glob"}}
	if *modelName == "" {
		if wo.Provider, err = scripted(*replayFile); err != nil {
			return err
		}
	}
	a, err := wield.New(ctx, wo)
	if err != nil {
		return err
	}
	defer a.Close()
	c, err := temporal.Dial(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Close()

	serving, stopServing := context.WithCancel(ctx)
	defer stopServing()
	var wg sync.WaitGroup
	var served error
	wg.Go(func() { served = c.NewWorker(host{a}, temporal.WorkerOptions{}).Run(serving) })
	if *serve {
		fmt.Fprintf(stderr, "durable-worker: serving task queue %q on %s\n", opts.TaskQueue, opts.HostPort)
		wg.Wait()
		return served
	}
	task := "What is in this folder?"
	if flags.NArg() > 0 {
		task = flags.Arg(0)
	}
	id := a.Store.NewID() // the run's workflow id and its session's
	out, err := startAndWait(ctx, c, id, task)
	stopServing()
	wg.Wait()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "durable-worker: run %s: %d rounds, %d tool calls\n", id, out.Rounds, out.ToolCalls)
	fmt.Fprintln(stdout, out.Text)
	return served
}

// startAndWait starts task as run id and waits for its outcome.
func startAndWait(ctx context.Context, c *temporal.Client, id, task string) (*agent.Outcome, error) {
	if err := c.Start(ctx, id, temporal.RunInput{SessionID: id, Task: task}); err != nil {
		return nil, err
	}
	return c.Wait(ctx, id)
}

// scripted returns the scripted model: the script in file, or with no
// file the one in script.jsonl.
func scripted(file string) (*replay.Provider, error) {
	if file != "" {
		return replay.Load(file)
	}
	entries, err := replay.Parse(script)
	if err != nil {
		return nil, err
	}
	return replay.New(entries)
}
