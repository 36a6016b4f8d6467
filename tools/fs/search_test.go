package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSearch(t *testing.T) {
	no := false
	zero, one := 0, 1
	dir := makeTree(t, map[string]string{
		".gitignore":      "gen/\n*.log\n",
		"a.go":            "package a\n\nfunc Marshal() {}\nfunc unmarshal() {}\n",
		"b/b.go":          "package b\n// marshal here\nvar x = \"a.b(\"\n",
		"b/c.txt":         "Marshal in text\r\nsecond line\r\n",
		"gen/g.go":        "func Marshal() // generated\n",
		"debug.log":       "Marshal logged\n",
		"bin.dat":         "Marshal\x00\x01",
		"ctx.txt":         "1\n2\n3\n4\nneedle\n6\n7\n8\n9\n10\n11\nneedle\n13\n",
		"latin1.txt":      "caf\xe9 needle2\n",
		"link.go":         "->a.go",
		"long.txt":        strings.Repeat("x", 3000) + "FINDME" + strings.Repeat("y", 3000) + "\n",
		"sub/deep/d.go":   "func Marshal() {}\n",
		"not_a_file.go/x": "Marshal\n",
	})
	call := testCall(t, dir)
	search := NewSearch(Config{})
	tests := []struct {
		name    string
		in      SearchInput
		wantOK  bool
		matches []string // path:line of Data.Matches
		want    []string
	}{
		{"literal", SearchInput{Pattern: "Marshal"}, true,
			[]string{"a.go:3", "b/c.txt:1", "link.go:3", "not_a_file.go/x:1", "sub/deep/d.go:1"},
			[]string{"Found 5 matching lines in 5 files", "a.go\n3: func Marshal() {}\n", "b/c.txt\n1: Marshal in text\n", "1 binary file skipped", "2 entries hidden"}},
		{"regex", SearchInput{Pattern: `^func \w*[mM]arshal\(`}, true,
			[]string{"a.go:3", "a.go:4", "link.go:3", "link.go:4", "sub/deep/d.go:1"}, nil},
		{"case-insensitive", SearchInput{Pattern: "MARSHAL", CaseSensitive: &no, Include: "*.go"}, true,
			[]string{"a.go:3", "a.go:4", "b/b.go:2", "link.go:3", "link.go:4", "sub/deep/d.go:1"}, []string{"(include *.go, case-insensitive)"}},
		{"fixed string with specials", SearchInput{Pattern: `"a.b("`, FixedStrings: true}, true,
			[]string{"b/b.go:3"}, []string{`3: var x = "a.b("`}},
		{"include path", SearchInput{Pattern: "Marshal", Include: "sub/**/*.go"}, true, []string{"sub/deep/d.go:1"}, nil},
		{"include in a path", SearchInput{Pattern: "Marshal", Path: "sub", Include: "deep/*.go"}, true, []string{"sub/deep/d.go:1"}, nil},
		{"path", SearchInput{Pattern: "marshal", Path: "b"}, true, []string{"b/b.go:2"}, []string{`for "marshal" in b:`}},
		{"ignored file asked for", SearchInput{Pattern: "Marshal", Path: "gen/g.go"}, true, []string{"gen/g.go:1"}, nil},
		{"ignored directory asked for", SearchInput{Pattern: "Marshal", Path: "gen"}, true, []string{"gen/g.go:1"}, nil},
		{"max matches", SearchInput{Pattern: "Marshal", MaxMatches: 2}, true, []string{"a.go:3", "b/c.txt:1"},
			[]string{"[showing 2 of 5 matching lines, in 2 of 5 files; raise max_matches"}},
		{"automatic context", SearchInput{Pattern: "needle"}, true, []string{"ctx.txt:5", "ctx.txt:12", "latin1.txt:1"},
			[]string{"ctx.txt\n 3- 3\n 4- 4\n 5: needle\n 6- 6\n 7- 7\n--\n10- 10\n11- 11\n12: needle\n13- 13\nlatin1.txt\n1: caf\uFFFD needle2\n"}},
		{"no context", SearchInput{Pattern: "needle", Context: &zero, Include: "ctx.txt"}, true, []string{"ctx.txt:5", "ctx.txt:12"},
			[]string{"ctx.txt\n 5: needle\n12: needle"}},
		{"joined context", SearchInput{Pattern: "^(4|6)$", Context: &one}, true, []string{"ctx.txt:4", "ctx.txt:6"},
			[]string{"ctx.txt\n3- 3\n4: 4\n5- needle\n6: 6\n7- 7"}},
		{"long line", SearchInput{Pattern: "FINDME"}, true, []string{"long.txt:1"}, []string{"… xxx", "FINDMEyyy", "[line of 6006 bytes cut]"}},
		{"no match", SearchInput{Pattern: "zzz"}, true, nil, []string{`No matches for "zzz" in .;`, "files searched"}},
		{"invalid regex", SearchInput{Pattern: "func("}, false, nil, []string{"invalid regular expression", "fixed_strings=true"}},
		{"newline", SearchInput{Pattern: `a\nb`}, false, nil, []string{"line by line"}},
		{"bad include", SearchInput{Pattern: "x", Include: "{a"}, false, nil, []string{"not a valid glob"}},
		{"missing path", SearchInput{Pattern: "x", Path: "nope"}, false, nil, []string{"nope does not exist"}},
		{"negative max", SearchInput{Pattern: "x", MaxMatches: -1}, false, nil, []string{"negative"}},
		{"context too big", SearchInput{Pattern: "x", Context: func() *int { n := 99; return &n }()}, false, nil, []string{"out of range"}},
		{"empty pattern", SearchInput{}, false, nil, []string{"pattern is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, search, call, tt.in)
			checkResult(t, res, tt.wantOK, tt.want...)
			if !tt.wantOK {
				return
			}
			var got []string
			for _, m := range res.Data.(SearchData).Matches {
				got = append(got, fmt.Sprintf("%s:%d", m.Path, m.Line))
			}
			if diff := cmp.Diff(tt.matches, got); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSearchChunks checks line numbers and matches in a file larger than
// the read buffer, with matches on both sides of each chunk boundary.
func TestSearchChunks(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := 1; b.Len() < 3*searchBuffer+1000; i++ {
		if i%9973 == 0 || i == 1 {
			fmt.Fprintf(&b, "match %d\n", i)
			want = append(want, fmt.Sprintf("big.txt:%d", i))
		} else {
			fmt.Fprintf(&b, "filler line %d with some text to take room\n", i)
		}
	}
	b.WriteString("match at the end without newline")
	want = append(want, fmt.Sprintf("big.txt:%d", strings.Count(b.String(), "\n")+1))
	dir := makeTree(t, map[string]string{"big.txt": b.String()})
	res := run(t, NewSearch(Config{}), testCall(t, dir), SearchInput{Pattern: "^match", MaxMatches: 1000})
	var got []string
	for _, m := range res.Data.(SearchData).Matches {
		got = append(got, fmt.Sprintf("%s:%d", m.Path, m.Line))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
}

// TestSearchManyFiles checks that the result is the same however the
// workers share the files, and that it shows the first matches by path.
func TestSearchManyFiles(t *testing.T) {
	files := map[string]string{}
	for i := range 500 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%13, i)] = strings.Repeat("hit\nmiss\n", 1+i%4)
	}
	dir := makeTree(t, files)
	var first SearchData
	for _, workers := range []int{1, 2, 7} {
		res := run(t, NewSearch(Config{Workers: workers}), testCall(t, dir), SearchInput{Pattern: "hit", MaxMatches: 50})
		data := res.Data.(SearchData)
		if data.Total != 500*5/2 || data.Files != 500 || data.Searched != 500 || len(data.Matches) != 50 {
			t.Fatalf("workers %d: total %d in %d files (%d searched), %d shown; want 1250 in 500, 50 shown",
				workers, data.Total, data.Files, data.Searched, len(data.Matches))
		}
		if data.Matches[0].Path != "d0/f000.txt" {
			t.Errorf("workers %d: first match in %s, want d0/f000.txt", workers, data.Matches[0].Path)
		}
		if workers == 1 {
			first = data
		} else if diff := cmp.Diff(first, data); diff != "" {
			t.Errorf("workers %d: result differs from one worker (-1 +%d):\n%s", workers, workers, diff)
		}
	}
}

func TestSearchOutputBudget(t *testing.T) {
	dir := makeTree(t, map[string]string{"f.txt": strings.Repeat("match this line\n", 500)})
	res := run(t, NewSearch(Config{OutputBudget: 1000}), testCall(t, dir), SearchInput{Pattern: "match", MaxMatches: 500})
	checkResult(t, res, true, "output budget reached")
	if len(res.Output) > 1200 {
		t.Errorf("output of %d bytes, want about 1000", len(res.Output))
	}
	data := res.Data.(SearchData)
	if n := strings.Count(res.Output, ": match this line"); n != len(data.Matches) {
		t.Errorf("output shows %d matches, data lists %d", n, len(data.Matches))
	}
}

func TestCollectorBoundsMemory(t *testing.T) {
	c := collector{max: 10}
	for i := 999; i >= 0; i-- {
		fr := &fileResult{rel: fmt.Sprintf("f%03d", i), count: 3}
		for l := range 3 {
			fr.matches = append(fr.matches, lineMatch{line: l + 1})
		}
		c.add(fr)
		if c.lines > 10+3 {
			t.Fatalf("after %d files the collector keeps %d lines", 1000-i, c.lines)
		}
	}
	if len(c.files) != 1000 {
		t.Errorf("collector counted %d files, want 1000", len(c.files))
	}
	for _, f := range c.files {
		if f.rel <= "f003" && len(f.matches) != 3 {
			t.Errorf("%s lost its lines, but it sorts first", f.rel)
		}
	}
}

func TestSearchUnreadable(t *testing.T) {
	if !asUnprivileged(t) {
		return // it ran as the user nobody
	}
	dir := makeTree(t, map[string]string{"ok.txt": "x\n", "locked.txt": "x\n"})
	if err := os.Chmod(filepath.Join(dir, "locked.txt"), 0); err != nil {
		t.Fatal(err)
	}
	res := run(t, NewSearch(Config{}), testCall(t, dir), SearchInput{Pattern: "x"})
	checkResult(t, res, true, "1 entry could not be read: locked.txt: permission denied")
}
