package shell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

func TestContract(t *testing.T) {
	cfg := Config{}
	for _, c := range []struct {
		tool    *tool.Tool
		valid   []string
		invalid []string
	}{
		{NewRunShellCommand(cfg),
			[]string{`{"command":"echo hi"}`, `{"command":"ls","directory":".","timeout_ms":5000,"description":"list"}`, `{"command":""}`},
			[]string{`{}`, `{"command":1}`, `{"command":"a","background":"yes"}`, `{"command":"a","extra":1}`}},
		{NewShellOutput(cfg), []string{`{"job_id":"job-1"}`, `{"job_id":"job-1","tail_lines":5}`},
			[]string{`{}`, `{"job_id":1}`, `{"job_id":"a","tail_lines":"x"}`}},
		{NewShellKill(cfg), []string{`{"job_id":"job-1"}`}, []string{`{}`, `{"job_id":true}`}},
	} {
		if err := tooltest.Check(t.Context(), c.tool, tooltest.Cases{Valid: c.valid, Invalid: c.invalid, Run: true}); err != nil {
			t.Error(err)
		}
	}
}

func TestDescriptionsShowTheLimits(t *testing.T) {
	tools := Tools(Config{Timeout: 90 * time.Second, MaxTimeout: 300 * time.Second, Inactivity: 45 * time.Second, YieldAfter: 20 * time.Second})
	desc := tools[0].Spec().Description
	for _, want := range []string{"90 s", "at most 300000", "45 s", "20 s", "16 MiB"} {
		if !strings.Contains(desc, want) {
			t.Errorf("run_shell_command description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "{{") {
		t.Errorf("description has unrendered template text:\n%s", desc)
	}
	if !strings.Contains(tools[1].Spec().Description, "20 s") {
		t.Errorf("shell_output description lacks the yield time:\n%s", tools[1].Spec().Description)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		in    RunInput
		check func(t *testing.T, h *harness, res tool.Result)
	}{
		{"success", Config{}, RunInput{Command: "echo out; echo err >&2; echo out2"},
			func(t *testing.T, h *harness, res tool.Result) {
				if !res.Success || res.Output != "out\nerr\nout2\n" {
					t.Errorf("result %+v, want success with interleaved output", res)
				}
				if d := data(t, res); d.ExitCode == nil || *d.ExitCode != 0 || d.TimedOut || d.JobID != "" {
					t.Errorf("data %+v, want exit code 0", d)
				}
			}},
		{"exit code", Config{}, RunInput{Command: "echo nope; exit 3"},
			func(t *testing.T, h *harness, res tool.Result) {
				if res.Success || res.Error != "exit code 3" || res.Output != "nope\n" {
					t.Errorf("result %+v, want exit code 3 with its output", res)
				}
			}},
		{"empty command", Config{}, RunInput{Command: "  \n "},
			failsWith("command is empty")},
		{"directory outside the workspace", Config{}, RunInput{Command: "pwd", Directory: ".."},
			failsWith("outside the workspace")},
		{"absolute directory outside the workspace", Config{}, RunInput{Command: "pwd", Directory: "/"},
			failsWith("outside the workspace")},
		{"missing directory", Config{}, RunInput{Command: "pwd", Directory: "nope"},
			failsWith("does not exist")},
		{"directory is a file", Config{}, RunInput{Command: "pwd", Directory: "file.txt"},
			failsWith("not a directory")},
		{"symlink out of the workspace", Config{}, RunInput{Command: "pwd", Directory: "out"},
			failsWith("outside the workspace")},
		{"directory inside the workspace", Config{}, RunInput{Command: "pwd", Directory: "sub/../sub"},
			func(t *testing.T, h *harness, res tool.Result) {
				want, _ := filepath.EvalSymlinks(filepath.Join(h.dir, "sub"))
				if !res.Success || strings.TrimSpace(res.Output) != want {
					t.Errorf("result %+v, want it to run in %s", res, want)
				}
			}},
		{"bad timeout", Config{}, RunInput{Command: "true", TimeoutMs: ptr(int64(700_000))},
			failsWith("timeout_ms must be between 1 and 600000")},
		{"zero timeout", Config{}, RunInput{Command: "true", TimeoutMs: ptr(int64(0))},
			failsWith("timeout_ms must be between")},
		{"binary output", Config{}, RunInput{Command: `printf 'ELF\000\001\002\003'`},
			func(t *testing.T, h *harness, res tool.Result) {
				d := data(t, res)
				if !res.Success || !strings.Contains(res.Output, "[binary output: 7 bytes") || d.SpillPath == "" {
					t.Fatalf("result %+v, want binary output summarised and spilled", res)
				}
				got, err := h.root.ReadFile(d.SpillPath)
				if err != nil || string(got) != "ELF\x00\x01\x02\x03" {
					t.Errorf("spill file = %q, %v; want the raw bytes", got, err)
				}
			}},
		{"invalid UTF-8", Config{}, RunInput{Command: `printf 'valid text, then \377 an invalid byte\n'`},
			func(t *testing.T, h *harness, res tool.Result) {
				if !res.Success || res.Output != "valid text, then \uFFFD an invalid byte\n" {
					t.Errorf("output %q, want the invalid byte replaced", res.Output)
				}
			}},
		{"progress bar", Config{}, RunInput{Command: `printf '10%%\r50%%\r100%%\ndone\r\n'`},
			func(t *testing.T, h *harness, res tool.Result) {
				if res.Output != "100%\ndone\n" {
					t.Errorf("output %q, want carriage-return lines collapsed", res.Output)
				}
			}},
		{"long output is cut and spilled", Config{OutputLimit: 1000}, RunInput{Command: `seq 1 20000`},
			func(t *testing.T, h *harness, res tool.Result) {
				d := data(t, res)
				if !res.Success || len(res.Output) > 1300 || !strings.Contains(res.Output, "bytes omitted") ||
					!strings.HasPrefix(res.Output, "1\n2\n") || !strings.Contains(res.Output, "19999\n20000\n") {
					t.Fatalf("output (%d bytes) %q, want head and tail with a note", len(res.Output), res.Output)
				}
				got, err := h.root.ReadFile(d.SpillPath)
				if err != nil || len(got) != int(d.OutputBytes) || !strings.Contains(res.Output, d.SpillPath) {
					t.Errorf("spill %q: %d bytes, %v; want all %d bytes, named in the output", d.SpillPath, len(got), err, d.OutputBytes)
				}
			}},
		{"flood", Config{MaxOutput: 4 << 20, CaptureLimit: 64 << 10, OutputLimit: 2000}, RunInput{Command: "echo $$; yes flood"},
			func(t *testing.T, h *harness, res tool.Result) {
				d := data(t, res)
				if res.Success || d.Limit != "output" || !d.TimedOut || len(res.Output) > 2500 || !strings.Contains(res.Error, "printed more than") {
					t.Fatalf("result %+v (data %+v), want the output limit to stop it", res, d)
				}
				got, _ := h.root.ReadFile(d.SpillPath)
				if len(got) > 64<<10+200 || !strings.Contains(string(got), "not kept") {
					t.Errorf("spill of %d bytes, want the kept 64 KiB with a note of the gap", len(got))
				}
				// The note says the file is not the whole output.
				if !strings.Contains(res.Output, "the output is in "+d.SpillPath+" but for ") ||
					!strings.Contains(res.Output, "the first 16 KiB and the last 48 KiB of a command's output are kept") || strings.Contains(res.Output, "whole output is in") {
					t.Errorf("output %q, want a note that the middle was not kept", res.Output)
				}
			}},
		{"reads standard input", Config{}, RunInput{Command: `read line; echo "read=$? line=$line"; cat; echo cat=$?`},
			func(t *testing.T, h *harness, res tool.Result) {
				if res.Output != "read=1 line=\ncat=0\n" {
					t.Errorf("output %q, want empty standard input", res.Output)
				}
			}},
		{"opens the terminal", Config{}, RunInput{Command: `exec 3</dev/tty && echo has a terminal || echo no terminal`},
			func(t *testing.T, h *harness, res tool.Result) {
				if !strings.Contains(res.Output, "no terminal") {
					t.Errorf("output %q, want /dev/tty to fail", res.Output)
				}
			}},
		{"exits by signal", Config{}, RunInput{Command: "kill -SEGV $$"},
			func(t *testing.T, h *harness, res tool.Result) {
				d := data(t, res)
				if res.Success || d.Signal != "SIGSEGV" || d.ExitCode != nil || res.Error != "killed by signal SIGSEGV" {
					t.Errorf("result %+v (data %+v), want killed by SIGSEGV", res, d)
				}
			}},
		{"child exits by signal", Config{}, RunInput{Command: "sh -c 'kill -KILL $$'; exit $?"},
			func(t *testing.T, h *harness, res tool.Result) {
				if res.Success || !strings.Contains(res.Error, "exit code 137 (128+9: a process it ran was killed by SIGKILL)") {
					t.Errorf("result %+v, want exit code 137 explained", res)
				}
			}},
		{"wall clock", Config{}, RunInput{Command: "echo pid:$$; sleep 1000", TimeoutMs: ptr(int64(200))},
			func(t *testing.T, h *harness, res tool.Result) {
				d := data(t, res)
				if res.Success || d.Limit != "wall_clock" || !d.TimedOut || !strings.Contains(res.Error, "time limit") {
					t.Errorf("result %+v (data %+v), want the wall-clock limit", res, d)
				}
			}},
		{"inactivity", Config{Inactivity: 200 * time.Millisecond}, RunInput{Command: "echo pid:$$; sleep 1000"},
			func(t *testing.T, h *harness, res tool.Result) {
				d := data(t, res)
				if res.Success || d.Limit != "inactivity" || !strings.Contains(res.Error, "printed nothing for 200ms") {
					t.Errorf("result %+v (data %+v), want the inactivity limit", res, d)
				}
			}},
		{"ignores SIGTERM", Config{KillGrace: 100 * time.Millisecond}, RunInput{Command: "trap '' TERM; echo pid:$$; sleep 1000; sleep 1000", TimeoutMs: ptr(int64(200))},
			func(t *testing.T, h *harness, res tool.Result) {
				if d := data(t, res); d.Limit != "wall_clock" || d.Signal == "" {
					t.Errorf("result %+v (data %+v), want stopped by a signal at the wall-clock limit", res, d)
				}
			}},
		{"leaves a background child", Config{}, RunInput{Command: "sleep 1000 & echo child:$!"},
			func(t *testing.T, h *harness, res tool.Result) {
				if !res.Success {
					t.Errorf("result %+v, want success", res)
				}
				for _, pid := range pidsIn(t, res.Output, "child") {
					if alive(pid) {
						t.Errorf("background child %d survives", pid)
					}
				}
			}},
		{"setsid grandchild", Config{}, RunInput{Command: "setsid sh -c 'sleep 1000 >/dev/null 2>&1 & echo gc:$!'; setsid sleep 1000 & echo gc:$!"},
			func(t *testing.T, h *harness, res tool.Result) {
				for _, pid := range pidsIn(t, res.Output, "gc") {
					if alive(pid) {
						t.Errorf("grandchild %d in its own session survives", pid)
					}
				}
			}},
		{"double fork daemon holding the pipe", Config{}, RunInput{Command: "mkfifo f; (setsid sh -c 'echo gc:$$ > f; exec sleep 1000' &); cat f"},
			func(t *testing.T, h *harness, res tool.Result) {
				for _, pid := range pidsIn(t, res.Output, "gc") {
					if alive(pid) {
						t.Errorf("daemon %d survives", pid)
					}
				}
			}},
		{"grandchild ignoring SIGTERM in its own session", Config{KillGrace: 100 * time.Millisecond},
			RunInput{Command: "setsid sh -c 'trap \"\" TERM; sleep 1000' >/dev/null & echo gc:$!; sleep 1000", TimeoutMs: ptr(int64(200))},
			func(t *testing.T, h *harness, res tool.Result) {
				for _, pid := range pidsIn(t, res.Output, "gc") {
					if alive(pid) {
						t.Errorf("grandchild %d survives", pid)
					}
				}
			}},
		{"secrets are not passed", Config{AllowEnv: []string{"WIELD_TEST_ALLOWED_TOKEN"}},
			RunInput{Command: `echo "[$WIELD_TEST_API_KEY][$WIELD_TEST_PASSWORD][$WIELD_TEST_ALLOWED_TOKEN][$WIELD_TEST_PLAIN][$PAGER][$GIT_PAGER][$GIT_TERMINAL_PROMPT][$GIT_EDITOR]"`},
			func(t *testing.T, h *harness, res tool.Result) {
				if want := "[][][kept][plain][cat][cat][0][true]\n"; res.Output != want {
					t.Errorf("output %q, want %q", res.Output, want)
				}
			}},
	}
	t.Setenv("WIELD_TEST_API_KEY", "k")
	t.Setenv("WIELD_TEST_PASSWORD", "p")
	t.Setenv("WIELD_TEST_ALLOWED_TOKEN", "kept")
	t.Setenv("WIELD_TEST_PLAIN", "plain")
	t.Setenv("PAGER", "less")
	outside := t.TempDir()
	// Every case runs with the shell as wield's child and under a
	// supervisor, as cmd/wield runs it.
	for _, mode := range []struct {
		name string
		cfg  func(Config) Config
	}{{"direct", func(c Config) Config { return c }}, {"supervised", withSupervisor}} {
		t.Run(mode.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					h := newHarness(t, mode.cfg(tt.cfg), true)
					os.MkdirAll(filepath.Join(h.dir, "sub"), 0o755)
					os.WriteFile(filepath.Join(h.dir, "file.txt"), nil, 0o644)
					os.Symlink(outside, filepath.Join(h.dir, "out"))
					res := h.run(tt.in)
					tt.check(t, h, res)
					h.assertClean()
				})
			}
		})
	}
}

// failsWith checks that the call failed with a message holding msg.
func failsWith(msg string) func(t *testing.T, h *harness, res tool.Result) {
	return func(t *testing.T, h *harness, res tool.Result) {
		t.Helper()
		if res.Success || !strings.Contains(res.Error, msg) {
			t.Errorf("result %+v, want a failure saying %q", res, msg)
		}
	}
}

func TestRunWithoutWorkspace(t *testing.T) {
	s := newShell(Config{})
	res, err := s.run(t.Context(), &tool.Call{}, RunInput{Command: "true"})
	if err != nil || res.Success || !strings.Contains(res.Error, "needs a workspace") {
		t.Errorf("run without a root = %+v, %v; want a failure", res, err)
	}
}

func TestRunWithoutShell(t *testing.T) {
	h := newHarness(t, Config{}, false)
	s := newShell(Config{Shell: "no-such-shell-wield"})
	res, err := s.run(t.Context(), h.call(), RunInput{Command: "true"})
	if err != nil || res.Success || !strings.Contains(res.Error, "no shell") {
		t.Errorf("run with a missing shell = %+v, %v; want a failure", res, err)
	}
}

// TestProgressAndCancel runs a command through a runner, reads its
// progress events and cancels the call when the command has printed
// "ready".
func TestProgressAndCancel(t *testing.T) {
	h := newHarness(t, Config{}, false)
	reg, err := tool.NewRegistry(NewRunShellCommand(withSupervisor(Config{KillGrace: 200 * time.Millisecond})))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	var streamed strings.Builder
	r := tool.NewRunner(reg, &tool.RunnerOptions{OnEvent: func(e tool.Event) {
		if ev, ok := e.Data.(OutputEvent); ok && e.Kind == tool.EventProgress {
			mu.Lock()
			streamed.WriteString(ev.Output)
			if strings.Contains(streamed.String(), "ready") {
				cancel()
			}
			mu.Unlock()
		}
	}})
	args, _ := json.Marshal(RunInput{Command: "echo pid:$$; echo ready; sleep 1000"})
	res, err := r.Call(ctx, tool.Call{Root: h.root, SessionID: "s"}, tool.Request{Name: "run_shell_command", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success {
		t.Errorf("result %+v, want a cancelled call", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(streamed.String(), "pid:") {
		t.Errorf("streamed %q, want the output as progress", streamed.String())
	}
	h.assertClean()
}
