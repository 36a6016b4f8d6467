package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

// terminalApprover asks the person at the terminal about calls the policy
// could not decide: allow once, allow always, or deny with a message for the
// model.
type terminalApprover struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
	// always is called for "allow always" to store a rule; nil means the
	// answer counts as allow once.
	always func(t *tool.Tool, args json.RawMessage) (rule string, err error)
}

func newTerminalApprover(in io.Reader, out io.Writer, always func(*tool.Tool, json.RawMessage) (string, error)) *terminalApprover {
	return &terminalApprover{in: bufio.NewReader(in), out: out, always: always}
}

// Approve asks one question at a time.
func (a *terminalApprover) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	fmt.Fprintf(a.out, "\nwield wants to run %s %s\n", t.Name(), summarizeArgs(args))
	if why.Reason != "" {
		fmt.Fprintf(a.out, "  because: %s\n", why.Reason)
	}
	for {
		fmt.Fprint(a.out, "  allow [y]es once, [a]lways, [n]o (optionally: n <message for the model)? ")
		line, err := a.readLine(ctx)
		if err != nil {
			return tool.Decision{Verdict: tool.Deny, Reason: "no answer from the user: " + err.Error()}
		}
		answer, message, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToLower(answer) {
		case "y", "yes":
			return tool.Decision{Verdict: tool.Allow}
		case "a", "always":
			if a.always != nil {
				rule, err := a.always(t, args)
				if err != nil {
					fmt.Fprintf(a.out, "  (could not store the rule: %v; allowing once)\n", err)
				} else {
					fmt.Fprintf(a.out, "  (stored: allow %s)\n", rule)
				}
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

// summarizeArgs shows arguments on one line, cut to a readable length.
func summarizeArgs(args json.RawMessage) string {
	s := strings.Join(strings.Fields(string(args)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
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
