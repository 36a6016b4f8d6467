package shell

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
)

func TestBackgroundJob(t *testing.T) {
	h := newHarness(t, withSupervisor(Config{}), true)
	res := h.run(RunInput{Command: "echo pid:$$; echo line1; echo ready; read x < /dev/null; while :; do sleep 1000; done", Background: true, Description: "a job"})
	d := data(t, res)
	if !res.Success || d.JobID != "job-2" || !d.Running || len(d.Jobs) != 1 || d.Jobs[0].Description != "a job" {
		t.Fatalf("result %+v (data %+v), want job-2 running and listed", res, d)
	}
	p := h.job(d.JobID)
	if err := p.waitOutput(t.Context(), "ready"); err != nil {
		t.Fatal(err)
	}
	out := h.output(OutputInput{JobID: d.JobID})
	if !out.Success || !strings.Contains(out.Output, "Job job-2 is running") || !strings.Contains(out.Output, "line1\nready\n") {
		t.Errorf("shell_output = %+v, want the output so far", out)
	}
	again := h.output(OutputInput{JobID: d.JobID})
	if strings.Contains(again.Output, "line1") {
		t.Errorf("second shell_output = %q, want only output not read yet", again.Output)
	}
	tail := h.output(OutputInput{JobID: d.JobID, TailLines: ptr(1)})
	if !strings.HasSuffix(tail.Output, "\n\nready\n") {
		t.Errorf("tail_lines 1 = %q, want the last line", tail.Output)
	}
	if bad := h.output(OutputInput{JobID: d.JobID, TailLines: ptr(0)}); bad.Success {
		t.Errorf("tail_lines 0 = %+v, want a failure", bad)
	}
	kill := h.kill(d.JobID)
	kd := data(t, kill)
	if !kill.Success || !kd.Killed || kd.Running || kd.Signal != "SIGTERM" {
		t.Errorf("shell_kill = %+v (data %+v), want the job killed by SIGTERM", kill, kd)
	}
	h.assertClean()
	// A finished job can still be read, and killing it again is harmless.
	if out := h.output(OutputInput{JobID: d.JobID}); !strings.Contains(out.Output, "has finished: killed by SIGTERM") {
		t.Errorf("shell_output after kill = %+v", out)
	}
	if again := h.kill(d.JobID); !again.Success || !strings.Contains(again.Output, "Nothing to kill") {
		t.Errorf("second shell_kill = %+v", again)
	}
}

func TestKillIgnoringSIGTERM(t *testing.T) {
	h := newHarness(t, withSupervisor(Config{KillGrace: 100 * time.Millisecond}), true)
	res := h.run(RunInput{Command: "trap '' TERM; echo ready; sleep 1000; sleep 1000", Background: true})
	id := data(t, res).JobID
	if err := h.job(id).waitOutput(t.Context(), "ready"); err != nil {
		t.Fatal(err)
	}
	kill := h.kill(id)
	if d := data(t, kill); d.Signal != "SIGKILL" {
		t.Errorf("shell_kill = %+v (data %+v), want SIGKILL after SIGTERM was ignored", kill, d)
	}
	h.assertClean()
}

func TestUnknownJob(t *testing.T) {
	h := newHarness(t, withSupervisor(Config{}), true)
	if res := h.output(OutputInput{JobID: "job-9"}); res.Success || !strings.Contains(res.Error, "no background jobs at all") {
		t.Errorf("shell_output(job-9) = %+v", res)
	}
	h.run(RunInput{Command: "sleep 1000", Background: true})
	if res := h.kill("job-9"); res.Success || !strings.Contains(res.Error, "the background jobs are job-2") {
		t.Errorf("shell_kill(job-9) = %+v", res)
	}
	// A foreground command is not a job.
	if res := h.output(OutputInput{JobID: "job-1"}); res.Success {
		t.Errorf("shell_output(job-1) of a foreground command = %+v", res)
	}
}

func TestNoJobTable(t *testing.T) {
	h := newHarness(t, Config{}, false)
	if res := h.run(RunInput{Command: "true", Background: true}); res.Success || !strings.Contains(res.Error, "background jobs are not available") {
		t.Errorf("background without a table = %+v", res)
	}
	if res := h.output(OutputInput{JobID: "job-1"}); res.Success || !strings.Contains(res.Error, "no job table") {
		t.Errorf("shell_output without a table = %+v", res)
	}
}

func TestYieldToBackground(t *testing.T) {
	jobs, err := NewJobs(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withSupervisor(Config{YieldAfter: 100 * time.Millisecond}), false)
	h.jobs = jobs // closed by the harness
	// The table is given after the harness's warm-up, so that the warm-up
	// command cannot yield into it.
	h.s.cfg.Jobs = jobs
	res, err := h.s.run(t.Context(), h.call(), RunInput{Command: "echo pid:$$; sleep 1000"})
	if err != nil {
		t.Fatal(err)
	}
	d := data(t, res)
	if !res.Success || !d.Running || d.JobID == "" || !strings.Contains(res.Output, "goes on as background job "+d.JobID) {
		t.Fatalf("result %+v (data %+v), want the command yielded to a job", res, d)
	}
	if list := jobs.List(); len(list) != 1 || !list[0].Running {
		t.Errorf("jobs.List() = %+v, want the yielded job", list)
	}
	jobs.Close()
	if res, _ := h.s.run(t.Context(), h.call(), RunInput{Command: "true"}); res.Success || !strings.Contains(res.Error, "shutting down") {
		t.Errorf("run after Close = %+v, want a failure", res)
	}
}

func TestCloseStopsEverything(t *testing.T) {
	h := newHarness(t, withSupervisor(Config{}), true)
	for range 3 {
		h.run(RunInput{Command: "setsid sleep 1000 & sleep 1000", Background: true})
	}
	// A foreground command, stopped by Close while its call waits; the
	// runner's progress events say when it has started.
	reg, err := tool.NewRegistry(NewRunShellCommand(withSupervisor(Config{Jobs: h.jobs})))
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var once sync.Once
	r := tool.NewRunner(reg, &tool.RunnerOptions{OnEvent: func(e tool.Event) {
		if ev, ok := e.Data.(OutputEvent); ok && strings.Contains(ev.Output, "ready") {
			once.Do(func() { close(started) })
		}
	}})
	var wg sync.WaitGroup
	var fg tool.Result
	wg.Go(func() {
		args, _ := json.Marshal(RunInput{Command: "echo ready; sleep 1000"})
		var err error
		fg, err = r.Call(t.Context(), tool.Call{Root: h.root}, tool.Request{Name: "run_shell_command", Arguments: args})
		if err != nil {
			t.Error(err)
		}
	})
	<-started
	h.jobs.Close()
	wg.Wait()
	if fg.Success || !strings.Contains(fg.Error, "shutting down") {
		t.Errorf("foreground result %+v, want stopped at shutdown", fg)
	}
	for _, j := range h.jobs.List() {
		if j.Running {
			t.Errorf("job %s still running after Close", j.ID)
		}
	}
	h.assertClean()
}

func TestKeepFinished(t *testing.T) {
	jobs, err := NewJobs(&JobsOptions{KeepFinished: 2})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withSupervisor(Config{Jobs: jobs}), false)
	h.jobs = jobs
	for range 4 {
		res := h.run(RunInput{Command: "true", Background: true})
		h.job(data(t, res).JobID).wait()
	}
	var ids []string
	for _, j := range jobs.List() {
		ids = append(ids, j.ID)
	}
	if got := strings.Join(ids, ","); got != "job-4,job-5" {
		t.Errorf("kept jobs %s, want the last two", got)
	}
}

// TestSubreaper runs the subreaper case in a child process, since
// PR_SET_CHILD_SUBREAPER changes the whole process.
func TestSubreaper(t *testing.T) {
	if os.Getenv("WIELD_SHELL_SUBREAPER_CHILD") == "1" {
		subreaperChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSubreaper$", "-test.v")
	cmd.Env = append(os.Environ(), "WIELD_SHELL_SUBREAPER_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "subreaper child ok") {
		t.Errorf("child test: %v\n%s", err, out)
	}
}

func subreaperChild(t *testing.T) {
	jobs, err := NewJobs(&JobsOptions{Subreaper: true})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{Jobs: jobs}, false)
	h.jobs = jobs
	// The coprocess leaves the session and prints two pids; when the shell
	// exits, they are orphaned to this process, and must be killed and
	// reaped.
	for _, cmd := range []string{
		`coproc setsid sh -c 'echo gc:$$; sleep 1000 & echo gc:$!; exec sleep 1000'; read -r a <&"${COPROC[0]}"; read -r b <&"${COPROC[0]}"; echo $a $b`,
		"mkfifo f; (setsid sh -c 'echo gc:$$ > f; exec sleep 1000' &); cat f",
	} {
		res := h.run(RunInput{Command: cmd})
		for _, pid := range pidsIn(t, res.Output, "gc") {
			if alive(pid) {
				t.Errorf("orphan %d survives", pid)
			}
		}
	}
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("zombie children left: %v", z)
	}
	h.assertClean()
	if !t.Failed() {
		t.Log("subreaper child ok")
	}
}

// zombieChildren lists this process's zombie children.
func zombieChildren() []int {
	names, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid, make([]byte, 1024)); ok && p.ppid == os.Getpid() && p.state == 'Z' {
			out = append(out, pid)
		}
	}
	return out
}
