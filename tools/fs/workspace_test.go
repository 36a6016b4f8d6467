package fs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/internal/fstree"
)

// An escapeCase is a path argument that must be refused with "PATH is
// outside the workspace". The same table runs against every tool.
type escapeCase struct {
	name string
	path string
}

// escapeTree makes a workspace next to a directory "outside" that holds a
// file "secret" and a directory "dir", plus links that lead there, and
// returns the workspace directory and the paths that must be refused.
func escapeTree(t testing.TB) (string, []escapeCase) {
	t.Helper()
	top := t.TempDir()
	outside := filepath.Join(top, "outside")
	ws := filepath.Join(top, "ws")
	for _, d := range []string{filepath.Join(outside, "dir"), filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(outside, "secret"), filepath.Join(outside, "dir", "secret")} {
		if err := os.WriteFile(f, []byte("SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link-file":    "../outside/secret",
		"link-dir":     "../outside/dir",
		"chain1":       "chain2",
		"chain2":       "sub/chain3",
		"sub/chain3":   "../../outside/secret",
		"dotdot":       "..",
		"abs-file":     filepath.Join(outside, "secret"),
		"abs-dir":      filepath.Join(outside, "dir"),
		"sub/up":       "../..",
		"sub/new-link": "../../outside/new",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return ws, []escapeCase{
		{"dot dot", "../outside/secret"},
		{"dot dot chain", "sub/../../outside/secret"},
		{"absolute path outside", filepath.Join(outside, "secret")},
		{"absolute path of proc", "/proc/self/environ"},
		{"link to a file outside", "link-file"},
		{"link to a directory outside", "link-dir/secret"},
		{"link to a directory outside, itself", "link-dir"},
		{"chain of links", "chain1"},
		{"link to dot dot", "dotdot/outside/secret"},
		{"absolute link to a file", "abs-file"},
		{"absolute link to a directory", "abs-dir/secret"},
		{"link up twice", "sub/up/outside/secret"},
		{"dangling link leading out", "sub/new-link"},
	}
}

func TestWorkspaceRefusesEscapes(t *testing.T) {
	dir, cases := escapeTree(t)
	w, _ := openWorkspace(testCall(t, dir))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel, err := w.Rel(c.path)
			if err == nil {
				rel, err = w.Resolve(rel)
			}
			if !errors.Is(err, fstree.ErrOutside) {
				t.Errorf("Resolve(%q) = %q, %v; want ErrOutside", c.path, rel, err)
			}
			if r, err := w.Rel(c.path); err == nil {
				if f, err := w.Open(r); !errors.Is(err, fstree.ErrOutside) {
					if f != nil {
						f.Close()
					}
					t.Errorf("Open(%q) = %v; want ErrOutside", c.path, err)
				}
			}
		})
	}
}

func TestNoWorkspace(t *testing.T) {
	if _, ok := openWorkspace(nil); ok {
		t.Error("openWorkspace(nil) reported a workspace")
	}
}
