package fs

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestList(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".gitignore":      "*.log\nbuild/\n",
		"b.txt":           "12345",
		"a.go":            "",
		"x.log":           "",
		"build/out":       "",
		"zdir/inner":      "",
		"adir/inner":      "",
		"link":            "->adir",
		".git/HEAD":       "",
		"keep.test":       "",
		"d/not_a_dir.go/": "",
	})
	call := testCall(t, dir)
	list := NewList(Config{})
	tests := []struct {
		name   string
		in     ListInput
		wantOK bool
		want   []string
		names  []string // Data entries, in order
	}{
		{"root", ListInput{Path: "."}, true,
			[]string{".: 3 directories, 5 files; 2 hidden by ignore rules\nadir/\nd/\nzdir/\n.gitignore  13 B\na.go  0 B\nb.txt  5 B\nkeep.test  0 B\nlink -> adir"},
			[]string{"adir", "d", "zdir", ".gitignore", "a.go", "b.txt", "keep.test", "link"}},
		{"ignore argument", ListInput{Path: "", Ignore: []string{"*.test", "?dir"}}, true,
			[]string{"; 5 hidden by ignore rules"}, []string{"d", ".gitignore", "a.go", "b.txt", "link"}},
		{"subdirectory", ListInput{Path: "zdir"}, true, []string{"zdir: 0 directories, 1 file\ninner  0 B"}, []string{"inner"}},
		{"linked directory", ListInput{Path: "link"}, true, []string{"adir: 0 directories, 1 file"}, []string{"inner"}},
		{"a file", ListInput{Path: "b.txt"}, false, []string{"b.txt is a file, not a directory: use read_file"}, nil},
		{"missing", ListInput{Path: "nope"}, false, []string{"nope does not exist"}, nil},
		{"bad ignore pattern", ListInput{Path: ".", Ignore: []string{"[a"}}, false, []string{`ignore pattern "[a" is not a valid glob`}, nil},
		{"ignored directory asked for", ListInput{Path: "build"}, true, []string{"build: 0 directories, 1 file"}, []string{"out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, list, call, tt.in)
			checkResult(t, res, tt.wantOK, tt.want...)
			if !tt.wantOK {
				return
			}
			var names []string
			for _, e := range res.Data.(ListData).Entries {
				names = append(names, e.Name)
			}
			if diff := cmp.Diff(tt.names, names); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListLimit(t *testing.T) {
	files := map[string]string{}
	for i := range listLimit + 5 {
		files[fmt.Sprintf("f%04d", i)] = ""
	}
	dir := makeTree(t, files)
	res := run(t, NewList(Config{}), testCall(t, dir), ListInput{Path: "."})
	data := res.Data.(ListData)
	if len(data.Entries)+data.Omitted != len(files) || data.Omitted == 0 {
		t.Errorf("%d shown + %d omitted, want %d in all with some omitted", len(data.Entries), data.Omitted, len(files))
	}
	checkResult(t, res, true, "more entries not shown")
}
