package code

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheckFileName checks that every file name checkFileName accepts
// stays, once joined to a scratch directory, beneath it and outside its
// run directory.
func FuzzCheckFileName(f *testing.F) {
	for _, s := range []string{"a.txt", "in/data.csv", "../x", "/etc/passwd", "a/../../x", ".wield-run/main.py", "./.wield-run", "a//b", ".", "", `a\b`, "x/./y/../z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if checkFileName(name) != nil {
			return
		}
		const scratch = "/scratch"
		p := filepath.Join(scratch, filepath.FromSlash(name))
		rel, err := filepath.Rel(scratch, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			t.Fatalf("checkFileName accepted %q, which is %q: outside the scratch directory", name, p)
		}
		if rel == runDir || strings.HasPrefix(rel, runDir+"/") {
			t.Fatalf("checkFileName accepted %q, which is in the run directory", name)
		}
	})
}
