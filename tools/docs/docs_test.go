package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/retrieval"
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

// check compares a result with what a case wants: success or failure,
// and substrings of the output or error.
func check(t *testing.T, name string, res tool.Result, wantOK bool, want ...string) {
	t.Helper()
	if res.Success != wantOK {
		t.Fatalf("%s: success = %v, want %v; error %q, output:\n%s", name, res.Success, wantOK, res.Error, res.Output)
	}
	text := res.Output
	if !wantOK {
		text = res.Error
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: result does not contain %q:\n%s", name, w, text)
		}
	}
}

// workspace makes a workspace with files (slash path → content; content
// "->target" makes a symbolic link) beside a secret outside it, and
// returns a call rooted there and the tools' config.
func workspace(t *testing.T, files map[string]string) (*tool.Call, Config) {
	t.Helper()
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, "secret.md"), []byte("# Secret\nSECRET launch codes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "ws")
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
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
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	lib, err := retrieval.New(retrieval.Config{Dir: filepath.Join(dir, ".wield", "index")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return &tool.Call{Root: root}, Config{Library: lib}
}

var guide = "# Guide\n\nIntro text.\n\n## Backups\n\nBackups run nightly at two.\nThey keep thirty days.\n"

func TestTools(t *testing.T) {
	c, cfg := workspace(t, map[string]string{
		"docs/guide.md":  guide,
		"docs/notes.txt": "Plain notes about the weather.\n",
		"docs/out.md":    "->../../secret.md",
		"main.go":        "package main\n",
	})
	index, search, list, get := NewIndex(cfg), NewSearch(cfg), NewList(cfg), NewGet(cfg)

	check(t, "list before", run(t, list, c, ListInput{}), true, "No documents are indexed yet")
	check(t, "search before", run(t, search, c, SearchInput{Query: "backups"}), true, "No documents are indexed yet")
	check(t, "index", run(t, index, c, IndexInput{Paths: []string{"."}}), true,
		"Collection default: 2 documents (2 added", "1 file of other kinds ignored")

	res := run(t, search, c, SearchInput{Query: "when do backups run", K: 1})
	check(t, "search", res, true, "[1] docs/guide.md, lines 5-8 (id docs/guide.md#2, collection default", "under: Guide > Backups", "nightly at two")
	if strings.Contains(res.Output, "[2]") {
		t.Errorf("search with k 1 shows more than one hit:\n%s", res.Output)
	}
	check(t, "search filter", run(t, search, c, SearchInput{Query: "notes weather", Filter: "**/*.md"}), true, "No passages match")
	check(t, "list", run(t, list, c, ListInput{}), true, "- default: 2 documents, 3 chunks")
	check(t, "list collection", run(t, list, c, ListInput{Collection: "default"}), true,
		`- docs/guide.md (markdown, 8 lines, 2 chunks, indexed`, `"Guide"`, "- docs/notes.txt (text, 1 line, 1 chunk")
	check(t, "get chunk", run(t, get, c, GetInput{ID: "docs/guide.md#2"}), true, "docs/guide.md (markdown, 8 lines)\n     5  ## Backups\n", "     8  They keep thirty days.")
	check(t, "get range", run(t, get, c, GetInput{ID: "docs/guide.md", Range: "3"}), true, "     3  Intro text.")

	// Changed files are flagged until indexed again.
	if err := os.WriteFile(filepath.Join(c.Root.Name(), "docs/guide.md"), []byte("# Guide\n\nNew.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, "get changed", run(t, get, c, GetInput{ID: "docs/guide.md"}), true, "changed since it was indexed")
	check(t, "reindex", run(t, index, c, IndexInput{Paths: []string{"docs"}}), true, "1 updated, 1 unchanged")

	for _, tc := range []struct {
		name string
		tool *tool.Tool
		args any
		want string
	}{
		{"index no paths", index, IndexInput{}, "paths is empty"},
		{"index bad collection", index, IndexInput{Paths: []string{"."}, Collection: "Bad Name"}, "is not a valid name"},
		{"index missing", index, IndexInput{Paths: []string{"nope"}}, "nope does not exist"},
		{"search empty", search, SearchInput{Query: "  "}, "the query is empty"},
		{"search k", search, SearchInput{Query: "x", K: MaxK + 1}, "give 1 to 50"},
		{"search filter", search, SearchInput{Query: "x", Filter: "[a"}, "not a valid glob"},
		{"search collection", search, SearchInput{Query: "x", Collection: "../x"}, "is not a valid name"},
		{"list collection", list, ListInput{Collection: "A"}, "is not a valid name"},
		{"get empty", get, GetInput{}, "id is empty"},
		{"get chunk number", get, GetInput{ID: "docs/guide.md#x"}, "chunk number"},
		{"get unknown chunk", get, GetInput{ID: "docs/guide.md#9"}, "no chunk docs/guide.md#9 is indexed"},
		{"get not a document", get, GetInput{ID: "main.go"}, "read_file reads other files"},
		{"get missing", get, GetInput{ID: "docs/gone.md"}, "does not exist"},
		{"get bad range", get, GetInput{ID: "docs/guide.md", Range: "9-3"}, "is not a range"},
		{"get past end", get, GetInput{ID: "docs/guide.md", Range: "99"}, "past the end"},
		{"get pages of text", get, GetInput{ID: "docs/guide.md", Range: "p1"}, "has none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check(t, tc.name, run(t, tc.tool, c, tc.args), false, tc.want)
		})
	}
}

// TestToolsStayInWorkspace aims every tool that takes a path at places
// outside the workspace; none may read the secret there.
func TestToolsStayInWorkspace(t *testing.T) {
	c, cfg := workspace(t, map[string]string{
		"docs/a.md":   "# A\n",
		"link.md":     "->../secret.md",
		"dirlink":     "->..",
		"abs-link.md": "->/etc/passwd",
	})
	for _, p := range []string{"../secret.md", "../", "/etc/passwd", filepath.Join(filepath.Dir(c.Root.Name()), "secret.md"),
		"link.md", "dirlink/secret.md", "abs-link.md", "docs/../../secret.md", "/proc/self/environ"} {
		t.Run(p, func(t *testing.T) {
			res := run(t, NewIndex(cfg), c, IndexInput{Paths: []string{p}})
			if res.Success && !strings.Contains(res.Output, "0 added") {
				t.Errorf("index_documents(%q) succeeded: %s", p, res.Output)
			}
			res = run(t, NewSearch(cfg), c, SearchInput{Query: "SECRET launch codes"})
			if strings.Contains(res.Output, "SECRET") {
				t.Errorf("after index_documents(%q), search finds the secret:\n%s", p, res.Output)
			}
			res = run(t, NewGet(cfg), c, GetInput{ID: p})
			if res.Success || strings.Contains(res.Output+res.Error, "SECRET") {
				t.Errorf("get_document(%q) = %+v, want a failure without the secret", p, res)
			}
		})
	}
}

func TestToolsWithoutLibrary(t *testing.T) {
	c := &tool.Call{}
	for _, tl := range []*tool.Tool{NewIndex(Config{}), NewSearch(Config{}), NewList(Config{})} {
		args := map[string]any{"query": "x", "paths": []string{"."}}
		check(t, tl.Name(), run(t, tl, c, args), false, "not set up")
	}
	check(t, "get", run(t, NewGet(Config{}), c, GetInput{ID: "a.md"}), false, "no workspace")
}

func TestSearchOutputIsBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[filepath.ToSlash(filepath.Join("docs", strings.Repeat("x", i+1)+".md"))] = strings.Repeat("alpha beta gamma delta\n", 200)
	}
	c, cfg := workspace(t, files)
	cfg.OutputBudget = 4000
	check(t, "index", run(t, NewIndex(cfg), c, IndexInput{Paths: []string{"docs"}}), true, "30 added")
	res := run(t, NewSearch(cfg), c, SearchInput{Query: "alpha", K: MaxK})
	check(t, "search", res, true, "more hits left out for space")
	if len(res.Output) > cfg.OutputBudget+200 {
		t.Errorf("search output is %d bytes, budget %d", len(res.Output), cfg.OutputBudget)
	}
	res = run(t, NewGet(cfg), c, GetInput{ID: "docs/x.md"})
	check(t, "get", res, true, `shows the next`)
	if len(res.Output) > cfg.OutputBudget+200 {
		t.Errorf("get_document output is %d bytes, budget %d", len(res.Output), cfg.OutputBudget)
	}
}

func TestContract(t *testing.T) {
	c, cfg := workspace(t, map[string]string{"docs/a.md": "# A\n\nalpha\n"})
	for _, tc := range []struct {
		tool  *tool.Tool
		cases tooltest.Cases
	}{
		{NewIndex(cfg), tooltest.Cases{Valid: []string{`{"paths":["docs"]}`, `{"paths":["docs"],"collection":"notes"}`}, Invalid: []string{`{}`, `{"paths":"docs"}`}}},
		{NewSearch(cfg), tooltest.Cases{Valid: []string{`{"query":"alpha"}`, `{"query":"alpha","k":3,"filter":"docs/**"}`}, Invalid: []string{`{}`, `{"query":1}`}}},
		{NewList(cfg), tooltest.Cases{Valid: []string{`{}`, `{"collection":"default"}`}, Invalid: []string{`{"collection":1}`}}},
		{NewGet(cfg), tooltest.Cases{Valid: []string{`{"id":"docs/a.md"}`, `{"id":"docs/a.md#1","range":"1-2"}`}, Invalid: []string{`{}`, `{"id":2}`}}},
	} {
		if err := tooltest.Check(t.Context(), tc.tool, tc.cases); err != nil {
			t.Error(err)
		}
	}
	_ = c
}
