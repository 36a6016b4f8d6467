package sandbox_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/wieldhq/wield/sandbox"
)

// BenchmarkStart measures the start cost of the sandbox: running true
// plainly, and under each mechanism. The helper is the test binary, or
// the program WIELD_SANDBOX_HELPER names (bench/sandbox.sh sets it to
// wield, whose start costs more: it initialises every package of wield).
func BenchmarkStart(b *testing.B) {
	h := helper(b)
	if p := os.Getenv("WIELD_SANDBOX_HELPER"); p != "" {
		h = []string{p, sandbox.HelperArg}
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock, sandbox.NoIsolation} {
		b.Run(string(m), func(b *testing.B) {
			sb, err := sandbox.New(b.Context(), sandbox.Config{Helper: h, Mechanism: m, Minimum: sandbox.LevelLimits})
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
		})
	}
}
