package main

import (
	"context"
	"encoding/json"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

// A chatScreen carries what a run of wield chat's terminal UI has to
// tell its screen, and the questions the screen answers: the run's
// events, approvals and ask_user questions. Each becomes a message of
// the screen's program; a question waits for its answer on a channel, or
// for the call's context to end.
//
// send is set once, before the program runs and so before any run can
// call the screen; it is then used from the loop's goroutines.
type chatScreen struct {
	send func(tea.Msg)
}

// approver returns what approves the calls of a run: the terminal
// approver when there is no screen, else the screen, which shows what
// a asks and offers what a offers.
func (s *chatScreen) approver(a *terminalApprover) tool.Approver {
	if s == nil {
		return a
	}
	return screenApprover{s, a}
}

// asker returns what answers ask_user: the terminal when there is no
// screen, else the screen.
func (s *chatScreen) asker(a *terminalApprover) askuser.Asker {
	if s == nil {
		return terminalAsker{a}
	}
	return screenAsker{s}
}

// event forwards an event of the run to the screen.
func (s *chatScreen) event(e agent.Event) { s.send(eventMsg{e}) }

// An approvalRequest is a call that asks the person at the screen.
type approvalRequest struct {
	approvalPrompt
	rules []policy.Rule // what a and p add, named by approvalPrompt.rules
	// allow stores the rules (in the project's settings with project)
	// and returns the file written.
	allow func(rules []policy.Rule, project bool) (string, error)
	reply chan tool.Decision // buffered: the screen never blocks on it
	// shownAbove reports that the call and what it will do were printed
	// above the screen, being too tall for it: the screen shows the
	// call's line and the answers.
	shownAbove bool
}

// A screenApprover asks the screen about the calls the policy could not
// decide; the time a call waits is not the call's (the runner leaves it
// out of the call's duration).
type screenApprover struct {
	s *chatScreen
	a *terminalApprover
}

// Approve shows the call on the screen and waits for the person's
// answer, or for ctx to end (Esc, Ctrl-C), which denies the call.
func (sa screenApprover) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	pr, rules := sa.a.prompt(c, t, args, why)
	req := &approvalRequest{approvalPrompt: pr, rules: rules, allow: sa.a.allow, reply: make(chan tool.Decision, 1)}
	sa.s.send(approvalMsg{req})
	select {
	case d := <-req.reply:
		return d
	case <-ctx.Done():
		return tool.Decision{Verdict: tool.Deny, Reason: "the user cancelled the run before answering"}
	}
}

// A questionRequest is an ask_user question put to the person at the
// screen.
type questionRequest struct {
	q     askuser.Question
	reply chan askuser.Answer // buffered
}

// A screenAsker puts ask_user questions (and plan approvals) to the
// person at the screen.
type screenAsker struct{ s *chatScreen }

// Ask shows the question and waits for a reply the question accepts.
func (sa screenAsker) Ask(ctx context.Context, q askuser.Question) (askuser.Answer, error) {
	req := &questionRequest{q: q, reply: make(chan askuser.Answer, 1)}
	sa.s.send(questionMsg{req})
	select {
	case a := <-req.reply:
		return a, nil
	case <-ctx.Done():
		return askuser.Answer{}, errors.Join(errors.New("the user cancelled the run before answering"), context.Cause(ctx))
	}
}

// The messages a chatScreen sends its program.
type (
	eventMsg    struct{ e agent.Event }
	approvalMsg struct{ req *approvalRequest }
	questionMsg struct{ req *questionRequest }
)
