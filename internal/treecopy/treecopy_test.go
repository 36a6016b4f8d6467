package treecopy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCopyLeavesOutLinksAndSkipped(t *testing.T) {
	top := t.TempDir()
	src, dst := filepath.Join(top, "src"), filepath.Join(top, "dst")
	for _, d := range []string{"src/a/b", "src/.git", "dst"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]os.FileMode{"src/a/b/f.txt": 0o644, "src/run.sh": 0o755, "src/.git/HEAD": 0o644, "outside.txt": 0o644}
	for f, mode := range files {
		if err := os.WriteFile(filepath.Join(top, f), []byte(f), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(top, "outside.txt"), filepath.Join(src, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := Copy(src, dst, ".git"); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dst, p)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if want := []string{".", "a", "a/b", "a/b/f.txt", "run.sh"}; !slices.Equal(got, want) {
		t.Errorf("copied %v, want %v", got, want)
	}
	if info, err := os.Stat(filepath.Join(dst, "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh lost its executable bit: %v %v", info, err)
	}
}
