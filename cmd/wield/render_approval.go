package main

// The prompt of a call that asks for approval, as wield run's terminal
// prompt and wield chat's screen show it, and the wrapping that keeps
// all of it in sight: what a person decides on is wrapped at the
// terminal's width, never cut.

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// An approvalPrompt is what a call that asks shows the person who
// answers: the call, what it will do, why it asks, and the rules that
// "always" would add.
type approvalPrompt struct {
	header  string // the call's tool line
	preview string // what it will do: a diff, the parsed command, the arguments
	reason  string // why it asks; "" for none
	// rules names the rules that a and p add; none offers neither, and
	// then rulesErr, if set, says why.
	rules    []string
	rulesErr error
}

// An approvalAnswer is an answer to a call that asks. wield run and
// wield chat take the same ones (documented in both commands' help and
// in docs/cli.md).
type approvalAnswer int

const (
	answerUnknown approvalAnswer = iota
	answerYes                    // y: run it, once
	answerNo                     // n: do not
	answerExplain                // e: do not, and say why; the model reads it
	answerSession                // a: always in this session
	answerProject                // p: always in this project
)

// parseAnswer returns the answer s names: y or yes, n or no, e, a, p,
// in either case. s, the name wield run gave a before the two commands
// agreed, is still taken for a.
func parseAnswer(s string) approvalAnswer {
	switch strings.ToLower(s) {
	case "y", "yes":
		return answerYes
	case "n", "no":
		return answerNo
	case "e":
		return answerExplain
	case "a", "s":
		return answerSession
	case "p":
		return answerProject
	}
	return answerUnknown
}

// details returns the call and what it will do: its first lines, which
// the answers follow.
func (a approvalPrompt) details(p palette) string {
	var b strings.Builder
	b.WriteString(p.yellow("wield wants to call") + " " + a.header + "\n")
	if pv := strings.TrimRight(a.preview, "\n"); pv != "" {
		b.WriteString(indent(pv, "  ") + "\n")
	}
	if a.reason != "" {
		b.WriteString("  " + p.dim("asks because:") + " " + a.reason + "\n")
	}
	if len(a.rules) == 0 && a.rulesErr != nil {
		b.WriteString("  " + p.dim("(no rule can allow this for good: "+a.rulesErr.Error()+")") + "\n")
	}
	return b.String()
}

// choices returns the answers as wield run lists them, one a line, for
// a person who types one and Enter; project names the file p saves to.
func (a approvalPrompt) choices(p palette, project string) string {
	var b strings.Builder
	b.WriteString("  " + p.bold("[y]") + " yes, once\n")
	b.WriteString("  " + p.bold("[n]") + " no\n")
	b.WriteString("  " + p.bold("[e]") + " no, and say why (the model reads it)\n")
	if len(a.rules) > 0 {
		b.WriteString("  " + p.bold("[a]") + " always in this session: allow " + strings.Join(a.rules, ", ") + "\n")
		b.WriteString("  " + p.bold("[p]") + " always in this project: save that to " + project + "\n")
	}
	return b.String()
}

// keys returns the answers as wield chat's screen shows them, for a
// person who presses one key: on as few lines of at most width columns
// as they fit on, an answer never split between two lines unless it is
// wider than a line.
func (a approvalPrompt) keys(p palette, width int) string {
	items := []string{p.bold("y") + " yes", p.bold("n") + " no", p.bold("e") + " no, and say why"}
	if len(a.rules) > 0 {
		items = append(items, p.bold("a")+" always in this session ("+strings.Join(a.rules, ", ")+")", p.bold("p")+" always in this project")
	}
	return packItems(items, "  ", "  ", width)
}

// packItems lays items out after prefix, sep between two on a line, on
// lines of at most width columns (any width when width < 1). An item
// wider than a line is wrapped by wrapLines.
func packItems(items []string, prefix, sep string, width int) string {
	var lines []string
	line, used := prefix, ansi.StringWidth(prefix)
	for i, it := range items {
		w := ansi.StringWidth(it)
		if i > 0 && (width < 1 || used+len(sep)+w <= width) {
			line += sep + it
			used += len(sep) + w
			continue
		}
		if i > 0 {
			lines = append(lines, line)
			line, used = prefix, ansi.StringWidth(prefix)
		}
		line += it
		used += w
	}
	lines = append(lines, line)
	return wrapLines(strings.Join(lines, "\n"), width)
}

// minWrapWidth is the narrowest a wrapped line's text is made: on
// narrower screens continuation lines are not indented.
const minWrapWidth = 8

// wrapLines wraps the lines of s wider than width columns, at spaces
// and, in words longer than a line, anywhere: nothing is cut. A line's
// further lines are indented two columns more than its first (under the
// command after "$ ", under an argument's value), and its styles carry
// over to them. Width < 1 leaves s as it is.
func wrapLines(s string, width int) string {
	if width < 1 {
		return s
	}
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		out = append(out, wrapLine(l, width)...)
	}
	return strings.Join(out, "\n")
}

// hyphenStandIn stands for hyphens while a line is wrapped: x/ansi's
// wrap breaks after any hyphen, which would split "-rf" from "rm" in a
// command. It is a character of the private use area, one column wide.
const hyphenStandIn = "\ue000"

// wrapLine returns the line l wrapped as wrapLines wraps it.
func wrapLine(l string, width int) []string {
	if ansi.StringWidth(l) <= width {
		return []string{l}
	}
	lead := len(l) - len(strings.TrimLeft(l, " "))
	body, hang := l[lead:], lead+2
	if width-hang < minWrapWidth {
		body, lead, hang = l, 0, 0
	}
	standIn := !strings.Contains(body, hyphenStandIn)
	if standIn {
		body = strings.ReplaceAll(body, "-", hyphenStandIn)
	}
	parts := strings.Split(lipgloss.Wrap(body, width-hang, ""), "\n")
	for i, part := range parts {
		if standIn {
			part = strings.ReplaceAll(part, hyphenStandIn, "-")
		}
		pad := hang
		if i == 0 {
			pad = lead
		}
		parts[i] = strings.Repeat(" ", pad) + strings.TrimRight(part, " ")
	}
	return parts
}
