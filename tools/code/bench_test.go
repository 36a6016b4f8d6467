package code_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/code"
)

// BenchmarkRunCode measures a call of run_code that does nothing, in each
// language, against the bare interpreter doing nothing: the difference is
// what run_code adds per call (the scratch directory, the prelude, the
// sandbox helper's start and the sandbox's set-up). The helper is the test
// binary, or the program WIELD_SANDBOX_HELPER names (bench/code.sh sets it
// to wield, as in production).
func BenchmarkRunCode(b *testing.B) {
	needs(b, "python3", "node", "bash")
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	helper := []string{exe, sandbox.HelperArg}
	if p := os.Getenv("WIELD_SANDBOX_HELPER"); p != "" {
		helper = []string{p, sandbox.HelperArg}
	}
	// The interpreters' own programs, not wrappers such as pyenv's shims,
	// which cost more to start than everything measured here.
	python := "python3"
	if out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output(); err == nil {
		python = strings.TrimSpace(string(out))
	}
	interp := map[code.Language]string{code.Python: python}
	cases := []struct {
		lang, code string
		bare       []string
	}{
		{"python", "pass", []string{python, "-c", "pass"}},
		{"javascript", "0", []string{"node", "-e", "0"}},
		{"bash", "true", []string{"bash", "-c", "true"}},
	}
	for _, c := range cases {
		b.Run(c.lang+"/bare", func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				if err := exec.Command(c.bare[0], c.bare[1:]...).Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		sb, err := sandbox.New(b.Context(), sandbox.Config{Helper: helper, Mechanism: m})
		if err != nil {
			b.Logf("%s: %v", m, err)
			continue
		}
		t := code.NewRunCode(code.Config{Sandbox: sb, Interpreters: interp})
		for _, c := range cases {
			b.Run(c.lang+"/"+string(m), func(b *testing.B) {
				args, _ := json.Marshal(map[string]any{"language": c.lang, "code": c.code})
				defer cpuPerOp(b)()
				for b.Loop() {
					res, err := t.Handler().Handle(b.Context(), &tool.Call{}, args)
					if err != nil || !res.Success {
						b.Fatalf("run_code = %+v, %v", res, err)
					}
				}
			})
		}
	}
}

// cpuPerOp reports, when the function it returns is called, the CPU time
// (user and system) that the benchmark's process and its children spent
// per operation: on a loaded machine, where waiting for a CPU dominates
// the wall-clock time, it is the steadier measure of work.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var self, children syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
		var d time.Duration
		for _, r := range []syscall.Rusage{self, children} {
			d += time.Duration(r.Utime.Nano() + r.Stime.Nano())
		}
		return d
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64(cpu()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}
