package wield_test

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/wieldhq/wield"

// library reports whether a package (relative to the module) is part of
// wield's library or binary, as opposed to the examples, benchmarks and
// interop programs around it.
func library(pkg string) bool {
	for _, p := range []string{"examples", "bench", "interop"} {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return false
		}
	}
	return pkg != ""
}

// relative returns an import path of the module relative to it ("." for
// the module's root package, package wield), and whether it is the
// module's.
func relative(imp string) (string, bool) {
	if imp == module {
		return ".", true
	}
	return strings.CutPrefix(imp, module+"/")
}

// layers are wield's packages from the top down, as patterns: a package
// ("." for the module's root package, package wield) or "dir/..." for dir
// and every package below it. Every library package is in exactly one
// layer, and imports only packages of its own layer or of layers below
// it; within the tool families only the imports toolImports lists.
var layers = []struct {
	name string
	pkgs []string
}{
	{"command", []string{"cmd/..."}},
	{"assembly", []string{"."}},
	{"tool family", []string{"tools/..."}},
	{"capability", []string{
		"agent/...", "compact", "ledger", "mcp/...", "memory", "otel/...", "plugin",
		"policy", "retrieval", "sandbox/...", "skill", "trust", "viewer",
	}},
	{"foundation", []string{"schema", "tool/...", "llm/...", "session/...", "shellcmd", "workspace", "internal/..."}},
}

// toolImports lists the tool families that import another one: each
// package's list is all it may import of tools/.
var toolImports = map[string][]string{
	"tools/github": {"tools/git"},     // the repository from git's origin remote
	"tools/plan":   {"tools/askuser"}, // the approval of a plan is a question
}

// matches reports whether pkg matches a layer's pattern.
func matches(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}

// layerOf returns the index in layers of pkg's layer, or -1, and the
// number of layers that claim it.
func layerOf(pkg string) (layer, claims int) {
	layer = -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			if matches(p, pkg) {
				if claims == 0 {
					layer = i
				}
				claims++
				break
			}
		}
	}
	return layer, claims
}

// A confinement keeps a heavy third-party module (a provider SDK, the MCP
// SDK, a UI or database driver, a browser) in the packages that need it,
// so that it does not leak into packages that do not. Temporal's SDK is
// not here: it is in a module of its own (TestTemporalConfined).
type confinement struct {
	module string   // an import path prefix
	pkgs   []string // the packages that may import it
	tests  []string // packages whose tests alone may import it too
}

var confined = []confinement{
	{module: "github.com/openai/openai-go", pkgs: []string{"llm/openai"}},
	{module: "github.com/anthropics/anthropic-sdk-go", pkgs: []string{"llm/anthropic"}},
	{module: "google.golang.org/genai", pkgs: []string{"llm/gemini"}},
	{module: "github.com/modelcontextprotocol/go-sdk", pkgs: []string{"mcp"}},
	{module: "github.com/spf13/", pkgs: []string{"cmd/wield"}},
	{module: "github.com/charmbracelet/", pkgs: []string{"cmd/wield"}},
	{module: "charm.land/", pkgs: []string{"cmd/wield"}},
	{module: "github.com/creack/pty", tests: []string{"cmd/wield"}},
	{module: "github.com/yuin/goldmark", pkgs: []string{"cmd/wield"}},
	{module: "github.com/jezek/xgb", pkgs: []string{"tools/desktop", "cmd/wield"}}, // cmd/wield only quiets its logger
	{module: "github.com/chromedp/", tests: []string{"viewer"}},
	{module: "github.com/google/go-github/", pkgs: []string{"tools/github"}},
	{module: "github.com/landlock-lsm/go-landlock", pkgs: []string{"sandbox"}},
	{module: "codeberg.org/readeck/go-readability", pkgs: []string{"internal/readable"}},
	{module: "github.com/JohannesKaufmann/html-to-markdown", pkgs: []string{"internal/readable"}},
	{module: "github.com/ledongthuc/pdf", pkgs: []string{"retrieval"}},
	{module: "github.com/jackc/pgx", pkgs: []string{"session/pgstore", "session/pgstore/pgtest"}, tests: []string{"cmd/wield"}},
	{module: "go.opentelemetry.io/otel/exporters", pkgs: []string{"otel/otlp"}},
	{module: "go.opentelemetry.io/otel/sdk", pkgs: []string{"otel/otlp"}, tests: []string{"otel", "mcp"}},
	{module: "mvdan.cc/sh", pkgs: []string{"shellcmd"}},
	{module: "github.com/santhosh-tekuri/jsonschema", pkgs: []string{"schema"}},
}

// A listed package is what go list reports of one: its imports, and
// those its tests add.
type listed struct {
	imports, testImports []string
}

// goList returns each package of the module (relative path), as go list
// reports it.
func goList(t *testing.T) map[string]listed {
	t.Helper()
	// go test puts its own go command first on PATH.
	cmd := exec.Command("go", "list", "-f",
		"{{.ImportPath}}{{range .Imports}} {{.}}{{end}} |{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listed{}
	for line := range strings.Lines(string(out)) {
		imports, tests, _ := strings.Cut(line, "|")
		f := strings.Fields(imports)
		if len(f) == 0 {
			continue
		}
		if rel, ok := relative(f[0]); ok {
			pkgs[rel] = listed{imports: f[1:], testImports: strings.Fields(tests)}
		}
	}
	return pkgs
}

// documentedImports reads the import list of ARCHITECTURE.md: the first
// fenced block after the heading "## Imports", one line per package,
// "pkg → dep, dep" (or "pkg →" for none).
func documentedImports(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(data, []byte("\n## Imports\n"))
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## Imports" section`)
	}
	docs := map[string][]string{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(after))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			if in {
				return docs
			}
			in = true
			continue
		}
		if !in || strings.TrimSpace(line) == "" {
			continue
		}
		pkg, deps, ok := strings.Cut(line, "→")
		if !ok {
			t.Fatalf("ARCHITECTURE.md imports: line %q has no →", line)
		}
		var list []string
		for d := range strings.SplitSeq(deps, ",") {
			if d = strings.TrimSpace(d); d != "" {
				list = append(list, d)
			}
		}
		docs[strings.TrimSpace(pkg)] = list
	}
	t.Fatal("ARCHITECTURE.md: the imports block is not closed")
	return nil
}

// documentedPackages reads the package table of ARCHITECTURE.md: the
// first table after the heading "## Packages", whose rows start with the
// package in backquotes ("." for package wield). It returns how many rows
// name each package.
func documentedPackages(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(data, []byte("\n## Packages\n"))
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## Packages" section`)
	}
	rows := map[string]int{}
	in := false
	for line := range strings.Lines(string(after)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if in {
				break
			}
			continue
		}
		in = true
		cell, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		cell = strings.TrimSpace(cell)
		if cell == "package" || strings.Trim(cell, "- ") == "" {
			continue // the header and its rule
		}
		name, ok := strings.CutPrefix(cell, "`")
		if name, _, found := strings.Cut(name, "`"); ok && found {
			rows[name]++
			continue
		}
		t.Errorf("ARCHITECTURE.md's package table: row %q does not start with a package in backquotes", line)
	}
	return rows
}

// TestArchitecture checks ARCHITECTURE.md against go list (its import
// list, and one row of its package table for every package) and the rules
// it states: the layers, the tool families' imports of each other, that
// nothing imports cmd/, and the heavy modules confined to their packages.
// Every rule must name packages that exist.
func TestArchitecture(t *testing.T) {
	pkgs := goList(t)
	actual := map[string][]string{}
	for pkg, l := range pkgs {
		if !library(pkg) {
			continue
		}
		var deps []string
		for _, imp := range l.imports {
			if rel, ok := relative(imp); ok {
				deps = append(deps, rel)
			}
		}
		slices.Sort(deps)
		actual[pkg] = deps
	}
	names := slices.Sorted(maps.Keys(actual))

	t.Run("imports", func(t *testing.T) {
		docs := documentedImports(t)
		var want strings.Builder
		stale := false
		for _, pkg := range names {
			d, documented := docs[pkg]
			want.WriteString(pkg + " → " + strings.Join(actual[pkg], ", ") + "\n")
			if !documented || !slices.Equal(actual[pkg], d) {
				stale = true
			}
		}
		for pkg := range docs {
			if _, ok := actual[pkg]; !ok {
				stale = true
			}
		}
		if stale {
			t.Errorf("ARCHITECTURE.md's import list is stale; the packages import:\n%s", want.String())
		}
	})

	t.Run("packages", func(t *testing.T) {
		rows := documentedPackages(t)
		for _, pkg := range names {
			switch n := rows[pkg]; {
			case n == 0:
				t.Errorf("ARCHITECTURE.md's package table has no row for %s: add one (`%s` | its job | built)", pkg, pkg)
			case n > 1:
				t.Errorf("ARCHITECTURE.md's package table has %d rows for %s: one package, one row", n, pkg)
			}
		}
		for pkg := range rows {
			if _, ok := actual[pkg]; !ok {
				t.Errorf("ARCHITECTURE.md's package table has a row for %s, which is no package of the module", pkg)
			}
		}
	})

	t.Run("layers", func(t *testing.T) {
		for _, l := range layers {
			for _, p := range l.pkgs {
				if !slices.ContainsFunc(names, func(pkg string) bool { return matches(p, pkg) }) {
					t.Errorf("the %s layer names %s, which matches no package: remove it from layers in architecture_test.go", l.name, p)
				}
			}
		}
		for pkg, allowed := range toolImports {
			for _, d := range allowed {
				if !slices.Contains(actual[pkg], d) {
					t.Errorf("toolImports lets %s import %s, which it does not: remove the exception from architecture_test.go", pkg, d)
				}
			}
		}
		for _, pkg := range names {
			layer, claims := layerOf(pkg)
			switch {
			case claims == 0:
				t.Errorf("%s is in no layer: add it to one in architecture_test.go (layers)", pkg)
				continue
			case claims > 1:
				t.Errorf("%s is in %d layers: a package is in one layer", pkg, claims)
			}
			for _, d := range actual[pkg] {
				if strings.HasPrefix(d, "cmd/") {
					t.Errorf("%s imports %s: nothing imports cmd/", pkg, d)
					continue
				}
				dl, _ := layerOf(d)
				switch {
				case dl < layer:
					t.Errorf("%s imports %s: a %s package imports nothing of the %s layer above it", pkg, d, layers[layer].name, layers[dl].name)
				case dl == layer && layers[layer].name == "tool family" && !slices.Contains(toolImports[pkg], d):
					t.Errorf("%s imports %s: a tool family imports another only where toolImports in architecture_test.go lists it", pkg, d)
				}
			}
		}
	})

	t.Run("confined", func(t *testing.T) {
		mod, err := os.ReadFile("go.mod")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range confined {
			if !bytes.Contains(mod, []byte("\t"+c.module)) {
				t.Errorf("confined names %s, which go.mod does not require: remove it from architecture_test.go", c.module)
			}
			for _, pkg := range slices.Concat(c.pkgs, c.tests) {
				if _, ok := actual[pkg]; !ok {
					t.Errorf("confined lets %s import %s, but %s is no package of the module", pkg, c.module, pkg)
				}
			}
		}
		for _, pkg := range names {
			for _, c := range confined {
				for _, imp := range pkgs[pkg].imports {
					if strings.HasPrefix(imp, c.module) && !slices.Contains(c.pkgs, pkg) {
						t.Errorf("%s imports %s: only %s may import %s", pkg, imp, strings.Join(c.pkgs, ", "), c.module)
					}
				}
				for _, imp := range pkgs[pkg].testImports {
					if strings.HasPrefix(imp, c.module) && !slices.Contains(c.pkgs, pkg) && !slices.Contains(c.tests, pkg) {
						t.Errorf("the tests of %s import %s: only %s may import %s", pkg, imp, strings.Join(slices.Concat(c.pkgs, c.tests), ", "), c.module)
					}
				}
			}
		}
	})
}

// TestTemporalConfined checks that Temporal stays in the module
// durable/temporal: no Go file outside it (in any of the repository's
// modules) imports a go.temporal.io package, and the root go.mod does not
// require one, so that users of the library do not download Temporal's SDK.
func TestTemporalConfined(t *testing.T) {
	const temporal = "go.temporal.io/"
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(mod), "\n") {
		// The wield binary built with -tags temporal links the module
		// durable/temporal (cmd/wield/durable_temporal.go), whose
		// requirements the root go.mod lists as indirect.
		if strings.Contains(line, temporal) && !strings.HasSuffix(strings.TrimSpace(line), "// indirect") {
			t.Errorf("go.mod:%d: %s: the root module must not require Temporal's modules; they belong to durable/temporal/go.mod", i+1, strings.TrimSpace(line))
		}
	}

	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// The go command ignores testdata and names starting with . or _.
			if path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) ||
				filepath.ToSlash(path) == "durable/temporal" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, temporal) {
				t.Errorf("%s imports %s: only the module durable/temporal may import Temporal's SDK", fset.Position(imp.Pos()), p)
			}
			// The default build must not link Temporal: only files built
			// with -tags temporal may import the module that does.
			if strings.HasPrefix(p, "github.com/wieldhq/wield/durable/temporal") {
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				if !strings.HasPrefix(string(src), "//go:build temporal\n") {
					t.Errorf("%s imports %s without the build constraint //go:build temporal on its first line", fset.Position(imp.Pos()), p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
