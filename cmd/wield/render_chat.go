package main

// Rendering for wield chat's screen: the model's finished messages as
// Markdown, and the status line. Like render.go, it does no terminal
// I/O.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/wieldhq/wield/llm"
)

// A markdownRenderer renders the model's finished messages as Markdown
// at a screen's width, styled when color is set and in plain text
// otherwise. It keeps one glamour renderer per width. The zero value
// renders plain. It is not safe for concurrent use.
type markdownRenderer struct {
	color bool
	width int
	r     *glamour.TermRenderer
}

// render returns text rendered as Markdown to fit width columns, or text
// as it is when it cannot be rendered. Blank lines around it and spaces
// at the ends of its lines are trimmed.
func (m *markdownRenderer) render(text string, width int) string {
	width = max(width, 20)
	if m.r == nil || m.width != width {
		style, profile := "notty", termenv.Ascii
		if m.color {
			// A fixed style: "auto" would ask the terminal for its
			// background, and the answer would reach the screen's input.
			style, profile = "dark", termenv.ANSI256
		}
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithColorProfile(profile),
			glamour.WithWordWrap(width-4), glamour.WithEmoji())
		if err != nil {
			return text
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return text
	}
	return trimLines(out)
}

// trimLines drops the spaces at the ends of the lines of s and the blank
// lines around it.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		// Styled padding ends in an escape sequence after the spaces.
		lines[i] = strings.TrimRight(l, " ")
		if plain := ansi.Strip(lines[i]); strings.TrimSpace(plain) == "" {
			lines[i] = ""
		}
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// A chatStatus is what wield chat's status line shows.
type chatStatus struct {
	model   string
	session string // the session's id
	mode    string // the permission mode, or plan
	usage   llm.Usage
	priced  bool
	// state says what the chat is doing: "thinking (round 2)", "1 tool
	// running", "waiting for you"; "" when idle.
	state string
}

// statusLine renders s on one line of at most width columns: the model,
// the session's id prefix, the mode, tokens in and out, the cost and the
// state.
func statusLine(p palette, s chatStatus, width int) string {
	id := s.session
	if len(id) > 15 {
		id = id[:15]
	}
	parts := []string{s.model, id, s.mode,
		fmt.Sprintf("%s in, %s out", thousands(s.usage.InputTokens), thousands(s.usage.OutputTokens))}
	if s.priced {
		parts = append(parts, fmt.Sprintf("$%.4f", s.usage.Cost))
	}
	line := strings.Join(parts, " · ")
	if s.state != "" {
		line += " · " + s.state
	}
	return p.dim(ansi.Truncate(line, max(width, 10), "…"))
}
