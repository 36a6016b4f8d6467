package git

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var rangeArg = regexp.MustCompile(`^([1-9][0-9]*),([1-9][0-9]*)?$`)

// FuzzParseRange checks that every range accepted becomes a -L argument
// "START,END" or "START," with 1 <= START <= END, and that nothing else
// (an option, a regex, a function name) reaches git.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"", "10-20", "1,2", "5", " 3 - 4 ", "0-1", "2-1", "-L", "/re/", ":func", "1-", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseRange(s)
		if err != nil || got == "" {
			if got != "" {
				t.Fatalf("parseRange(%q) = %q with error %v", s, got, err)
			}
			if err == nil && strings.TrimSpace(s) != "" {
				t.Fatalf("parseRange(%q) = \"\", nil for a non-empty range", s)
			}
			return
		}
		m := rangeArg.FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("parseRange(%q) = %q, not START,[END]", s, got)
		}
		if m[2] != "" {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			if a > b {
				t.Fatalf("parseRange(%q) = %q: start after end", s, got)
			}
		}
	})
}

// FuzzWorkspacePath checks that an accepted path is a clean relative path
// that neither leaves the workspace nor reads as an option.
func FuzzWorkspacePath(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "/ws/a", "/ws/../etc", "a/../../b", "-R", "./-R", ".", "", "dir with space/f", "a\x00b", "//ws//a/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := workspacePath(nil, "/ws", p)
		if err != nil {
			return
		}
		if rest, ok := strings.CutPrefix(got, "./"); ok && strings.HasPrefix(rest, "-") {
			got = rest // the one form that keeps "./": a name starting with '-'
			if got != path.Clean(got) {
				t.Fatalf("workspacePath(%q) = ./%q, not clean", p, got)
			}
			return
		}
		switch {
		case got != path.Clean(got):
			t.Fatalf("workspacePath(%q) = %q, not clean", p, got)
		case got == ".." || strings.HasPrefix(got, "../") || path.IsAbs(got):
			t.Fatalf("workspacePath(%q) = %q leaves the workspace", p, got)
		case strings.HasPrefix(got, "-"):
			t.Fatalf("workspacePath(%q) = %q reads as an option", p, got)
		case strings.ContainsRune(got, 0):
			t.Fatalf("workspacePath(%q) = %q has a NUL", p, got)
		}
	})
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "", ""},
		{"10-20", "10,20", ""},
		{"10,20", "10,20", ""},
		{" 7 ", "7,", ""},
		{"3-3", "3,3", ""},
		{"0-2", "", "not a line number from 1"},
		{"4-2", "", "ends before it starts"},
		{"a-b", "", "not a line number"},
		{"-5", "", "not a line number"},
		{"+5", "", "not a line number"},
		{"1-2-3", "", "not a line number"},
	} {
		got, err := parseRange(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parseRange(%q) = %q, %v; want %q, error with %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}
