package fs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadMany(t *testing.T) {
	no := false
	dir := makeTree(t, map[string]string{
		".gitignore":              "*.log\n",
		"go.mod":                  "module x\n",
		"a/a.go":                  "package a\n",
		"a/a_test.go":             "package a_test\n",
		"a/sub/s.go":              "package sub\n",
		"a/sub/data.dat":          "\x00\x01",
		"a/debug.log":             "log\n",
		"node_modules/m/index.js": "x\n",
		"pic.png":                 "\x89PNG\r\n\x1a\n\x00",
		"big.txt":                 strings.Repeat("b", 300) + "\n",
		"small.txt":               "s\n",
		"latin1.txt":              "caf\xe9\n",
	})
	call := testCall(t, dir)
	tests := []struct {
		name    string
		cfg     Config
		in      ReadManyInput
		files   []string
		skipped []string
		want    []string
	}{
		{name: "files, directories and globs", in: ReadManyInput{Paths: []string{"go.mod", "a", "**/*.go"}},
			files:   []string{"a/a.go", "a/a_test.go", "a/sub/s.go", "go.mod"},
			skipped: []string{"a/sub/data.dat: binary"},
			want:    []string{"--- a/a.go ---\npackage a\n--- a/a_test.go ---\n", "--- go.mod ---\nmodule x\n", "[read 4 files (", "skipped 1: a/sub/data.dat (binary)", "1 entry hidden"}},
		{name: "not recursive", in: ReadManyInput{Paths: []string{"a"}, Recursive: &no}, files: []string{"a/a.go", "a/a_test.go"}},
		{name: "exclude", in: ReadManyInput{Paths: []string{"a"}, Exclude: []string{"*_test.go", "a/sub/**"}}, files: []string{"a/a.go"}},
		{name: "include", in: ReadManyInput{Paths: []string{"go.mod"}, Include: []string{"a/sub/*.go"}}, files: []string{"a/sub/s.go", "go.mod"}},
		{name: "default excludes", in: ReadManyInput{Paths: []string{"."}, Exclude: []string{"*.go", "*.txt", "go.mod", ".gitignore", "*.dat"}},
			want: []string{"2 files left out by the default excludes"}},
		{name: "without default excludes", in: ReadManyInput{Paths: []string{"node_modules"}, UseDefaultExcludes: &no}, files: []string{"node_modules/m/index.js"}},
		{name: "named files are read anyway", in: ReadManyInput{Paths: []string{"node_modules/m/index.js", "a/debug.log"}},
			files: []string{"a/debug.log", "node_modules/m/index.js"}},
		{name: "max files", in: ReadManyInput{Paths: []string{"a/**/*.go"}, MaxFiles: 2}, files: []string{"a/a.go", "a/a_test.go"},
			skipped: []string{"a/sub/s.go: more than max_files=2"}},
		{name: "budget skips what does not fit and goes on", cfg: Config{OutputBudget: 100}, in: ReadManyInput{Paths: []string{"*.txt"}},
			files: []string{"latin1.txt", "small.txt"}, skipped: []string{"big.txt: 301 B, more than the output budget left; read it with read_file"},
			want: []string{"caf\uFFFD"}},
		{name: "missing path", in: ReadManyInput{Paths: []string{"nope", "go.mod"}}, files: []string{"go.mod"}, skipped: []string{"nope: nope does not exist"}},
		{name: "nothing matches", in: ReadManyInput{Paths: []string{"**/*.rs"}}, want: []string{`[no files match "**/*.rs"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewReadMany(tt.cfg), call, tt.in)
			checkResult(t, res, true, tt.want...)
			data := res.Data.(ReadManyData)
			var files, skipped []string
			for _, f := range data.Files {
				files = append(files, f.Path)
			}
			for _, s := range data.Skipped {
				skipped = append(skipped, s.Path+": "+s.Reason)
			}
			if diff := cmp.Diff(tt.files, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadManyFailures(t *testing.T) {
	dir := makeTree(t, map[string]string{"a": "x"})
	call := testCall(t, dir)
	for _, tt := range []struct {
		in   ReadManyInput
		want string
	}{
		{ReadManyInput{}, "paths is empty"},
		{ReadManyInput{Paths: []string{"[a"}}, "not a valid path or glob"},
		{ReadManyInput{Paths: []string{"../*"}}, "outside the search path"},
		{ReadManyInput{Paths: []string{"a"}, MaxFiles: -1}, "negative"},
	} {
		checkResult(t, run(t, NewReadMany(Config{}), call, tt.in), false, tt.want)
	}
}

// BenchmarkReadManyNetHTTP reads all of GOROOT/src/net/http (about 2.5
// MB in 115 files) with the output budget lifted.
func BenchmarkReadManyNetHTTP(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http")
	if _, err := os.Stat(dir); err != nil {
		b.Skip(err)
	}
	tl := NewReadMany(Config{OutputBudget: 1 << 30})
	call := testCall(b, dir)
	in := ReadManyInput{Paths: []string{"."}, MaxFiles: 10_000}
	res := run(b, tl, call, in)
	var total int
	for _, f := range res.Data.(ReadManyData).Files {
		total += f.Bytes
	}
	if total == 0 {
		b.Fatal("read nothing")
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ReportMetric(float64(len(res.Data.(ReadManyData).Files)), "files")
	args, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		// The handler alone: the runner's JSON encoding of the result is
		// not the tool's cost.
		if _, err := tl.Handler().Handle(b.Context(), call, args); err != nil {
			b.Fatal(err)
		}
	}
}
