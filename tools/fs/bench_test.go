package fs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// gorootSrc returns $(go env GOROOT)/src, or skips the benchmark.
func gorootSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skip(err)
	}
	return dir
}

func benchTool(b *testing.B, tl *tool.Tool, dir string, in any) {
	call := testCall(b, dir)
	args, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := tl.Handler().Handle(b.Context(), call, args)
		if err != nil || !res.Success {
			b.Fatalf("%v %s", err, res.Error)
		}
	}
}

// The GOROOT benchmarks measure the tools alone, in process; bench/fs.sh
// compares whole commands with ripgrep.

func BenchmarkGlobGOROOT(b *testing.B) {
	benchTool(b, NewGlob(Config{}), gorootSrc(b), GlobInput{Pattern: "**/*.go", CaseSensitive: true})
}

func BenchmarkSearchLiteralGOROOT(b *testing.B) {
	benchTool(b, NewSearch(Config{}), gorootSrc(b), SearchInput{Pattern: "Marshal"})
}

func BenchmarkSearchRegexGOROOT(b *testing.B) {
	benchTool(b, NewSearch(Config{}), gorootSrc(b), SearchInput{Pattern: `func \w+Marshal\w*\(`})
}

func BenchmarkSearchFoldGOROOT(b *testing.B) {
	no := false
	benchTool(b, NewSearch(Config{}), gorootSrc(b), SearchInput{Pattern: "content-type", CaseSensitive: &no})
}
