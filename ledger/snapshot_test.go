package ledger_test

import (
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/ledger"
)

func TestSnapshotterTake(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "a")
	write(t, root, "node_modules/x.js", "x")
	write(t, root, ".git/HEAD", "ref")
	write(t, root, ".gitignore", "*.log\nout/\n")
	write(t, root, "app.log", "log")
	write(t, root, "out/bin", "bin")
	write(t, root, "big.bin", string(make([]byte, 2048)))
	if err := os.Symlink("a.txt", filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	s := &ledger.Snapshotter{Dir: t.TempDir(), MaxFileSize: 1024}
	tree, err := s.Take(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range tree.Files {
		paths = append(paths, p)
	}
	if diff := cmp.Diff([]string{".gitignore", "a.txt", "l"}, sorted(paths)); diff != "" {
		t.Errorf("snapshot paths (-want +got):\n%s", diff)
	}
	data, err := s.Blobs().Get(t.Context(), tree.Files["l"].Hash)
	if err != nil || string(data) != "a.txt" {
		t.Errorf("the link's blob = %q, %v; want its target", data, err)
	}
	// A new snapshotter on the same store starts warm from the index, and
	// sees a change.
	write(t, root, "a.txt", "changed")
	s2 := &ledger.Snapshotter{Dir: s.Dir, MaxFileSize: 1024}
	tree2, err := s2.Take(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.txt"}, ledger.Diff(tree, tree2)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

func sorted(s []string) []string {
	return slices.Sorted(slices.Values(s))
}

// genTree writes n small files in directories of 100.
func genTree(tb testing.TB, n int) string {
	tb.Helper()
	root := tb.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), fmt.Appendf(nil, "package d\n\n// file %d\n", i), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// BenchmarkSnapshot measures a snapshot of a 20,000-file tree: cold (an
// empty store: every file read, hashed and stored) and warm (the previous
// snapshot's hashes reused by stat).
func BenchmarkSnapshot(b *testing.B) {
	root := genTree(b, 20_000)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s := &ledger.Snapshotter{Dir: b.TempDir()}
			b.StartTimer()
			if _, err := s.Take(b.Context(), root); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The floor: a bare walk that stats every file and reads nothing,
	// so that a warm snapshot's figure can be read against the machine's.
	b.Run("bare-walk", func(b *testing.B) {
		for b.Loop() {
			err := filepath.WalkDir(root, func(_ string, d iofs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					_, err = d.Info()
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		s := &ledger.Snapshotter{Dir: b.TempDir()}
		if _, err := s.Take(b.Context(), root); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.Take(b.Context(), root); err != nil {
				b.Fatal(err)
			}
		}
	})
}
