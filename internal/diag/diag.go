// Package diag is the one type of the problems wield reports about files a
// person wrote: agent definitions, skills and plugins. Packages subagent,
// skill and plugin name it as their own Problem and Severity.
package diag

import (
	"strconv"
	"strings"
)

// A Severity grades a [Problem].
type Severity int

const (
	// Info is worth knowing and needs no change: a key wield ignores on
	// purpose, something shadowed by what was found earlier.
	Info Severity = iota
	// Warning is probably a mistake, but what it is about is still used:
	// an unknown key, an entry that can never match.
	Warning
	// Error means what the problem is about was left out.
	Error
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// A Problem is something wrong, or worth knowing, about a file or a
// directory. A problem is never fatal to other files.
type Problem struct {
	// Path is the file or directory; empty when the problem was found in
	// data given without one.
	Path string
	// Line is the 1-based line in the file, or zero when the problem is
	// not about one line.
	Line int
	// Severity grades the problem.
	Severity Severity
	// Msg says what is wrong and, where it can, what to write instead.
	Msg string
}

// Error returns the problem as "path:line: severity: msg", leaving out
// the parts that are not known.
func (p Problem) Error() string {
	var b strings.Builder
	if p.Path != "" {
		b.WriteString(p.Path)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		b.WriteString("line " + strconv.Itoa(p.Line) + ": ")
	}
	b.WriteString(p.Severity.String() + ": " + p.Msg)
	return b.String()
}
