package ignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestParseIndex reads indexes that git wrote in each version and compares
// them with `git ls-files -c`.
func TestParseIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the index test needs it to write indexes")
	}
	tests := []struct {
		name    string
		version string
		init    []string // extra arguments for git init
		extra   func(t *testing.T, dir string)
	}{
		{name: "version 2", version: "2"},
		{name: "version 3 with intent-to-add", version: "3", extra: func(t *testing.T, dir string) {
			write(t, dir, "later.txt")
			runGit(t, dir, "add", "-N", "later.txt")
		}},
		{name: "version 4", version: "4"},
		{name: "sha256", version: "2", init: []string{"--object-format=sha256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			runGit(t, dir, append([]string{"init", "-q"}, tt.init...)...)
			for _, f := range []string{"a", "b/c.go", "b/cd/e", "b/cde", strings.Repeat(strings.Repeat("x", 200)+"/", 3) + "long", "sp ace", "ü.txt"} {
				write(t, dir, f)
			}
			runGit(t, dir, "add", ".")
			if tt.extra != nil {
				tt.extra(t, dir)
			}
			runGit(t, dir, "update-index", "--index-version", tt.version)
			var want []string
			for p := range strings.SplitSeq(runGit(t, dir, "ls-files", "-z", "-c"), "\x00") {
				if p != "" {
					want = append(want, p)
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			hash := 20
			if slices.Contains(tt.init, "--object-format=sha256") {
				hash = 32
			}
			got, err := ParseIndex(data, hash)
			if err != nil {
				t.Fatalf("ParseIndex: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ParseIndex (-git +got):\n%s", diff)
			}
		})
	}
}

func write(t *testing.T, dir, name string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseIndexRejects(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"bad signature", "DIRX\x00\x00\x00\x02\x00\x00\x00\x00"},
		{"version 1", "DIRC\x00\x00\x00\x01\x00\x00\x00\x00"},
		{"too many entries", "DIRC\x00\x00\x00\x02\x00\x10\x00\x00"},
		{"truncated entry", "DIRC\x00\x00\x00\x02\x00\x00\x00\x01" + strings.Repeat("\x00", 70)},
	}
	for _, tt := range tests {
		if _, err := ParseIndex([]byte(tt.data), 20); err == nil {
			t.Errorf("ParseIndex(%s) succeeded, want an error", tt.name)
		}
	}
}

// FuzzParseIndex checks that no input makes the index reader panic or
// return paths it did not read.
func FuzzParseIndex(f *testing.F) {
	entry := func(name string, flags string) string {
		e := strings.Repeat("\x00", 24) + "\x00\x00\x81\xa4" + strings.Repeat("\x00", 12) + strings.Repeat("\x01", 20) + flags + name
		pad := 8 - len(e)%8
		return e + strings.Repeat("\x00", pad)
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x02"+entry("a", "\x00\x01")+entry("bc", "\x00\x02")), 20)
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"+strings.Repeat("\x00", 62)+"\x00abc\x00"), 20)
	f.Fuzz(func(t *testing.T, data []byte, hash int) {
		if hash != 20 && hash != 32 {
			hash = 20
		}
		paths, err := ParseIndex(data, hash)
		if err != nil && paths != nil {
			t.Errorf("ParseIndex returned paths and an error")
		}
		for _, p := range paths {
			if p == "" || len(p) > len(data)*len(paths) {
				t.Errorf("ParseIndex returned an impossible path %q", p)
			}
		}
	})
}
