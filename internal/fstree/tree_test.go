package fstree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTreeResolve(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"a/b/file":  "x",
		"link":      "->a/b",
		"chain":     "->link/file",
		"a/up":      "->../a/b/file",
		"a/self":    "->.",
		"abs":       "", // replaced below by an absolute link inside
		"dangle":    "->missing/x",
		"loop1":     "->loop2",
		"loop2":     "->loop1",
		"sub/inner": "->../a",
	})
	os.Remove(filepath.Join(dir, "abs"))
	if err := os.Symlink(filepath.Join(dir, "a", "b", "file"), filepath.Join(dir, "abs")); err != nil {
		t.Fatal(err)
	}
	w := New(openRoot(t, dir))
	tests := []struct {
		in, want string
		err      bool
	}{
		{"", ".", false},
		{".", ".", false},
		{"a/b/file", "a/b/file", false},
		{"link/file", "a/b/file", false},
		{"chain", "a/b/file", false},
		{"a/up", "a/b/file", false},
		{"a/self/self/b", "a/b", false},
		{"abs", "a/b/file", false},
		{filepath.Join(dir, "a", "b"), "a/b", false},
		{"dangle", "missing/x", false},
		{"new/dir/file", "new/dir/file", false},
		{"sub/inner/b/file", "a/b/file", false},
		{"loop1", "", true},
	}
	for _, tt := range tests {
		rel, err := w.Rel(tt.in)
		if err == nil {
			rel, err = w.Resolve(rel)
		}
		if (err != nil) != tt.err || rel != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q (error %v)", tt.in, rel, err, tt.want, tt.err)
		}
	}
	// An absolute link inside the workspace, which os.Root refuses, opens.
	f, err := w.Open("abs")
	if err != nil {
		t.Fatalf("Open(abs) = %v", err)
	}
	f.Close()
}
