package fs

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// TestFoldableASCII pins the fact foldable relies on: of the ASCII
// characters, only k and s have case-folding partners outside ASCII.
func TestFoldableASCII(t *testing.T) {
	for c := rune(0); c < unicode.MaxASCII; c++ {
		outside := false
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			outside = outside || f > unicode.MaxASCII
		}
		if got := foldable(string(c)); got == outside {
			t.Errorf("foldable(%q) = %v, but its folds leave ASCII: %v", c, got, outside)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		want    []string // nil: no literal; the matcher runs the regexp on the whole text
		exact   bool     // a literal hit is a match
	}{
		{"Marshal", false, []string{"Marshal"}, true},
		{`func \w+Marshal\w*\(`, false, []string{"Marshal"}, false},
		{"content-type", true, []string{"content-type"}, true},
		{"Marshal", true, []string{"mar"}, false}, // "s" also folds to ſ
		{"foo|barbaz", false, []string{"foo", "barbaz"}, false},
		{"(get|post)Handler", true, []string{"handler"}, false},
		{`\d+`, false, nil, false},
		{"a?b*", false, nil, false},
		{"(ab)+c", false, []string{"ab"}, false},
		{"x{2,}yy", false, []string{"yy"}, false},
		{"ks", true, nil, false},
		{"é", true, nil, false},
		{"é", false, []string{"é"}, true},
	}
	for _, tt := range tests {
		m, err := compileMatcher(tt.pattern, false, !tt.fold)
		if err != nil {
			t.Fatalf("compileMatcher(%q): %v", tt.pattern, err)
		}
		var got []string
		for _, l := range m.lits {
			got = append(got, string(l.s))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("literals of %q (fold %v) (-want +got):\n%s", tt.pattern, tt.fold, diff)
		}
		if exact := m.line == nil; exact != tt.exact {
			t.Errorf("%q: exact literal = %v, want %v", tt.pattern, exact, tt.exact)
		}
		if (m.whole != nil) != (tt.want == nil) {
			t.Errorf("%q: whole-text regexp = %v, want %v", tt.pattern, m.whole != nil, tt.want == nil)
		}
	}
}

// referenceLines matches each line of text with the regexp on its own:
// what the matcher must find.
func referenceLines(t testing.TB, pattern, text string, fixed, caseSensitive bool) []int {
	t.Helper()
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if !caseSensitive {
		pattern = "(?i)" + pattern
	}
	re := regexp.MustCompile(pattern)
	var lines []int
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if (text != "" || i > 0) && re.MatchString(l) {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// matchedLines returns the line numbers scan reports.
func matchedLines(m *lineMatcher, text string) []int {
	var lines []int
	b := []byte(text)
	m.scan(b, func(start, end int) bool {
		lines = append(lines, strings.Count(text[:start], "\n")+1)
		return true
	})
	return lines
}

func TestMatcher(t *testing.T) {
	text := "package main\n\nfunc MarshalJSON() {}\nfunc (x) UnmarshalText()\r\n// TODO: fix\n  ab\nKelvin \u212a here\nlong ſ s\n$5 a.b(c)\nend"
	tests := []struct {
		pattern              string
		fixed, caseSensitive bool
	}{
		{"func", false, true},
		{`func \w+Marshal\w*\(`, false, true},
		{"marshal", false, false},
		{"kelvin k", false, false},
		{"LONG S S", false, false},
		{"^func", false, true},
		{`\)$`, false, true},
		{`\A\s+ab\z`, false, true},
		{`(?s)a.b`, false, true},
		{"", false, true},
		{"^$", false, true},
		{`\d`, false, true},
		{"a.b(", true, true},
		{"$5", true, true},
		{"TODO|end", false, true},
		{"[^a]", false, true},
		{`x\b`, false, true},
		{"nothing here", false, true},
	}
	for _, tt := range tests {
		m, err := compileMatcher(tt.pattern, tt.fixed, tt.caseSensitive)
		if err != nil {
			t.Fatalf("compileMatcher(%q): %v", tt.pattern, err)
		}
		want := referenceLines(t, tt.pattern, text, tt.fixed, tt.caseSensitive)
		if diff := cmp.Diff(want, matchedLines(m, text)); diff != "" {
			t.Errorf("lines matching %q (fixed %v, case %v) (-want +got):\n%s", tt.pattern, tt.fixed, tt.caseSensitive, diff)
		}
	}
}

func TestMatcherRejectsNewlines(t *testing.T) {
	for _, p := range []string{"a\nb", `a\nb`} {
		if _, err := compileMatcher(p, p == "a\nb", true); err != errNewline {
			t.Errorf("compileMatcher(%q) = %v, want errNewline", p, err)
		}
	}
}

// FuzzMatcher checks the matcher against the regexp run on each line:
// the prefilters must never lose a line, and the whole-text rewrite must
// find the same lines.
func FuzzMatcher(f *testing.F) {
	f.Add("Marshal", "a\nMarshal x\nb", false, true)
	f.Add(`func \w+(x|y)\(`, "func ax(\nfunc by(", false, true)
	f.Add("CONTENT", "Content-Type\ncontent\n", false, false)
	f.Add(`\d+$`, "12\r\n34\n", false, true)
	f.Add("a.b", "a.b\naxb", true, true)
	f.Add("kelvin", "\u212aelvin", false, false)
	f.Add(`^\s*$`, "\n \n\t\nx", false, true)
	f.Fuzz(func(t *testing.T, pattern, text string, fixed, caseSensitive bool) {
		m, err := compileMatcher(pattern, fixed, caseSensitive)
		if err != nil {
			return
		}
		want := referenceLines(t, pattern, text, fixed, caseSensitive)
		if diff := cmp.Diff(want, matchedLines(m, text)); diff != "" {
			t.Errorf("lines matching %q (fixed %v, case %v) in %q (-want +got):\n%s", pattern, fixed, caseSensitive, text, diff)
		}
	})
}
