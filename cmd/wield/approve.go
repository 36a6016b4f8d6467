package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wieldhq/wield/policy"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

// terminalApprover asks the person at the terminal about calls the policy
// could not decide. It shows what the call will do (an edit as a diff, a
// shell line split into its commands, each judged) and offers: yes once;
// no, with a reason the model reads; always in this session; always in
// this project, with the rule it would save and where.
type terminalApprover struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
	pal palette
	// preview renders what the call will do; nil shows the arguments.
	preview func(c *tool.Call, t *tool.Tool, args json.RawMessage) string
	// rules returns the narrow rules "always" would add for a call; nil
	// offers no "always".
	rules func(t *tool.Tool, args json.RawMessage) ([]policy.Rule, error)
	// allow adds rules to the session's policy and, with project, saves
	// them; it returns the file written, or "".
	allow func(rules []policy.Rule, project bool) (string, error)
	// project names the file "always in this project" writes to.
	project string
}

// Approve asks one question at a time.
func (a *terminalApprover) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pal
	body := ""
	if a.preview != nil {
		body = a.preview(c, t, args)
	}
	if body == "" {
		body = argsPreview(args)
	}
	fmt.Fprintf(a.out, "\n%s %s\n", p.yellow("wield wants to call"), toolHeader(p, t.Spec(), args))
	fmt.Fprint(a.out, indent(strings.TrimRight(body, "\n"), "  ")+"\n")
	if why.Reason != "" {
		fmt.Fprintf(a.out, "  %s %s\n", p.dim("asks because:"), why.Reason)
	}
	var rules []policy.Rule
	var names []string
	if a.rules != nil && a.allow != nil {
		var err error
		if rules, err = a.rules(t, args); err != nil {
			fmt.Fprintf(a.out, "  %s\n", p.dim("(no rule can allow this for good: "+err.Error()+")"))
		}
		for _, r := range rules {
			names = append(names, r.String())
		}
	}
	fmt.Fprintf(a.out, "  %s yes, once\n", p.bold("[y]"))
	fmt.Fprintf(a.out, "  %s no; type n and a reason, and the model reads it\n", p.bold("[n]"))
	if len(rules) > 0 {
		fmt.Fprintf(a.out, "  %s always in this session: allow %s\n", p.bold("[s]"), strings.Join(names, ", "))
		fmt.Fprintf(a.out, "  %s always in this project: save that to %s\n", p.bold("[p]"), a.project)
	}
	for {
		fmt.Fprint(a.out, "  > ")
		line, err := a.readLine(ctx)
		if err != nil {
			return tool.Decision{Verdict: tool.Deny, Reason: "no answer from the user: " + err.Error()}
		}
		answer, message, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToLower(answer) {
		case "y", "yes":
			return tool.Decision{Verdict: tool.Allow}
		case "s", "p":
			if len(rules) == 0 {
				continue
			}
			project := strings.EqualFold(answer, "p")
			path, err := a.allow(rules, project)
			switch {
			case err != nil:
				fmt.Fprintf(a.out, "  (could not store the rule: %v; allowing once)\n", err)
			case project:
				fmt.Fprintf(a.out, "  saved to %s: allow %s\n", path, strings.Join(names, ", "))
			default:
				fmt.Fprintf(a.out, "  allowed for this session: %s\n", strings.Join(names, ", "))
			}
			return tool.Decision{Verdict: tool.Allow}
		case "n", "no":
			reason := "the user denied this call"
			if m := strings.TrimSpace(message); m != "" {
				reason += ": " + m
			}
			return tool.Decision{Verdict: tool.Deny, Reason: reason}
		}
	}
}

// argsPreview shows a call's arguments whole, indented, for tools wield
// has no better preview of.
func argsPreview(args json.RawMessage) string {
	s := prettyJSON(args)
	lines := strings.Split(s, "\n")
	const most = 60
	if len(lines) > most {
		s = strings.Join(lines[:most], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-most)
	}
	return s
}

// A headlessApprover answers for a run nobody can answer: each call that
// needs approval is denied with a reason the model reads, and counted, so
// that the run ends with exitDenied.
// Its hint ends each denial's reason ("" means headlessHint) and rules
// names where an allow rule would take effect, for the run's last line.
type headlessApprover struct {
	denied atomic.Int64
	hint   string
	rules  string
}

// Approve denies the call.
func (a *headlessApprover) Approve(_ context.Context, _ *tool.Call, _ *tool.Tool, _ json.RawMessage, why tool.Decision) tool.Decision {
	a.denied.Add(1)
	return tool.Decision{Verdict: tool.Deny, Reason: "needs approval and nobody can give it in this headless run (" + why.Reason + "); " + cmp.Or(a.hint, headlessHint)}
}

// readLine reads one line, giving up when ctx is done.
func (a *terminalApprover) readLine(ctx context.Context) (string, error) {
	type result struct {
		line string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		line, err := a.in.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		done <- result{line, err}
	}()
	select {
	case r := <-done:
		return r.line, r.err
	case <-ctx.Done():
		// The reading goroutine ends when the input does (the process is
		// exiting on cancellation).
		return "", context.Cause(ctx)
	}
}

// terminalAsker puts ask_user questions to the person at the terminal.
type terminalAsker struct{ *terminalApprover }

// Ask prints the question and its numbered options and reads a reply: a
// number, several numbers when the question allows several, or words. A
// reply that names no option asks again.
func (a terminalAsker) Ask(ctx context.Context, q askuser.Question) (askuser.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(a.out, "\nwield asks: %s\n", q.Text)
	for i, o := range q.Options {
		fmt.Fprintf(a.out, "  %d. %s", i+1, o.Label)
		if o.Description != "" {
			fmt.Fprintf(a.out, " — %s", o.Description)
		}
		fmt.Fprintln(a.out)
	}
	prompt := "  answer: "
	switch {
	case len(q.Options) > 1 && q.Multiple:
		prompt = fmt.Sprintf("  answer (numbers 1-%d, several allowed, or your own words): ", len(q.Options))
	case len(q.Options) > 0:
		prompt = fmt.Sprintf("  answer (a number 1-%d, or your own words): ", len(q.Options))
	}
	for {
		fmt.Fprint(a.out, prompt)
		line, err := a.readLine(ctx)
		if err != nil {
			return askuser.Answer{}, err
		}
		ans, err := askuser.ParseAnswer(q, line)
		if err == nil {
			return ans, nil
		}
		fmt.Fprintf(a.out, "  (%v)\n", err)
	}
}
