package fs

import (
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// limits are the numbers the tool descriptions quote, taken from the
// constants and the Config that enforce them.
type limits struct {
	ReadLines     int
	ReadNext      int
	MaxLineChars  int
	MaxImageMiB   int
	MaxImageSide  int
	GlobLimit     int
	ListLimit     int
	MaxMatches    int
	SearchLine    int
	AutoContext   int
	AutoMatches   int
	MaxContext    int
	ReadManyFiles int
	OutputBudget  int
	RecentHours   int
	DiffLines     int
}

func limitsOf(cfg Config) limits {
	return limits{
		ReadLines:     readDefaultLimit,
		ReadNext:      readDefaultLimit + 1,
		MaxLineChars:  maxLineChars,
		MaxImageMiB:   maxImageBytes >> 20,
		MaxImageSide:  maxImageSide,
		GlobLimit:     cfg.GlobLimit,
		ListLimit:     listLimit,
		MaxMatches:    defaultMaxMatches,
		SearchLine:    searchLineChars,
		AutoContext:   autoContext,
		AutoMatches:   autoContextMatches,
		MaxContext:    maxContext,
		ReadManyFiles: defaultMaxFiles,
		OutputBudget:  cfg.OutputBudget,
		RecentHours:   int(recentWindow.Hours()),
		DiffLines:     maxDiffLines,
	}
}

// describe renders a tool's description template with the limits of cfg.
// A template error is a programming error and panics.
func describe(name, text string, cfg Config) string {
	t := template.Must(template.New(name).Option("missingkey=error").Parse(text))
	var b strings.Builder
	if err := t.Execute(&b, limitsOf(cfg)); err != nil {
		panic(fmt.Sprintf("tools/fs: description of %s: %v", name, err))
	}
	return b.String()
}

// An output collects the text of a result up to a byte budget, keeping
// whole lines. Notes that say what was left out are added after the budget
// check, so they always fit.
type output struct {
	b      strings.Builder
	budget int
	full   bool
}

func newOutput(budget int) *output { return &output{budget: budget} }

// line appends s and a newline if they fit, and reports whether they did.
// Once a line does not fit, no later line is added either.
func (o *output) line(s string) bool {
	if o.full || o.b.Len()+len(s)+1 > o.budget {
		o.full = true
		return false
	}
	o.b.WriteString(s)
	o.b.WriteByte('\n')
	return true
}

// force appends s and a newline whatever the budget.
func (o *output) force(s string) {
	o.b.WriteString(s)
	o.b.WriteByte('\n')
}

// note appends a bracketed note, whatever the budget.
func (o *output) note(format string, args ...any) {
	o.b.WriteByte('[')
	fmt.Fprintf(&o.b, format, args...)
	o.b.WriteString("]\n")
}

func (o *output) String() string { return strings.TrimSuffix(o.b.String(), "\n") }

// formatSize gives a byte count in the largest binary unit below it.
func formatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// plural returns "1 file" or "2 files", "1 entry" or "2 entries".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if w, ok := strings.CutSuffix(word, "y"); ok {
		return fmt.Sprintf("%d %sies", n, w)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// hiddenNote returns the note on entries the ignore rules hid, or "".
func hiddenNote(n int64) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 entry hidden by .gitignore/.wieldignore rules"
	}
	return fmt.Sprintf("%d entries hidden by .gitignore/.wieldignore rules", n)
}

// globMatcher returns a function that reports whether a slash path matches
// pattern (doublestar syntax, already validated), with fast paths for the
// commonest forms: "**/NAME" and "NAME" with NAME "*.ext" or a literal.
func globMatcher(pattern string) func(string) bool {
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
		m := nameMatcher(rest)
		return func(p string) bool {
			name := p[strings.LastIndexByte(p, '/')+1:]
			if name == "" {
				// No real path ends in an empty element; doublestar
				// decides such edge cases its own way.
				return doublestar.MatchUnvalidated(pattern, p)
			}
			return m(name)
		}
	}
	if !strings.Contains(pattern, "/") && !strings.Contains(pattern, "**") {
		m := nameMatcher(pattern)
		return func(p string) bool {
			if p == "" {
				return doublestar.MatchUnvalidated(pattern, p)
			}
			return !strings.Contains(p, "/") && m(p)
		}
	}
	return func(p string) bool { return doublestar.MatchUnvalidated(pattern, p) }
}

// nameMatcher matches a single path element against a pattern without
// slashes.
func nameMatcher(pattern string) func(string) bool {
	const special = `*?[{\`
	if !utf8.ValidString(pattern) || strings.ContainsRune(pattern, utf8.RuneError) {
		// doublestar compares runes, and invalid bytes all decode to
		// RuneError: leave such patterns to it.
		return func(name string) bool { return doublestar.MatchUnvalidated(pattern, name) }
	}
	if suffix, ok := strings.CutPrefix(pattern, "*"); ok && !strings.ContainsAny(suffix, special) {
		return func(name string) bool { return strings.HasSuffix(name, suffix) }
	}
	if !strings.ContainsAny(pattern, special) {
		return func(name string) bool { return name == pattern }
	}
	return func(name string) bool { return doublestar.MatchUnvalidated(pattern, name) }
}
