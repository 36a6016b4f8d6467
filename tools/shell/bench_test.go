package shell

import (
	"os"
	"os/exec"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// BenchmarkExecBashTrue is the baseline: a bare exec.Command of bash -c
// true, with its output collected.
func BenchmarkExecBashTrue(b *testing.B) { benchExec(b, "true") }

// BenchmarkExecBashPipeline is the baseline for a command that forks.
func BenchmarkExecBashPipeline(b *testing.B) { benchExec(b, "true | true") }

func benchExec(b *testing.B, command string) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := exec.Command("bash", "-c", command).CombinedOutput(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunShell runs true through run_shell_command's handler, with a
// job table, in a workspace: the per-command overhead of the tool is the
// difference from BenchmarkExecBashTrue.
func BenchmarkRunShell(b *testing.B) { benchRun(b, "true") }

// BenchmarkRunShellPipeline runs a command that forks, so that the tool
// must read /proc for processes left behind.
func BenchmarkRunShellPipeline(b *testing.B) { benchRun(b, "true | true") }

// BenchmarkRunShellSupervised runs true under a supervisor, as cmd/wield
// does (here the test binary, which TestMain makes one): the cost of the
// supervisor's hop is the difference from BenchmarkRunShell.
func BenchmarkRunShellSupervised(b *testing.B) { benchRun(b, "true", withSupervisor) }

// BenchmarkRunShellPipelineSupervised is BenchmarkRunShellPipeline under
// a supervisor, which tells the host that nothing is left, so that /proc
// is not read.
func BenchmarkRunShellPipelineSupervised(b *testing.B) { benchRun(b, "true | true", withSupervisor) }

func benchRun(b *testing.B, command string, configure ...func(Config) Config) {
	root, err := os.OpenRoot(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	jobs, err := NewJobs(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer jobs.Close()
	cfg := Config{Jobs: jobs}
	for _, f := range configure {
		cfg = f(cfg)
	}
	s := newShell(cfg)
	c := &tool.Call{Root: root, ID: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.run(b.Context(), c, RunInput{Command: command})
		if err != nil || !res.Success {
			b.Fatal(res, err)
		}
	}
}
