package subagent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// protocol is added to every child's system prompt.
const protocol = `# Reporting

You are a subagent: another agent gave you this task and waits for your report. When you have finished, or cannot go on, call complete_task with your status and your whole report. It is the only way your work reaches the other agent: an answer in plain text is not delivered.`

// systemPrompt returns the system prompt of a child of d.
func systemPrompt(d *Definition) string {
	return d.Prompt + "\n\n" + protocol
}

// errTimedOut is the cancellation cause of a child that ran out of time.
type errTimedOut struct{ d time.Duration }

func (e errTimedOut) Error() string { return fmt.Sprintf("ran out of time after %v", e.d) }

// start runs a child of def for the call c of caller (nil for the top
// level), from its session's creation to its report. The error says why
// the child could not start; once started, a child always reports. With
// link, its start and its report are recorded in the parent's session.
func (r *Runner) start(ctx context.Context, c *tool.Call, caller *child, def *Definition, depth int, run string, in AgentInput, link bool) (*Report, error) {
	provider, model, err := r.model(def)
	if err != nil {
		return nil, err
	}
	parentTools, path := r.cfg.Tools, def.Name
	if caller != nil {
		parentTools, path = caller.tools, caller.path+"/"+def.Name
	}
	sess, err := r.newSession(ctx, c, def, depth, model, oneLine(cmp.Or(in.Description, in.Prompt), 120))
	if err != nil {
		return nil, err
	}
	ch := &child{id: sess.ID(), def: def, depth: depth, path: path, tools: childTools(parentTools, def), run: run}
	r.mu.Lock()
	r.children[ch.id] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.children, ch.id)
		r.mu.Unlock()
		if cl, ok := sess.(io.Closer); ok {
			if err := cl.Close(); err != nil {
				r.cfg.Logger.Warn("cannot close a subagent's session", "session", ch.id, "err", err)
			}
		}
	}()
	parent, linked := r.parentSession(c.SessionID)
	linked = linked && link
	if linked {
		if err := parent.AgentStarted(ctx, c.ID, def.Name, ch.id); err != nil {
			r.cfg.Logger.Warn("cannot record a subagent's start in its parent's session", "session", c.SessionID, "child", ch.id, "err", err)
		}
	}
	rep := r.run(ctx, c, ch, sess, provider, model, in.Prompt)
	rep.Agent, rep.Session, rep.Transcript = def.Name, ch.id, r.transcript(ch.id)
	r.bound(c, rep)
	if linked {
		// The parent's transaction is still open: its run waits for this
		// call, even when it was cancelled.
		if err := parent.AgentFinished(context.WithoutCancel(ctx), c.ID, def.Name, ch.id, string(rep.Status), rep.Text(), rep.Usage); err != nil {
			r.cfg.Logger.Warn("cannot record a subagent's report in its parent's session", "session", c.SessionID, "child", ch.id, "err", err)
		}
	}
	return rep, nil
}

// run works the child's task, then, if it stopped without reporting,
// gives it one grace round to report; if that fails too, it reports for
// it: partial, with everything it wrote.
func (r *Runner) run(ctx context.Context, c *tool.Call, ch *child, sess agent.Session, provider llm.Provider, model, prompt string) *Report {
	reg := ch.tools.Exclude(nil)
	agentTool := r.agentTool
	if ch.depth >= r.cfg.MaxDepth {
		agentTool = r.agentDeep // refuses, with a message, if called anyway
	}
	// Neither can be there: childTools took both out.
	_ = reg.Register(r.complete[ch.def.Name])
	_ = reg.Register(agentTool)
	opts := r.cfg.RunnerOptions
	opts.Recorder, opts.OnEvent, opts.PauseForApproval = nil, nil, false
	if opts.Approver != nil {
		opts.Approver = taggedApprover{opts.Approver, ch.path}
	}
	prog := &progress{c: c, path: ch.path, session: ch.id}
	maxRounds := cmp.Or(ch.def.MaxTurns, r.cfg.MaxTurns)
	cfg := agent.Config{Provider: provider, Model: model, Tools: reg, RunnerOptions: opts, Name: ch.def.Name,
		SystemPrompt: systemPrompt(ch.def), Instructions: r.cfg.Instructions, Root: r.cfg.Root, MaxRounds: maxRounds,
		StopAtTools: []string{CompleteTaskName}, ParentCall: c.ID, OnEvent: prog.event, Logger: r.cfg.Logger,
		Telemetry: r.cfg.Telemetry}
	timeout := cmp.Or(ch.def.Timeout, r.cfg.Timeout)
	out, err := r.runOnce(ctx, cfg, sess, prompt, timeout)
	usage, rounds := out.Usage, out.Rounds
	finish := func(rep *Report) *Report {
		rep.Usage, rep.Rounds = usage, rounds
		return rep
	}
	if rep, ok := ch.reported(); ok {
		return finish(rep)
	}
	why, cut := stopped(ctx, out, err, maxRounds)
	if ctx.Err() == nil {
		final := r.complete[ch.def.Name]
		if cut {
			final = r.final[ch.def.Name]
		}
		cfg.Tools, _ = tool.NewRegistry(final)
		cfg.MaxRounds = 1
		gout, _ := r.runOnce(ctx, cfg, sess, graceTask(why, cut), r.cfg.GraceTimeout)
		usage, rounds = usage.Add(gout.Usage), rounds+gout.Rounds
		if rep, ok := ch.reported(); ok {
			rep.Note = why + "; it reported in its grace round"
			return finish(rep)
		}
		why += "; it did not report in its grace round either"
	}
	msgs := append(sess.History(), sess.Pool()...)
	return finish(&Report{Status: StatusPartial, Result: written(msgs), Note: why + ", so this is everything it wrote"})
}

// runOnce runs one task of the child under timeout. The outcome is never
// nil.
func (r *Runner) runOnce(ctx context.Context, cfg agent.Config, sess agent.Session, task string, timeout time.Duration) (*agent.Outcome, error) {
	a, err := agent.New(cfg)
	if err != nil { // cannot happen: the provider and the tools are set
		return &agent.Outcome{Reason: agent.StopError, Note: err.Error()}, err
	}
	rctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimedOut{timeout})
	defer cancel()
	out, err := a.Run(rctx, sess, task)
	if out == nil {
		out = &agent.Outcome{Reason: agent.StopError}
	}
	if err != nil && ctx.Err() == nil {
		if te, ok := errors.AsType[errTimedOut](context.Cause(rctx)); ok {
			err = te
		}
	}
	return out, err
}

// stopped says why a child stopped without reporting, and whether it was
// cut off (then it may not report done).
func stopped(ctx context.Context, out *agent.Outcome, err error, maxRounds int) (why string, cut bool) {
	if _, ok := errors.AsType[errTimedOut](err); ok {
		return "it " + err.Error(), true
	}
	switch {
	case ctx.Err() != nil:
		return "it was cancelled with its parent's run", true
	case err != nil:
		return "it failed: " + err.Error(), true
	}
	switch out.Reason {
	case agent.StopAnswer:
		return "it answered without calling complete_task", false
	case agent.StopMaxRounds:
		return fmt.Sprintf("it used all %d turns it was given", maxRounds), true
	case agent.StopMaxTokens:
		return "its last reply was cut off at the model's output limit", true
	case agent.StopLoop:
		return "it went round in circles (" + out.Note + ")", true
	case agent.StopRefusal:
		return "its model declined to go on", true
	}
	return "it stopped (" + string(out.Reason) + ")", true
}

// graceTask is the message of a child's grace round.
func graceTask(why string, cut bool) string {
	if !cut {
		return "You answered without calling complete_task, so your answer was not delivered. " +
			"Call complete_task now with your status and your whole report; it is the only tool left."
	}
	return "You stopped before reporting: " + why + ". This is your last turn, and complete_task is the only tool left. " +
		"Call it now with status partial or blocked and everything you did and found so far, so that your work is not lost."
}

// Progress is the Data of the agent tool's progress events: after each
// round of a child, what its own model calls used so far.
type Progress struct {
	// Agent is the child's path of agent types ("reviewer",
	// "general/reviewer"); Session its session id.
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// Round is the round the child just finished.
	Round int `json:"round"`
	// Usage adds up the child's model calls so far.
	Usage llm.Usage `json:"usage"`
}

// progress passes a child's events on as progress of the agent call.
type progress struct {
	c       *tool.Call
	path    string
	session string

	mu    sync.Mutex
	usage llm.Usage
}

func (p *progress) event(e agent.Event) {
	switch e.Kind {
	case agent.EventRoundFinished:
		p.mu.Lock()
		if e.Usage != nil {
			p.usage = p.usage.Add(*e.Usage)
		}
		pr := Progress{Agent: p.path, Session: p.session, Round: e.Round, Usage: p.usage}
		p.mu.Unlock()
		p.c.Emit(tool.Event{Message: fmt.Sprintf("%s: round %d", p.path, e.Round), Data: pr})
	case agent.EventToolStarted:
		p.c.Emit(tool.Event{Message: p.path + ": " + e.Call.Tool})
	case agent.EventToolProgress:
		// A grandchild's progress, or a tool's, passes up.
		if e.Call != nil && e.Call.Tool == ToolName {
			p.c.Emit(tool.Event{Message: e.Call.Message, Data: e.Call.Data})
		}
	}
}

// childTools returns the tools a child of def gets from its parent's:
// those the definition allows, without the runner's own tools, which are
// added per child.
func childTools(parent *tool.Registry, def *Definition) *tool.Registry {
	var names []string
	var specs []tool.Spec
	for _, t := range parent.Tools() {
		if n := t.Name(); n != ToolName && n != CompleteTaskName {
			names = append(names, n)
			specs = append(specs, t.Spec())
		}
	}
	allowed := def.ToolsOf(specs)
	drop := []string{ToolName, CompleteTaskName}
	for _, n := range names {
		if !slices.Contains(allowed, n) {
			drop = append(drop, n)
		}
	}
	return parent.Exclude(drop)
}

// taggedApprover passes a child's approvals to the parent's approver,
// with the agent's path in front of the reason, so that the person asked
// sees which agent asks.
type taggedApprover struct {
	tool.Approver
	path string
}

func (a taggedApprover) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	if why.Reason == "" {
		why.Reason = "[" + a.path + "] asks"
	} else {
		why.Reason = "[" + a.path + "] " + why.Reason
	}
	return a.Approver.Approve(ctx, c, t, args, why)
}
