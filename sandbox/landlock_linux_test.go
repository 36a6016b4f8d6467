//go:build linux

package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadable checks the walk that grants Landlock access around the
// hidden paths: every other entry of each directory on the way, no
// symbolic link, and none of those directories themselves.
func TestReadable(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tree(t, root, "home/.ssh/id", "home/.netrc", "home/.bashrc", "home/src/", "home/.config/gh/hosts.yml",
		"home/.config/git/config", "home/.config/git/credentials", "home/link => .ssh", "other/")
	hide := []hiddenPath{
		{Path: filepath.Join(root, "home/.config/gh"), Dir: true},
		{Path: filepath.Join(root, "home/.config/git/credentials")},
		{Path: filepath.Join(root, "home/.netrc")},
		{Path: filepath.Join(root, "home/.ssh"), Dir: true},
	}
	dirs, files := readable(hide)
	// Beneath root only; above it, each directory on the way is
	// replaced by its other entries just the same.
	beneath := func(list []string) []string {
		var out []string
		for _, p := range list {
			if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
				out = append(out, rel)
			}
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff([]string{filepath.Join("home", "src"), "other"}, beneath(dirs)); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{filepath.Join("home", ".bashrc"), filepath.Join("home", ".config", "git", "config")}, beneath(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, p := range append(dirs, files...) {
		if p == "/" || p == root || filepath.Dir(root) == p {
			t.Errorf("readable granted %s, a directory above a hidden path", p)
		}
	}
}
