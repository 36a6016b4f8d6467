package fs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/internal/fstree"
)

func TestGlob(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".gitignore":             "*.gen.go\nvendor/\n",
		"main.go":                "",
		"README.md":              "",
		"a/b.go":                 "",
		"a/b.gen.go":             "",
		"a/c/D.GO":               "",
		"a/c/e.txt":              "",
		"vendor/v.go":            "",
		"not_a_file.go/inner.go": "",
		"link.go":                "->main.go",
		"dirlink.go":             "->a",
		"dangling.go":            "->nowhere",
		"x/y.ts":                 "",
		"x/z.tsx":                "",
	})
	old := time.Now().Add(-72 * time.Hour)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			return os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	call := testCall(t, dir)
	glob := NewGlob(Config{})
	tests := []struct {
		name   string
		in     GlobInput
		wantOK bool
		files  []string
		want   []string
	}{
		{"any depth", GlobInput{Pattern: "**/*.go"}, true,
			[]string{"a/b.go", "a/c/D.GO", "link.go", "main.go", "not_a_file.go/inner.go"}, []string{"5 files match", "2 entries hidden"}},
		{"top level only", GlobInput{Pattern: "*.go"}, true, []string{"link.go", "main.go"}, nil},
		{"case sensitive", GlobInput{Pattern: "**/*.go", CaseSensitive: true}, true,
			[]string{"a/b.go", "link.go", "main.go", "not_a_file.go/inner.go"}, nil},
		{"literal directory", GlobInput{Pattern: "a/**", CaseSensitive: true}, true, []string{"a/b.go", "a/c/D.GO", "a/c/e.txt"}, nil},
		{"path", GlobInput{Pattern: "*.go", Path: "a"}, true, []string{"a/b.go"}, []string{`in a:`}},
		{"path and deep pattern", GlobInput{Pattern: "c/*", Path: "a"}, true, []string{"a/c/D.GO", "a/c/e.txt"}, nil},
		{"braces", GlobInput{Pattern: "**/*.{ts,tsx}"}, true, []string{"x/y.ts", "x/z.tsx"}, nil},
		{"absolute pattern", GlobInput{Pattern: filepath.Join(dir, "a", "*.go")}, true, []string{"a/b.go"}, nil},
		{"ignored path asked for", GlobInput{Pattern: "*", Path: "vendor"}, true, []string{"vendor/v.go"}, nil},
		{"no match", GlobInput{Pattern: "**/*.rs"}, true, nil, []string{`No files match "**/*.rs" in .`}},
		{"missing pattern directory", GlobInput{Pattern: "nope/*.go", CaseSensitive: true}, true, nil, []string{"No files match"}},
		{"invalid pattern", GlobInput{Pattern: "[a"}, false, nil, []string{`pattern "[a" is not a valid glob`}},
		{"dot dot", GlobInput{Pattern: "../*"}, false, nil, []string{`leads outside the search path`}},
		{"empty", GlobInput{Pattern: ""}, false, nil, []string{"pattern is empty"}},
		{"path is a file", GlobInput{Pattern: "*", Path: "main.go"}, false, nil, []string{"main.go is a file"}},
		{"path missing", GlobInput{Pattern: "*", Path: "nope"}, false, nil, []string{"nope does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, glob, call, tt.in)
			checkResult(t, res, tt.wantOK, tt.want...)
			if !tt.wantOK {
				return
			}
			got := res.Data.(GlobData).Files
			if diff := cmp.Diff(tt.files, got, cmpEmptyNil); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGlobRecentFirst checks the order: files changed in the last day,
// newest first, then the others by name.
// TestGlobShowsTheWalk checks that glob ** lists exactly the files the
// walker shows (internal/fstree, whose tests hold it to git ls-files), on
// a tree with nested, negated and anchored rules, .wieldignore,
// wield's state and a link.
func TestGlobShowsTheWalk(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".gitignore":         "*.log\nbuild/\n!keep.log\n",
		".wieldignore":       "secret/\n!build/wanted.txt\n",
		"a.go":               "",
		"x.log":              "",
		"keep.log":           "",
		"build/out.o":        "",
		"build/wanted.txt":   "",
		"secret/key":         "",
		"sub/.gitignore":     "/only-here\n",
		"sub/only-here":      "",
		"sub/deep/only-here": "",
		".wield/state":       "",
		"link":               "->a.go",
	})
	files, err := fstree.Files(t.Context(), testCall(t, dir).Root, ".", fstree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		want = append(want, f.Path)
	}
	shown := []string{".gitignore", ".wieldignore", "a.go", "build/wanted.txt", "keep.log", "link", "sub/.gitignore", "sub/deep/only-here"}
	if diff := cmp.Diff(shown, want); diff != "" {
		t.Fatalf("the walk shows (-want +got):\n%s", diff)
	}
	res := run(t, NewGlob(Config{GlobLimit: 1 << 20}), testCall(t, dir), GlobInput{Pattern: "**"})
	got := slices.Sorted(slices.Values(res.Data.(GlobData).Files))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("glob ** differs from the walk (-walk +glob):\n%s", diff)
	}
}

func TestGlobRecentFirst(t *testing.T) {
	dir := makeTree(t, map[string]string{"a": "", "b": "", "c": "", "d": "", "e": ""})
	now := time.Now()
	for name, age := range map[string]time.Duration{"a": 72 * time.Hour, "b": 2 * time.Hour, "c": 30 * time.Hour, "d": time.Hour, "e": 48 * time.Hour} {
		mt := now.Add(-age)
		if err := os.Chtimes(filepath.Join(dir, name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, NewGlob(Config{}), testCall(t, dir), GlobInput{Pattern: "*"})
	if diff := cmp.Diff([]string{"d", "b", "a", "c", "e"}, res.Data.(GlobData).Files); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	checkResult(t, res, true, "2 changed in the last 24 hours, listed first")
}

func TestGlobLimit(t *testing.T) {
	dir := makeTree(t, map[string]string{"a": "", "b": "", "c": "", "d": ""})
	res := run(t, NewGlob(Config{GlobLimit: 3}), testCall(t, dir), GlobInput{Pattern: "*"})
	checkResult(t, res, true, "4 files match", "[1 more file not shown")
	if d := res.Data.(GlobData); len(d.Files) != 3 || d.Total != 4 {
		t.Errorf("data = %+v; want 3 of 4 files", d)
	}
}

var cmpEmptyNil = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

// FuzzGlobMatcher checks the fast paths against doublestar.
func FuzzGlobMatcher(f *testing.F) {
	for _, s := range [][2]string{{"**/*.go", "a/b.go"}, {"*.go", "a.go"}, {"**/x", "x"}, {"*.go", ".go"}, {"**/*.{a,b}", "c/d.b"}, {"a/*", "a/b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if !doublestar.ValidatePattern(pattern) || strings.HasPrefix(name, "/") || strings.Contains(name, "//") {
			return
		}
		if got, want := globMatcher(pattern)(name), doublestar.MatchUnvalidated(pattern, name); got != want {
			t.Errorf("globMatcher(%q)(%q) = %v, doublestar says %v", pattern, name, got, want)
		}
	})
}
