package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/x/term"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
)

// terminalApprover asks the person at the terminal about calls the policy
// could not decide. It shows what the call will do (an edit as a diff, a
// shell line split into its commands, each judged), wrapped at the
// terminal's width, and offers the answers wield chat offers too (see
// approvalAnswer): yes once; no; no, with a reason the model reads;
// always in this session; always in this project, with the rule it would
// save and where.
type terminalApprover struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
	pal palette
	// width returns the terminal's width in columns, which the prompt is
	// wrapped at; nil, or a width < 1, leaves its lines as they are.
	width func() int
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

// prompt returns what a call asks with, and the rules "always" adds.
func (a *terminalApprover) prompt(c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) (approvalPrompt, []policy.Rule) {
	pr := approvalPrompt{header: toolHeader(a.pal, t.Spec(), args), reason: why.Reason}
	if a.preview != nil {
		pr.preview = a.preview(c, t, args)
	}
	if pr.preview == "" {
		pr.preview = argsPreview(args)
	}
	var rules []policy.Rule
	if a.rules != nil && a.allow != nil {
		rules, pr.rulesErr = a.rules(t, args)
		for _, r := range rules {
			pr.rules = append(pr.rules, r.String())
		}
	}
	return pr, rules
}

// say writes s to the terminal, wrapped at its width.
func (a *terminalApprover) say(s string) {
	w := 0
	if a.width != nil {
		w = a.width()
	}
	if strings.HasSuffix(s, "\n") {
		fmt.Fprint(a.out, wrapLines(strings.TrimSuffix(s, "\n"), w)+"\n")
		return
	}
	fmt.Fprint(a.out, wrapLines(s, w))
}

// Approve asks one question at a time.
func (a *terminalApprover) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pal
	pr, rules := a.prompt(c, t, args, why)
	names := strings.Join(pr.rules, ", ")
	a.say("\n" + pr.details(p) + pr.choices(p, a.project))
	for {
		a.say("  > ")
		line, err := a.readLine(ctx)
		if err != nil {
			return tool.Decision{Verdict: tool.Deny, Reason: "no answer from the user: " + err.Error()}
		}
		word, message, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch answer := parseAnswer(word); answer {
		case answerYes:
			return tool.Decision{Verdict: tool.Allow}
		case answerSession, answerProject:
			if len(rules) == 0 {
				continue
			}
			project := answer == answerProject
			path, err := a.allow(rules, project)
			switch {
			case err != nil:
				a.say(fmt.Sprintf("  (could not store the rule: %v; allowing once)\n", err))
			case project:
				a.say(fmt.Sprintf("  saved to %s: allow %s\n", path, names))
			default:
				a.say(fmt.Sprintf("  allowed for this session: %s\n", names))
			}
			return tool.Decision{Verdict: tool.Allow}
		case answerExplain:
			if strings.TrimSpace(message) == "" {
				a.say("  why not? (the model reads it) ")
				if message, err = a.readLine(ctx); err != nil {
					return tool.Decision{Verdict: tool.Deny, Reason: "no answer from the user: " + err.Error()}
				}
			}
			fallthrough
		case answerNo:
			// "n REASON" says why too.
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

// terminalWidth returns the width in columns of the terminal w writes
// to, or 0 when w is not a terminal.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return width
}
