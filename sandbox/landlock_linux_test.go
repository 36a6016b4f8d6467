//go:build linux

package sandbox

import (
	"fmt"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
	"os"
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

// BenchmarkLandlockRules measures what hiding adds to the helper's
// start under Landlock: the walk around the hidden paths and a rule for
// each entry it grants (the ruleset is built and dropped, never
// enforced), for a home directory of 1,000 entries with one hidden
// directory in it. It reports the entries granted.
func BenchmarkLandlockRules(b *testing.B) {
	home := b.TempDir()
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(home, fmt.Sprintf("file-%d", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
		b.Fatal(err)
	}
	hide := []hiddenPath{{Path: filepath.Join(home, ".ssh"), Dir: true}}
	dirs, files := readable(hide)
	entries := float64(len(dirs) + len(files))
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			readable(hide)
		}
		b.ReportMetric(entries, "entries")
	})
	b.Run("walk+rules", func(b *testing.B) {
		attr := &llsyscall.RulesetAttr{HandledAccessFS: uint64(llsyscall.AccessFSReadFile | llsyscall.AccessFSReadDir | llsyscall.AccessFSExecute)}
		for b.Loop() {
			dirs, files := readable(hide)
			fd, err := llsyscall.LandlockCreateRuleset(attr, 0)
			if err != nil {
				b.Fatal(err)
			}
			for i, p := range append(dirs, files...) {
				access := attr.HandledAccessFS
				if i >= len(dirs) {
					access &^= llsyscall.AccessFSReadDir
				}
				pfd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
				if err != nil {
					continue // gone since the walk, as restrictLandlock allows
				}
				if err := llsyscall.LandlockAddPathBeneathRule(fd, &llsyscall.PathBeneathAttr{ParentFd: pfd, AllowedAccess: access}, 0); err != nil {
					b.Fatal(err)
				}
				unix.Close(pfd)
			}
			unix.Close(fd)
		}
		b.ReportMetric(entries, "entries")
	})
}
