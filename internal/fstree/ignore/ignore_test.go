package ignore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Cases from git's t3070-wildmatch: pattern, text, result with pathname
// (WM_PATHNAME, as for patterns with a slash) and without.
var wildmatchCases = []struct {
	pattern, text    string
	pathname, nopath bool
}{
	{"foo", "foo", true, true},
	{"foo", "bar", false, false},
	{"", "", true, true},
	{"???", "foo", true, true},
	{"??", "foo", false, false},
	{"*", "foo", true, true},
	{"f*", "foo", true, true},
	{"*f", "foo", false, false},
	{"*foo*", "foo", true, true},
	{"*ob*a*r*", "foobar", true, true},
	{"*ab", "aaaaaaabababab", true, true},
	{`foo\*`, "foo*", true, true},
	{`foo\*bar`, "foobar", false, false},
	{`f\\oo`, `f\oo`, true, true},
	{"*[al]?", "ball", true, true},
	{"[ten]", "ten", false, false},
	{"**[!te]", "ten", true, true},
	{"**[!ten]", "ten", false, false},
	{"t[a-g]n", "ten", true, true},
	{"t[!a-g]n", "ten", false, false},
	{"t[!a-g]n", "ton", true, true},
	{"t[^a-g]n", "ton", true, true},
	{"a[]]b", "a]b", true, true},
	{"a[]-]b", "a-b", true, true},
	{"a[]-]b", "a]b", true, true},
	{"a[]-]b", "aab", false, false},
	{"a[]a-]b", "aab", true, true},
	{"]", "]", true, true},
	{"foo*bar", "foo/baz/bar", false, true},
	{"foo**bar", "foo/baz/bar", false, true},
	{"foo**bar", "foobazbar", true, true},
	{"foo/**/bar", "foo/baz/bar", true, true},
	{"foo/**/**/bar", "foo/baz/bar", true, false},
	{"foo/**/bar", "foo/b/a/z/bar", true, true},
	{"foo/**/**/bar", "foo/b/a/z/bar", true, true},
	{"foo/**/bar", "foo/bar", true, false},
	{"foo/**/**/bar", "foo/bar", true, false},
	{"foo?bar", "foo/bar", false, true},
	{"foo[/]bar", "foo/bar", false, true},
	{"foo[^a-z]bar", "foo/bar", false, true},
	{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", false, true},
	{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
	{"**/foo", "foo", true, false},
	{"**/foo", "XXX/foo", true, true},
	{"**/foo", "bar/baz/foo", true, true},
	{"*/foo", "bar/baz/foo", false, true},
	{"**/bar*", "foo/bar/baz", false, true},
	{"**/bar/*", "deep/foo/bar/baz", true, true},
	{"**/bar/*", "deep/foo/bar/baz/", false, true},
	{"**/bar/**", "deep/foo/bar/baz/", true, true},
	{"**/bar/*", "deep/foo/bar", false, false},
	{"**/bar/**", "deep/foo/bar/", true, true},
	{"**/bar**", "foo/bar/baz", false, true},
	{"*/bar/**", "foo/bar/baz/x", true, true},
	{"*/bar/**", "deep/foo/bar/baz/x", false, true},
	{"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
	{"a[c-c]st", "acrt", false, false},
	{"a[c-c]rt", "acrt", true, true},
	{"[!]-]", "]", false, false},
	{"[!]-]", "a", true, true},
	{`\`, "", false, false},
	{`\`, `\`, false, false},
	{`*/\`, `XXX/\`, false, false},
	{`*/\\`, `XXX/\`, true, true},
	{"@foo", "@foo", true, true},
	{"@foo", "foo", false, false},
	{`\[ab]`, "[ab]", true, true},
	{"[[]ab]", "[ab]", true, true},
	{"[[:]ab]", "[ab]", true, true},
	{"[[::]ab]", "[ab]", false, false},
	{"[[:digit]ab]", "[ab]", true, true},
	{`[\[:]ab]`, "[ab]", true, true},
	{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
	{"[[:digit:][:upper:][:space:]]", "a", false, false},
	{"[[:digit:][:upper:][:space:]]", "A", true, true},
	{"[[:digit:][:upper:][:space:]]", "1", true, true},
	{"[[:digit:][:upper:][:spaci:]]", "1", false, false},
	{"[[:digit:][:punct:][:space:]]", ".", true, true},
	{"[[:xdigit:]]", "5", true, true},
	{"[[:xdigit:]]", "f", true, true},
	{"[[:xdigit:]]", "g", false, false},
	{"[a-c[:digit:]x-z]", "5", true, true},
	{"[a-c[:digit:]x-z]", "y", true, true},
	{"[a-c[:digit:]x-z]", "q", false, false},
	{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
	{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false, false},
	{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
	{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
	{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false, false},
	{"*/*/*", "foo/bb/aa/rr", false, true},
	{"**/**/**", "foo/bb/aa/rr", true, true},
	{"*X*i", "abcXdefXghi", true, true},
	{"*X*i", "ab/cXd/efXg/hi", false, true},
	{"*/*X*/*/*i", "ab/cXd/efXg/hi", true, true},
	{"**/*X*/**/*i", "ab/cXd/efXg/hi", true, true},
	{"a/x**y", "a/x/y", false, true},
	{"a/x**y", "a/xzzy", true, true},
	{"[", "[", false, false},
	{"a[", "a[", false, false},
	{"[a-", "a", false, false},
}

func TestWildmatch(t *testing.T) {
	for _, c := range wildmatchCases {
		if got := Wildmatch(c.pattern, c.text, true); got != c.pathname {
			t.Errorf("Wildmatch(%q, %q, pathname) = %v, want %v", c.pattern, c.text, got, c.pathname)
		}
		if got := Wildmatch(c.pattern, c.text, false); got != c.nopath {
			t.Errorf("Wildmatch(%q, %q, no pathname) = %v, want %v", c.pattern, c.text, got, c.nopath)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string // Text of each pattern
	}{
		{"comments and blanks", "# c\n\na\n  \n#b\n", []string{"a"}},
		{"CRLF and BOM", "\xef\xbb\xbfa\r\nb\r\n", []string{"a", "b"}},
		{"trailing spaces", "a  \nb\\ \nc\\  \nd\\", []string{"a", `b\ `, `c\ `, `d\`}},
		{"escapes keep their backslash", "\\#x\n\\!y\n", []string{`\#x`, `\!y`}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"empty patterns dropped", "!\n/\n!/\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse([]byte(tt.data), "")
			var got []string
			for _, p := range l.Patterns {
				got = append(got, p.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.data, diff)
			}
		})
	}
}

func TestListMatch(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		base  string
		rel   string
		isDir bool
		want  Result
	}{
		{"basename anywhere below base", "*.log", "sub", "sub/x/a.log", false, Exclude},
		{"anchored to base", "/a.log", "sub", "sub/x/a.log", false, None},
		{"anchored hit", "/a.log", "sub", "sub/a.log", false, Exclude},
		{"middle slash", "x/a.log", "sub", "sub/x/a.log", false, Exclude},
		{"other base", "x/a.log", "sub", "subx/x/a.log", false, None},
		{"directory only", "build/", "", "build", false, None},
		{"directory only hit", "build/", "", "build", true, Exclude},
		{"last match wins", "*.log\n!keep.log", "", "keep.log", false, Include},
		{"last match wins again", "!keep.log\n*.log", "", "keep.log", false, Exclude},
		{"suffix fast path", "*.go", "", "a/b.go", false, Exclude},
		{"suffix fast path miss", "*.go", "", "a/b.gox", false, None},
		{"escaped bang", `\!x`, "", "!x", false, Exclude},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse([]byte(tt.data), tt.base)
			name := tt.rel[lastSlash(tt.rel)+1:]
			if got := l.Match(tt.rel, name, tt.isDir); got != tt.want {
				t.Errorf("Match(%q) with %q in %q = %v, want %v", tt.rel, tt.data, tt.base, got, tt.want)
			}
		})
	}
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// FuzzWildmatch checks that matching never panics or runs away, that a
// pattern without wildcards matches exactly itself, and that without
// slashes in the text pathname makes no difference.
func FuzzWildmatch(f *testing.F) {
	for _, c := range wildmatchCases {
		f.Add(c.pattern, c.text)
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		withPath := Wildmatch(pattern, text, true)
		without := Wildmatch(pattern, text, false)
		if !strings.Contains(text, "/") && !strings.Contains(pattern, "/") && withPath != without {
			t.Errorf("Wildmatch(%q, %q): %v with pathname, %v without", pattern, text, withPath, without)
		}
		if literalLen(pattern) == len(pattern) && !containsNUL(pattern) {
			if withPath != (pattern == text) {
				t.Errorf("Wildmatch(%q, %q) = %v for a literal pattern", pattern, text, withPath)
			}
		}
	})
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

// FuzzParse checks that any ignore file parses and that its patterns can
// be matched.
func FuzzParse(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\n/build/\n# c\n\\#x\ntrail\\ \n"), "a/b.log")
	f.Add([]byte("\xef\xbb\xbf**/x/**\r\n[a-\n"), "x/y")
	f.Fuzz(func(t *testing.T, data []byte, rel string) {
		l := Parse(data, "")
		for _, p := range l.Patterns {
			if p.Glob() == "" {
				t.Errorf("Parse(%q) kept an empty pattern %q", data, p.Text)
			}
		}
		name := rel[lastSlash(rel)+1:]
		l.Match(rel, name, false)
		l.Match(rel, name, true)
	})
}
