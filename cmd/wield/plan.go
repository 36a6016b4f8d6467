package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tools/plan"
)

// Plan mode in the CLI. The mode a session is in is recorded in the
// session (enter_plan_mode, exit_plan_mode, --plan), and the policy reads
// it on every call through sessionModes. The other modes (default,
// auto-edit, yolo) are the run's configuration: a session that leaves
// plan mode goes back to the run's mode, and never to plan mode because
// the settings' defaultMode says plan.

// planFlagHelp is the help of `wield run --plan`.
const planFlagHelp = "plan first: start in plan mode (only read-only tools run); interactive, you approve the plan and the run goes on; headless, the run ends with the plan"

// sessionModes is the policy's [policy.ModeSource] over the sessions this
// process has open: a session in plan mode is in plan mode; one that left
// it is in the run's mode (default if that is plan); a child agent's
// session that never had a mode of its own is in its parent's, so that a
// subagent of a planning agent plans too. It is safe for concurrent use.
type sessionModes struct {
	store *session.Store
	run   policy.Mode
	// parents caches each session's parent session id ("" for none): a
	// session's header does not change.
	parents sync.Map
}

// maxParents bounds the walk up a chain of child sessions.
const maxParents = 8

func (m *sessionModes) Mode(id string) (policy.Mode, bool) {
	for range maxParents {
		s, ok := m.store.Writer(id)
		if !ok {
			return "", false
		}
		switch planmode.Of(s).Mode {
		case "":
			if id = m.parent(s); id == "" {
				return "", false
			}
			continue
		case plan.ModePlan:
			return policy.ModePlan, true
		}
		if m.run == policy.ModePlan {
			return policy.ModeDefault, true
		}
		return "", false
	}
	return "", false
}

// parent returns the id of the session s is a child of, or "".
func (m *sessionModes) parent(s *session.Session) string {
	if p, ok := m.parents.Load(s.ID()); ok {
		return p.(string)
	}
	p := ""
	if c := s.State().Header.Child; c != nil {
		p = c.Session
	}
	m.parents.Store(s.ID(), p)
	return p
}

// startPlanMode makes the policy read the session's mode and records in
// the session the mode the command line asks for: --plan or --mode plan
// enter plan mode; another --mode leaves it (the person running wield
// decides, as approving the plan would); the settings' defaultMode plan
// puts a session that never had a mode in plan mode.
func startPlanMode(s *session.Session, store *session.Store, pol *policy.Policy, f *runFlags) error {
	pol.Modes = &sessionModes{store: store, run: pol.Mode}
	current := planmode.Of(s).Mode
	switch {
	case f.plan || f.mode == string(policy.ModePlan):
		if current != plan.ModePlan {
			return planmode.Set(s, plan.ModePlan, planmode.Of(s).Plan)
		}
	case f.mode != "":
		if current == plan.ModePlan {
			return planmode.Set(s, plan.ModeDefault, planmode.Of(s).Plan)
		}
	case pol.Mode == policy.ModePlan && current == "":
		return planmode.Set(s, plan.ModePlan, "")
	}
	return nil
}

// planStops returns the tools a run stops after: exit_plan_mode in a
// headless --plan run, which ends with the plan; none otherwise.
func planStops(f *runFlags, interactive bool) []string {
	if f.plan && !interactive {
		return []string{"exit_plan_mode"}
	}
	return nil
}

// planCapture keeps the plan that exit_plan_mode recorded in a run, so
// that a headless --plan run can end with it.
type planCapture struct {
	mu   sync.Mutex
	data *plan.ExitData
}

// wrap returns next with exit_plan_mode's successful results noted.
func (c *planCapture) wrap(next func(agent.Event)) func(agent.Event) {
	return func(e agent.Event) {
		if e.Kind == agent.EventToolFinished && e.Call != nil && e.Call.Tool == "exit_plan_mode" && e.Call.Result != nil && e.Call.Result.Success {
			if d, ok := e.Call.Result.Data.(plan.ExitData); ok {
				c.mu.Lock()
				c.data = &d
				c.mu.Unlock()
			}
		}
		next(e)
	}
}

// finish shows the outcome; a run that stopped at exit_plan_mode shows
// the plan as its result, and says how to approve it.
func (c *planCapture) finish(out *runPrinter, o *agent.Outcome, sessionID string) {
	c.mu.Lock()
	d := c.data
	c.mu.Unlock()
	if d == nil || o == nil || o.Reason != agent.StopTool || d.Approved {
		out.finish(o)
		return
	}
	o.Text = d.Plan
	o.Note = fmt.Sprintf("the plan is saved in %s and the session stays in plan mode; to carry it out: wield run --session %s --mode default 'carry out the plan'", d.Path, sessionID)
	if !out.json && out.wroteText {
		io.WriteString(out.g.stdout, "\n\n"+d.Plan)
	}
	out.finish(o)
}
