package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/sandbox"
)

// BenchmarkStart measures the start cost of the sandbox: running true
// plainly, and under each mechanism. The helper is the test binary, or
// the program WIELD_SANDBOX_HELPER names (bench/sandbox.sh sets it to
// wield, whose start costs more: it initialises every package of wield).
//
// Under each isolating mechanism, "default" hides what is hidden by
// default for the caller's own home directory; "nothing-hidden" shows
// everything (Config.Show {"/"}), as the sandbox did before it hid
// anything; and "home-of-1000" hides the defaults of a home directory of
// 1,000 entries with a secret at each default path, the most the
// Landlock walk is likely to meet.
func BenchmarkStart(b *testing.B) {
	h, truePath := benchHelper(b)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(string(sandbox.NoIsolation), func(b *testing.B) {
		benchTrue(b, sandbox.Config{Helper: h, Mechanism: sandbox.NoIsolation, Minimum: sandbox.LevelLimits}, truePath)
	})
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		b.Run(string(m), func(b *testing.B) {
			b.Run("default", func(b *testing.B) {
				benchTrue(b, sandbox.Config{Helper: h, Mechanism: m}, truePath)
			})
			b.Run("nothing-hidden", func(b *testing.B) {
				benchTrue(b, sandbox.Config{Helper: h, Mechanism: m, Show: []string{"/"}}, truePath)
			})
			b.Run("home-of-1000", func(b *testing.B) {
				home := b.TempDir()
				b.Setenv("HOME", home)
				b.Setenv("XDG_CONFIG_HOME", "")
				for i := range 1000 {
					if err := os.WriteFile(filepath.Join(home, fmt.Sprintf("file-%d", i)), nil, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				for i, p := range sandbox.CredentialPaths(home, "") {
					secret{path: p, dir: i%2 == 1, marker: "secret"}.plant(b)
				}
				benchTrue(b, sandbox.Config{Helper: h, Mechanism: m}, truePath)
			})
		})
	}
}

// benchHelper returns the sandbox helper the benchmarks start, the test
// binary or the program WIELD_SANDBOX_HELPER names, and the path of true,
// the command they run.
func benchHelper(b *testing.B) (h []string, truePath string) {
	b.Helper()
	h = helper(b)
	if p := os.Getenv("WIELD_SANDBOX_HELPER"); p != "" {
		h = []string{p, sandbox.HelperArg}
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	return h, truePath
}

// benchTrue starts a sandbox with cfg and measures running truePath in
// it, with one scratch directory for all the runs.
func benchTrue(b *testing.B, cfg sandbox.Config, truePath string) {
	b.Helper()
	sb, err := sandbox.New(b.Context(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	scratch := b.TempDir()
	for b.Loop() {
		res, err := sb.Run(b.Context(), &sandbox.Command{Args: []string{truePath}, Scratch: scratch})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("Run(true) = %+v, %v", res, err)
		}
	}
}
