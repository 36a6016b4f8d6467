package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

// run calls t's handler with args (marshalled to JSON) as the runner
// would after validation.
func run(tb testing.TB, t *tool.Tool, c *tool.Call, args any) tool.Result {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := t.Handler().Handle(tb.Context(), c, raw)
	if err != nil {
		tb.Fatalf("%s(%s): fault: %v", t.Name(), raw, err)
	}
	if _, err := json.Marshal(res); err != nil {
		tb.Fatalf("%s(%s): result does not marshal: %v", t.Name(), raw, err)
	}
	return res
}

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

// testCall returns a call whose workspace root is dir.
func testCall(t testing.TB, dir string) *tool.Call {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &tool.Call{Root: root}
}

// checkResult compares a result with what a test case wants: success or
// failure, and substrings of the output or error.
func checkResult(t *testing.T, res tool.Result, wantOK bool, want ...string) {
	t.Helper()
	if res.Success != wantOK {
		t.Fatalf("success = %v, want %v; error %q, output:\n%s", res.Success, wantOK, res.Error, res.Output)
	}
	text := res.Output
	if !wantOK {
		text = res.Error
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("result does not contain %q:\n%s", w, text)
		}
	}
}

// escapeArgs builds, for each tool, the arguments that aim it at p.
var escapeArgs = map[string]func(p string) any{
	"read_file":       func(p string) any { return ReadInput{Path: p} },
	"read_many_files": func(p string) any { return ReadManyInput{Paths: []string{"sub", p}} },
	"list_directory":  func(p string) any { return ListInput{Path: p} },
	"glob":            func(p string) any { return GlobInput{Pattern: "**", Path: p} },
	"search_file_content": func(p string) any {
		return SearchInput{Pattern: "SECRET", Path: p}
	},
	"write_file": func(p string) any { return WriteInput{Path: p, Content: "PWNED\n"} },
	"replace":    func(p string) any { return ReplaceInput{Path: p, OldString: "SECRET", NewString: "PWNED"} },
}

// TestToolsRefuseEscapes runs the escape table against every tool: each
// path must be refused as outside the workspace, and no tool may show the
// secret that lies outside.
func TestToolsRefuseEscapes(t *testing.T) {
	dir, cases := escapeTree(t)
	call := testCall(t, dir)
	for _, tl := range Tools(Config{}) {
		args, ok := escapeArgs[tl.Name()]
		if !ok {
			t.Errorf("%s: no escape arguments: add it to escapeArgs", tl.Name())
			continue
		}
		for _, c := range cases {
			t.Run(tl.Name()+"/"+c.name, func(t *testing.T) {
				res := run(t, tl, call, args(c.path))
				if strings.Contains(res.Output, "SECRET") {
					t.Fatalf("the secret outside leaked:\n%s", res.Output)
				}
				if res.Success && tl.Name() == "glob" && strings.HasPrefix(res.Output, "No files match") {
					return // a dangling target has nothing to list
				}
				if res.Success || !strings.Contains(res.Error, "outside the workspace") {
					t.Errorf("%s(%q) = success %v, error %q; want it refused as outside the workspace",
						tl.Name(), c.path, res.Success, res.Error)
				}
			})
		}
	}
	// Nothing outside changed or appeared.
	outside := filepath.Join(filepath.Dir(dir), "outside")
	for _, f := range []string{"secret", "dir/secret"} {
		if b, err := os.ReadFile(filepath.Join(outside, f)); err != nil || string(b) != "SECRET\n" {
			t.Errorf("outside/%s = %q, %v; want it untouched", f, b, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("outside holds %d entries, want the original 2", len(entries))
	}
}

// TestToolsNeedWorkspace checks the failure of every tool called without
// a workspace root.
func TestToolsNeedWorkspace(t *testing.T) {
	for _, tl := range Tools(Config{}) {
		res := run(t, tl, &tool.Call{}, escapeArgs[tl.Name()]("x"))
		if res.Success || !strings.Contains(res.Error, "no workspace") {
			t.Errorf("%s without a root = %+v; want a no-workspace failure", tl.Name(), res)
		}
	}
}

// TestContract runs tooltest's contract checks on every tool.
func TestContract(t *testing.T) {
	dir := makeTree(t, map[string]string{"a.txt": "hello\n", "d/b.go": "package b\n"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cases := map[string]tooltest.Cases{
		"read_file": {
			Valid:   []string{`{"path":"a.txt"}`, `{"path":"a.txt","offset":1,"limit":1}`, `{"path":"missing"}`},
			Invalid: []string{`{}`, `{"path":1}`, `{"path":"a","limit":"x"}`, `{"path":"a","extra":1}`},
		},
		"list_directory": {
			Valid:   []string{`{"path":"."}`, `{"path":"d","ignore":["*.go"]}`},
			Invalid: []string{`{}`, `{"path":"."  ,"ignore":"x"}`},
		},
		"glob": {
			Valid:   []string{`{"pattern":"**/*.go"}`, `{"pattern":"*.TXT","path":".","case_sensitive":true}`},
			Invalid: []string{`{}`, `{"pattern":"x","case_sensitive":"yes"}`},
		},
		"read_many_files": {
			Valid:   []string{`{"paths":["a.txt","d"]}`, `{"paths":["**/*.go"],"include":["*.txt"],"exclude":["d/**"],"recursive":false,"use_default_excludes":false,"max_files":3}`},
			Invalid: []string{`{}`, `{"paths":"a.txt"}`, `{"paths":["a"],"max_files":"x"}`},
		},
		"write_file": {
			Valid:   []string{`{"path":"new.txt","content":"x"}`},
			Invalid: []string{`{"path":"x"}`, `{"content":"x"}`, `{"path":"x","content":1}`},
		},
		"replace": {
			Valid:   []string{`{"path":"a.txt","old_string":"hello","new_string":"bye"}`, `{"path":"a.txt","old_string":"bye","new_string":"x","allow_multiple":true}`},
			Invalid: []string{`{"path":"a.txt","old_string":"x"}`, `{"path":"a.txt","new_string":"x"}`},
		},
		"search_file_content": {
			Valid: []string{`{"pattern":"hello"}`, `{"pattern":"b","path":"d","include":"*.go","case_sensitive":false,"fixed_strings":true,"context":1,"max_matches":5}`,
				`{"pattern":"("}`},
			Invalid: []string{`{}`, `{"pattern":"x","context":"2"}`, `{"pattern":"x","max_matches":1.5}`},
		},
	}
	for _, tl := range Tools(Config{}) {
		c, ok := cases[tl.Name()]
		if !ok {
			t.Errorf("%s: no contract cases", tl.Name())
			continue
		}
		c.Run, c.Root = true, root
		if err := tooltest.Check(t.Context(), tl, c); err != nil {
			t.Error(err)
		}
	}
}

func callWithRoot(root *os.Root) *tool.Call { return &tool.Call{Root: root} }
