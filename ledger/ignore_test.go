package ledger

import (
	"strings"
	"testing"
)

func TestIgnoreList_Match(t *testing.T) {
	l := parseIgnore("# comment\n*.o\nbuild/\n/dist\ndocs/*.html\n!keep.o\n**/deep\n", "")
	sub := parseIgnore("tmp\n", "pkg")
	tests := []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"a.o", false, true},
		{"x/y/a.o", false, true},
		{"keep.o", false, true}, // negations are not understood: ignored like git would not, which only hides a file
		{"build", true, true},
		{"build", false, false},
		{"dist", true, true},
		{"x/dist", true, false},
		{"docs/a.html", false, true},
		{"docs/x/a.html", false, false},
		{"main.go", false, false},
		{"pkg/tmp", false, true},
		{"tmp", false, false},
	}
	for _, tt := range tests {
		name := tt.rel[strings.LastIndex(tt.rel, "/")+1:]
		got := ignored([]ignoreList{l, sub}, tt.rel, name, tt.isDir)
		if got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tt.rel, tt.isDir, got, tt.want)
		}
	}
}

// FuzzParseIgnore checks that any .gitignore parses without panicking and
// that a pattern without glob characters matches its own name and no
// other.
func FuzzParseIgnore(f *testing.F) {
	f.Add("*.o\nbuild/\n/dist\n", "a.o")
	f.Add("!x\n**/y\n\\#z\n", "y")
	f.Add("[\n", "[")
	f.Fuzz(func(t *testing.T, data, name string) {
		l := parseIgnore(data, "")
		for _, p := range l.patterns {
			if p.glob == "" {
				t.Fatalf("empty pattern from %q", data)
			}
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/*?[]\\!#\r\n \t") {
			return
		}
		single := parseIgnore(name+"\n", "")
		if !single.match(name, name, false) {
			t.Errorf("pattern %q does not match its own name", name)
		}
		if single.match(name+"x", name+"x", false) {
			t.Errorf("pattern %q matches %q", name, name+"x")
		}
	})
}
