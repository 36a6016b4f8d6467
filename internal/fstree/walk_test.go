package fstree

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// makeTree writes files (slash path → content) under a new temporary
// directory and returns its path. A path ending in "/" makes a directory;
// content starting with "->" makes a symbolic link to the rest.
func makeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openRoot opens dir as an os.Root, closed when the test ends.
func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// walkFiles lists what a walk of dir from start shows, sorted, and the
// number of entries hidden.
func walkFiles(t testing.TB, dir, start string, cfg Config) ([]string, int64) {
	t.Helper()
	wk := NewWalker(openRoot(t, dir), cfg)
	var mu sync.Mutex
	var got []string
	err := wk.Walk(t.Context(), Options{Start: start, MaxDepth: -1}, func(_ int, f *Entry) error {
		mu.Lock()
		got = append(got, f.Path)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatalf("walk: %v", err)
	}
	slices.Sort(got)
	return got, wk.Stats().Hidden()
}

// git runs git in dir with no user or system configuration.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// gitFiles is what `git ls-files -co --exclude-standard` lists in dir.
func gitFiles(t testing.TB, dir string) []string {
	t.Helper()
	out := git(t, dir, "ls-files", "-z", "-co", "--exclude-standard")
	var files []string
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the comparison with git ls-files needs it")
	}
}

// TestWalkMatchesGitLsFiles builds trees with nested, negated and
// anchored rules and checks that the walk shows exactly the files that
// `git ls-files -co --exclude-standard` lists.
func TestWalkMatchesGitLsFiles(t *testing.T) {
	needGit(t)
	tests := []struct {
		name  string
		files map[string]string
		// tracked files are added with `git add -f` before comparing.
		tracked []string
	}{
		{
			name: "extension, directory and negation",
			files: map[string]string{
				".gitignore":        "*.log\nbuild/\n!important.log\n",
				"a.log":             "",
				"important.log":     "",
				"main.go":           "",
				"build/out.bin":     "",
				"src/build/x.go":    "",
				"src/debug.log":     "",
				"src/important.log": "",
			},
		},
		{
			name: "nested files override their parents",
			files: map[string]string{
				".gitignore":          "*.txt\n/root-only\n",
				"root-only":           "",
				"sub/root-only":       "",
				"sub/.gitignore":      "!keep.txt\n*.go\n",
				"sub/keep.txt":        "",
				"sub/drop.txt":        "",
				"sub/main.go":         "",
				"sub/deep/.gitignore": "!*.go\n",
				"sub/deep/a.go":       "",
				"sub/deep/keep.txt":   "",
				"other/keep.txt":      "",
			},
		},
		{
			name: "no re-inclusion inside an excluded directory",
			files: map[string]string{
				".gitignore":      "logs/\n!logs/keep.txt\ncache\n!cache/keep\n",
				"logs/keep.txt":   "",
				"logs/other.txt":  "",
				"cache/keep":      "",
				"cache/x":         "",
				"dir/cache/x":     "",
				"dir/logs/a.txt":  "",
				"logs.txt":        "",
				"cachefile/cache": "",
			},
		},
		{
			name: "contents excluded, directory kept",
			files: map[string]string{
				".gitignore":    "logs/*\n!logs/keep.txt\nout/**\n!out/**/\n!out/**/*.md\n",
				"logs/keep.txt": "",
				"logs/a.txt":    "",
				"logs/sub/b":    "",
				"out/a.md":      "",
				"out/a.bin":     "",
				"out/x/y/z.md":  "",
				"out/x/y/z.bin": "",
			},
		},
		{
			name: "double stars",
			files: map[string]string{
				".gitignore":         "**/gen\na/**/b\nfoo/**\n**/tmp/**/*.o\nx**y\n",
				"gen":                "",
				"p/q/gen/file":       "",
				"a/b":                "",
				"a/x/y/b":            "",
				"a/x/y/bb":           "",
				"foo/one":            "",
				"foo/deep/two":       "",
				"foop/one":           "",
				"tmp/a.o":            "",
				"r/tmp/s/t/u.o":      "",
				"r/tmp/s/t/u.c":      "",
				"xay":                "",
				"dir/xzzy":           "",
				"dir/x/y":            "",
				"generated/gen.go":   "",
				"nested/a/q/b/inner": "",
			},
		},
		{
			name: "middle slash anchors to the file's directory",
			files: map[string]string{
				"doc/.gitignore":    "html/*.html\n/top.txt\n",
				"doc/html/a.html":   "",
				"doc/html/b.css":    "",
				"doc/x/html/a.html": "",
				"doc/top.txt":       "",
				"doc/x/top.txt":     "",
				"html/a.html":       "",
			},
		},
		{
			name: "classes, escapes and spaces",
			files: map[string]string{
				".gitignore":  "[abc].txt\n[!x-z]?.md\n\\#hash\n\\!bang\ntrail\\ \nsp  \n*.[Oo]\nq[[:digit:]]\n",
				"a.txt":       "",
				"d.txt":       "",
				"ab.md":       "",
				"xb.md":       "",
				"#hash":       "",
				"!bang":       "",
				"trail ":      "",
				"trail":       "",
				"sp":          "",
				"x.o":         "",
				"x.O":         "",
				"x.c":         "",
				"q1":          "",
				"qa":          "",
				"bang":        "",
				"#comment-ok": "",
			},
		},
		{
			name: "directory-only patterns and files of the same name",
			files: map[string]string{
				".gitignore":  "name/\n/top/\n",
				"name":        "",
				"sub/name/x":  "",
				"top/x":       "",
				"sub/top/x":   "",
				"sub/name2/y": "",
			},
		},
		{
			name: "CRLF, BOM and comments",
			files: map[string]string{
				".gitignore": "\xef\xbb\xbf# comment\r\n*.tmp\r\n\r\n  \r\n#*.keep\r\n",
				"a.tmp":      "",
				"b.keep":     "",
				"c.txt":      "",
			},
		},
		{
			name: "info/exclude loses to .gitignore",
			files: map[string]string{
				".git/info/exclude": "*.secret\n*.ex\n",
				".gitignore":        "!keep.ex\n",
				"a.secret":          "",
				"b.ex":              "",
				"keep.ex":           "",
				"plain":             "",
			},
		},
		{
			name: "tracked files show through their rules",
			files: map[string]string{
				".gitignore":        "*.gen\nvendor/\n",
				"a.gen":             "",
				"b.gen":             "",
				"vendor/lib/x.go":   "",
				"vendor/lib/y.go":   "",
				"vendor/other/z.go": "",
				"main.go":           "",
			},
			tracked: []string{"a.gen", "vendor/lib/x.go"},
		},
		{
			name: "ignore files that are ignored still count",
			files: map[string]string{
				".gitignore":     ".gitignore\nsub/.gitignore\n",
				"sub/.gitignore": "*.x\n",
				"sub/a.x":        "",
				"sub/b.y":        "",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := makeTree(t, tt.files)
			git(t, dir, "init", "-q")
			if len(tt.tracked) > 0 {
				git(t, dir, append([]string{"add", "-f", "--"}, tt.tracked...)...)
			}
			want := gitFiles(t, dir)
			got, _ := walkFiles(t, dir, ".", Config{})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("walk differs from git ls-files (-git +walk):\n%s", diff)
			}
		})
	}
}

// TestWalkMatchesGitLsFilesRandom compares the walk with git ls-files on
// random trees with random rules. Failures print the tree and the rules.
func TestWalkMatchesGitLsFilesRandom(t *testing.T) {
	needGit(t)
	n := 150
	if testing.Short() {
		n = 20
	}
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 7))
		files := randomTree(r)
		dir := makeTree(t, files)
		git(t, dir, "init", "-q")
		want := gitFiles(t, dir)
		got, _ := walkFiles(t, dir, ".", Config{})
		if diff := cmp.Diff(want, got); diff != "" {
			var rules []string
			for name, content := range files {
				if strings.HasSuffix(name, ".gitignore") {
					rules = append(rules, fmt.Sprintf("%s:\n%s", name, content))
				}
			}
			slices.Sort(rules)
			t.Fatalf("seed %d: walk differs from git ls-files (-git +walk):\n%s\nrules:\n%s", seed, diff, strings.Join(rules, "\n"))
		}
	}
}

// randomTree returns a small tree with .gitignore files whose patterns
// mix the tree's names with wildcards, classes, anchors and negations.
func randomTree(r *rand.Rand) map[string]string {
	names := []string{"a", "b", "ab", "a.go", "b.txt", "c.log", "dd", "x_y", "Q", "a1"}
	pick := func() string { return names[r.IntN(len(names))] }
	files := map[string]string{}
	var dirs []string
	dirs = append(dirs, "")
	for range 3 + r.IntN(5) {
		parent := dirs[r.IntN(len(dirs))]
		dirs = append(dirs, Join(parent, pick()))
	}
	isDir := map[string]bool{}
	for _, d := range dirs {
		for d != "" {
			isDir[d] = true
			d = Parent(d)
		}
	}
	for range 8 + r.IntN(20) {
		p := Join(dirs[r.IntN(len(dirs))], pick())
		if !isDir[p] {
			files[p] = ""
		}
	}
	pieces := []string{"*", "?", "**", "[ab]", "[!a]", "[a-c]", ".go", ".txt", "a", "b", "d", "x_y", "1", "Q", "[[:digit:]]"}
	for _, d := range dirs {
		if r.IntN(3) == 0 && d != "" {
			continue
		}
		var lines []string
		for range 1 + r.IntN(5) {
			var b strings.Builder
			if r.IntN(4) == 0 {
				b.WriteString("!")
			}
			if r.IntN(4) == 0 {
				b.WriteString("/")
			}
			for i := range 1 + r.IntN(3) {
				if i > 0 {
					b.WriteString("/")
				}
				for range 1 + r.IntN(2) {
					if r.IntN(2) == 0 {
						b.WriteString(pieces[r.IntN(len(pieces))])
					} else {
						b.WriteString(pick())
					}
				}
			}
			if r.IntN(4) == 0 {
				b.WriteString("/")
			}
			lines = append(lines, b.String())
		}
		p := Join(d, ".gitignore")
		if !isDir[p] {
			files[p] = strings.Join(lines, "\n") + "\n"
		}
	}
	return files
}

func TestWalkWieldignore(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		git        bool
		tracked    []string
		start      string
		want       []string
		wantHidden int64
	}{
		{
			name: "re-include, exclude more",
			files: map[string]string{
				".gitignore":     "*.log\nbuild/\ndist/\n",
				".wieldignore":   "!debug.log\n!build/keep.txt\n!dist/\nsecrets/\n*.bak\n",
				"a.log":          "",
				"debug.log":      "",
				"build/keep.txt": "",
				"build/other":    "",
				"dist/x.js":      "",
				"dist/y.log":     "",
				"secrets/k":      "",
				"x.bak":          "",
				"main.go":        "",
			},
			want: []string{".gitignore", ".wieldignore", "build/keep.txt", "debug.log", "dist/x.js", "main.go"},
			// a.log, build/, dist/y.log, secrets/, x.bak
			wantHidden: 5,
		},
		{
			name: "wieldignore hides tracked files",
			files: map[string]string{
				".wieldignore": "gen/\n",
				"gen/a.go":     "",
				"main.go":      "",
			},
			git:        true,
			tracked:    []string{"gen/a.go", "main.go"},
			want:       []string{".wieldignore", "main.go"},
			wantHidden: 1,
		},
		{
			name: "state directory hidden unless re-included",
			files: map[string]string{
				".wield/spill/x.txt": "",
				"sub/.wield/y":       "",
				"main.go":            "",
			},
			want:       []string{"main.go", "sub/.wield/y"},
			wantHidden: 1,
		},
		{
			name: "state directory re-included",
			files: map[string]string{
				".wield/spill/x.txt": "",
				".wieldignore":       "!.wield/\n",
			},
			want: []string{".wield/spill/x.txt", ".wieldignore"},
		},
		{
			name: "not a repository: .gitignore still counts, .git never listed",
			files: map[string]string{
				".gitignore":    "*.o\n",
				"a.o":           "",
				"a.c":           "",
				"sub/.git/HEAD": "",
				"sub/.git/x.c":  "",
				"sub/b.c":       "",
			},
			want:       []string{".gitignore", "a.c", "sub/b.c"},
			wantHidden: 1,
		},
		{
			name: "start below the root keeps the rules above it",
			files: map[string]string{
				".gitignore":     "*.o\n",
				"sub/a.o":        "",
				"sub/a.c":        "",
				"sub/.gitignore": "!keep.o\n",
				"sub/keep.o":     "",
				"other.c":        "",
			},
			start:      "sub",
			want:       []string{"sub/.gitignore", "sub/a.c", "sub/keep.o"},
			wantHidden: 1,
		},
		{
			name: "a start the rules hide is walked",
			files: map[string]string{
				".gitignore":  "vendor/\n",
				"vendor/a.go": "",
				"vendor/b/c":  "",
			},
			start: "vendor",
			want:  []string{"vendor/a.go", "vendor/b/c"},
		},
		{
			name: "links are listed, not followed",
			files: map[string]string{
				"real/a":   "x",
				"link":     "->real",
				"file":     "->real/a",
				"dangling": "->nowhere",
			},
			want: []string{"dangling", "file", "link", "real/a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := makeTree(t, tt.files)
			if tt.git || len(tt.tracked) > 0 {
				needGit(t)
				git(t, dir, "init", "-q")
				if len(tt.tracked) > 0 {
					git(t, dir, append([]string{"add", "-f", "--"}, tt.tracked...)...)
				}
			}
			start := tt.start
			if start == "" {
				start = "."
			}
			got, hidden := walkFiles(t, dir, start, Config{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
			if hidden != tt.wantHidden {
				t.Errorf("walk hid %d entries, want %d", hidden, tt.wantHidden)
			}
		})
	}
}

// TestWalkStopsOnError checks that an error from the visit function ends
// the walk and is returned, and that cancellation does the same.
func TestWalkStopsOnError(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/f%d", i%7, i)] = ""
	}
	dir := makeTree(t, files)
	root := openRoot(t, dir)
	boom := fmt.Errorf("boom")
	wk := NewWalker(root, Config{Workers: 4})
	var n int
	var mu sync.Mutex
	err := wk.Walk(t.Context(), Options{Start: ".", MaxDepth: -1}, func(int, *Entry) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 10 {
			return boom
		}
		return nil
	})
	if err != boom {
		t.Errorf("walk = %v, want %v", err, boom)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = NewWalker(root, Config{Workers: 4}).Walk(ctx, Options{Start: ".", MaxDepth: -1}, func(int, *Entry) error { return nil })
	if err != context.Canceled {
		t.Errorf("walk with a cancelled context = %v, want %v", err, context.Canceled)
	}
}

func TestWalkMaxDepth(t *testing.T) {
	dir := makeTree(t, map[string]string{"a": "", "d/b": "", "d/e/c": ""})
	root := openRoot(t, dir)
	for depth, want := range map[int][]string{0: {"a"}, 1: {"a", "d/b"}, -1: {"a", "d/b", "d/e/c"}} {
		var mu sync.Mutex
		var got []string
		err := NewWalker(root, Config{}).Walk(t.Context(), Options{Start: ".", MaxDepth: depth}, func(_ int, f *Entry) error {
			mu.Lock()
			got = append(got, f.Path)
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("maxDepth %d (-want +got):\n%s", depth, diff)
		}
	}
}
