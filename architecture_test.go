package wield_test

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
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

// foundation packages (and those below them, such as llm/openai and
// tool/tooltest) are the floor: they import nothing of the agent layer
// (capability packages, tools, policy, mcp, the CLI).
var foundation = []string{"schema", "tool", "llm", "session", "shellcmd", "workspace"}

func isFoundation(pkg string) bool {
	if strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/") {
		return true
	}
	for _, f := range foundation {
		if pkg == f || strings.HasPrefix(pkg, f+"/") {
			return true
		}
	}
	return false
}

// confined lists heavy third-party modules and the only wield packages
// that may import them, so that a provider SDK, the MCP SDK or the CLI
// framework does not leak into packages that do not need it.
var confined = map[string][]string{
	"github.com/openai/openai-go":         {"llm/openai"},
	"github.com/anthropics/anthropic-sdk": {"llm/anthropic"},
	"google.golang.org/genai":             {"llm/gemini"},
	"github.com/modelcontextprotocol/":    {"mcp"},
	"github.com/spf13/cobra":              {"cmd/wield"},
	"github.com/charmbracelet/":           {"tui", "cmd/wield"},
	"charm.land/":                         {"tui", "cmd/wield"},
	"github.com/jezek/xgb":                {"tools/desktop", "cmd/wield"}, // cmd/wield only quiets its logger
	"github.com/yuin/goldmark":            {"cmd/wield"},
	"go.temporal.io/":                     {"durable/temporal"},
	"go.opentelemetry.io/otel/exporters":  {"otel/otlp"},
	"go.opentelemetry.io/otel/sdk":        {"otel/otlp"},
	"github.com/chromedp/":                {"tools/web", "tools/desktop"},
	"github.com/google/go-github/":        {"tools/github"},
	"github.com/landlock-lsm/":            {"sandbox"},
	"codeberg.org/readeck/go-readability": {"internal/readable"},
	"github.com/JohannesKaufmann/":        {"internal/readable"},
	"github.com/ledongthuc/pdf":           {"retrieval"},
}

// goList returns each package of the module (relative path) with its
// imports, as go list reports them.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	// go test puts its own go command first on PATH.
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if rel, ok := relative(f[0]); ok {
			pkgs[rel] = f[1:]
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

// TestArchitecture checks ARCHITECTURE.md's import list against go list,
// and the rules it states: the foundation imports no capability, no
// library package imports the CLI, heavy SDKs stay in their packages.
func TestArchitecture(t *testing.T) {
	pkgs := goList(t)
	actual := map[string][]string{}
	for pkg, imports := range pkgs {
		if !library(pkg) {
			continue
		}
		var deps []string
		for _, imp := range imports {
			if rel, ok := relative(imp); ok {
				deps = append(deps, rel)
			}
		}
		slices.Sort(deps)
		actual[pkg] = deps
	}
	docs := documentedImports(t)
	var names []string
	for pkg := range actual {
		names = append(names, pkg)
	}
	for pkg := range docs {
		if _, ok := actual[pkg]; !ok {
			names = append(names, pkg)
		}
	}
	slices.Sort(names)
	var want strings.Builder
	stale := false
	for _, pkg := range names {
		a, ok := actual[pkg]
		d, documented := docs[pkg]
		if ok {
			want.WriteString(pkg + " → " + strings.Join(a, ", ") + "\n")
		}
		if !ok || !documented || !slices.Equal(a, d) {
			stale = true
		}
	}
	if stale {
		t.Errorf("ARCHITECTURE.md's import list is stale; the packages import:\n%s", want.String())
	}

	for pkg, deps := range actual {
		for _, d := range deps {
			if isFoundation(pkg) && !isFoundation(d) {
				t.Errorf("%s imports %s: the foundation (%s, internal/…) imports no capability package", pkg, d, strings.Join(foundation, ", "))
			}
			if d == "cmd/wield" || strings.HasPrefix(d, "cmd/") {
				t.Errorf("%s imports %s: library packages never import cmd/", pkg, d)
			}
		}
		for _, imp := range pkgs[pkg] {
			for prefix, allowed := range confined {
				if strings.HasPrefix(imp, prefix) && !slices.Contains(allowed, pkg) {
					t.Errorf("%s imports %s, which only %s may import", pkg, imp, strings.Join(allowed, ", "))
				}
			}
		}
	}
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
