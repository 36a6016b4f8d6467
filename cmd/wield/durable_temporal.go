//go:build temporal

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	temporal "github.com/wieldhq/wield/durable/temporal"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// workerHost serves every session with the one agent wield worker built.
type workerHost struct {
	store *session.Store
	agent *agent.Agent
}

func (h workerHost) Sessions() *session.Store { return h.store }

func (h workerHost) Agent(context.Context, string) (*agent.Agent, error) { return h.agent, nil }

func (d *durableFlags) dial(ctx context.Context, g *globals) (*temporal.Client, error) {
	c, err := temporal.Dial(ctx, temporal.Options{HostPort: d.addr, Namespace: d.namespace, TaskQueue: d.queue, Logger: g.logger()})
	if err != nil {
		return nil, &exitError{exitToolFailure, err}
	}
	return c, nil
}

func (g *globals) runWorker(ctx context.Context, f *runFlags, d *durableFlags) error {
	env, err := g.setupRun(ctx, f, "", nil)
	if err != nil {
		return err
	}
	defer env.close()
	c, err := d.dial(ctx, g)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(g.stderr, "wield worker: serving task queue %q on %s (namespace %s) with %s; Ctrl-C stops\n", d.queue, d.addr, d.namespace, env.model)
	return c.NewWorker(workerHost{store: env.store, agent: env.agent}, temporal.WorkerOptions{}).Run(ctx)
}

func (g *globals) approveDurable(ctx context.Context, d *durableFlags, run, call string, verdict tool.Verdict, message string) error {
	c, err := d.dial(ctx, g)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Approve(ctx, run, agent.Answer{CallID: call, Verdict: verdict, Message: message}); err != nil {
		return &exitError{exitToolFailure, err}
	}
	word := "yes"
	if verdict == tool.Deny {
		word = "no"
	}
	fmt.Fprintf(g.stderr, "wield: answered %s to call %s of run %s\n", word, call, run)
	return nil
}

// runDurable starts task as a durable run and follows it: the session's
// turns as workers record them, a hint for each call awaiting approval,
// then the answer. Interrupting it stops following, not the run.
func (g *globals) runDurable(ctx context.Context, f *runFlags, d *durableFlags, task string) error {
	ws, err := g.workspace()
	if err != nil {
		return err
	}
	cfg, err := wield.LoadConfig(f.cfg, ws, os.Getenv, g.trusted(ws))
	if err != nil {
		return &exitError{exitUsage, err}
	}
	store := g.store(ws)
	id := f.sessionID
	if id == "" {
		id = store.NewID()
	}
	c, err := d.dial(ctx, g)
	if err != nil {
		return err
	}
	defer c.Close()
	in := temporal.RunInput{SessionID: id, Task: task, Limits: agent.Limits{MaxRounds: cfg.MaxRounds}}
	if err := c.Start(ctx, id, in); err != nil {
		return &exitError{exitToolFailure, err}
	}
	pal := palette{color: !g.noColor()}
	if !f.json {
		fmt.Fprintln(g.stderr, pal.dim(fmt.Sprintf("run %s on %s, task queue %q: wield session show %s follows it too", id, d.addr, d.queue, id)))
	}
	follow := &follower{g: g, pal: pal, json: f.json, store: store, id: id, asked: map[string]bool{}}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { follow.run(ctx, c, done) })
	out, err := c.Wait(ctx, id)
	close(done)
	wg.Wait()
	follow.turns(context.WithoutCancel(ctx)) // the last ones, also when following was interrupted
	if ctx.Err() != nil {
		fmt.Fprintf(g.stderr, "wield: stopped following; run %s goes on (wield session show %s)\n", id, id)
		return &exitError{exitInterrupted, ctx.Err()}
	}
	if err != nil {
		return &exitError{exitToolFailure, err}
	}
	if f.json {
		b, _ := json.Marshal(map[string]any{"kind": "run_finished", "session": id, "outcome": out})
		fmt.Fprintln(g.stdout, string(b))
	} else {
		fmt.Fprintln(g.stdout, out.Text)
		if out.Note != "" {
			fmt.Fprintln(g.stderr, pal.dim("wield: "+out.Note))
		}
	}
	if out.Reason == agent.StopError {
		return &exitError{exitToolFailure, errors.New(out.Note)}
	}
	return nil
}

// follower prints a durable run's session as it grows.
type follower struct {
	g     *globals
	pal   palette
	json  bool
	store *session.Store
	id    string
	seen  int // turns printed, committed and pooled
	asked map[string]bool
}

func (f *follower) run(ctx context.Context, c *temporal.Client, done <-chan struct{}) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f.turns(ctx)
		st, err := c.Status(ctx, f.id)
		if err != nil {
			continue
		}
		for _, p := range st.Pending {
			if f.asked[p.ID] || f.json {
				continue
			}
			f.asked[p.ID] = true
			fmt.Fprintf(f.g.stderr, "%s %s (%s) awaits approval: wield approve %s %s --yes|--no --temporal ...\n",
				f.pal.yellow("wield:"), p.ID, p.Tool, f.id, p.ID)
		}
	}
}

// turns prints the turns recorded since the last call.
func (f *follower) turns(ctx context.Context) {
	st, err := f.store.Load(ctx, f.id)
	if err != nil {
		return
	}
	all := append(append([]session.Turn(nil), st.Turns...), st.Pool...)
	if len(all) < f.seen {
		f.seen = len(all)
	}
	for _, t := range all[f.seen:] {
		f.print(&t)
	}
	f.seen = len(all)
}

func (f *follower) print(t *session.Turn) {
	if f.json {
		b, _ := json.Marshal(map[string]any{"kind": "turn", "session": f.id, "turn": t})
		fmt.Fprintln(f.g.stdout, string(b))
		return
	}
	w := f.g.stderr
	switch t.Kind {
	case session.TurnModelResponse:
		if t.Text != "" && len(t.Calls) > 0 {
			fmt.Fprintln(w, f.pal.dim(oneLine(t.Text, 200)))
		}
	case session.TurnFunctionCalling:
		fmt.Fprintf(w, "  %s %s %s\n", f.pal.dim("→"), t.Tool, oneLine(string(t.Arguments), 160))
	case session.TurnToolResponse:
		mark := f.pal.green("✓")
		if t.Status != session.StatusSucceeded {
			mark = f.pal.red("✗")
		}
		fmt.Fprintf(w, "  %s %s %s\n", mark, t.Tool, oneLine(t.Output, 160))
	}
}

// temporalNote ends the one-line help of the durable commands: nothing,
// in the build that runs them.
const temporalNote = ""
