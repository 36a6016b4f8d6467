package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/wieldhq/wield/shellcmd"
	"github.com/wieldhq/wield/tool"
)

// A CommandVerdict is how the rules judge one simple command of a shell
// line, for showing a person what a line will run before they approve it.
type CommandVerdict struct {
	// Command is the simple command's source text; Start and End are its
	// byte offsets in the line.
	Command    string
	Start, End int
	// Verdict is Allow, Ask or Deny; empty means no rule decides it and
	// the mode does.
	Verdict tool.Verdict
	// ReadOnly reports whether the command only reads (it would run in
	// plan mode).
	ReadOnly bool
	// Reason says why, in words for a person.
	Reason string
}

// Explain splits the shell line of a call of toolName into its simple
// commands and judges each against the rules, as [Policy.Decide] does
// (which also weighs the mode, hooks and plan mode). The commands come in
// the order of the line; commands inside substitutions are listed on
// their own, after the command that holds them. It returns an error when the line
// does not parse.
func (p *Policy) Explain(toolName, line string) ([]CommandVerdict, error) {
	parsed, err := shellcmd.Parse(line)
	if err != nil {
		return nil, fmt.Errorf("the command line does not parse: %w", err)
	}
	out := make([]CommandVerdict, 0, len(parsed.Commands))
	for _, c := range parsed.Commands {
		src := strings.TrimSpace(line[c.Start:c.End])
		v := p.judgeCommand(toolName, c, line, nil)
		cv := CommandVerdict{Command: src, Start: c.Start, End: c.End, Verdict: v.verdict, Reason: v.reason}
		why := readOnlyCommand(c, src)
		cv.ReadOnly = why == ""
		if cv.Verdict == "" {
			if cv.ReadOnly {
				cv.Reason = "read-only; no rule names it"
			} else {
				cv.Reason = "no rule allows it (" + why + ")"
			}
		}
		if cv.Verdict == tool.Allow && len(parsed.Evals) > 0 {
			cv.Verdict, cv.Reason = tool.Ask, cv.Reason+", but "+dataAsCode(parsed.Evals)
		}
		out = append(out, cv)
	}
	// In the order a person reads the line, outer commands before the
	// substitutions inside them.
	slices.SortStableFunc(out, func(a, b CommandVerdict) int { return cmp.Compare(a.Start, b.Start) })
	return out, nil
}
