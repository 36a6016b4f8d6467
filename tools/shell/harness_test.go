package shell

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
)

// A harness runs the shell tools against a temporary workspace and
// checks, after each case and at the end, that no process, goroutine or
// file descriptor is left behind.
type harness struct {
	t     *testing.T
	dir   string
	root  *os.Root
	jobs  *Jobs
	s     *shell
	since uint64 // clock ticks before the first command
	tag   string // harnessVar=<random>, in the environment of every process the test starts
	fds   int
	n     atomic.Int64
}

func newHarness(t *testing.T, cfg Config, withJobs bool) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir()}
	// Other tests and other wield processes may run shell commands on this
	// machine at the same time; a tag in the environment of everything this
	// test starts tells its processes from theirs.
	token := rand.Text()
	t.Setenv(harnessVar, token)
	h.tag = harnessVar + "=" + token
	var err error
	if h.root, err = os.OpenRoot(h.dir); err != nil {
		t.Fatal(err)
	}
	if withJobs && cfg.Jobs == nil {
		if h.jobs, err = NewJobs(nil); err != nil {
			t.Fatal(err)
		}
		cfg.Jobs = h.jobs
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = 300 * time.Millisecond
	}
	h.s = newShell(cfg)
	h.since = clockTicks() - 1
	// Warm up, so that descriptors the runtime opens once (the poller)
	// are not counted as leaks. A supervisor adds no such descriptor, and
	// takes long to start in a -race binary: the warm-up runs without.
	direct := cfg
	direct.Supervisor = nil
	if _, err := newShell(direct).run(t.Context(), h.call(), RunInput{Command: "true | true"}); err != nil {
		t.Fatal(err)
	}
	h.fds = countFDs(t)
	t.Cleanup(func() {
		if h.jobs != nil {
			h.jobs.Close()
		}
		h.assertClean()
		h.root.Close()
	})
	return h
}

func (h *harness) call() *tool.Call {
	return &tool.Call{Root: h.root, ID: "call" + strconv.FormatInt(h.n.Add(1), 10), SessionID: "test"}
}

// run calls run_shell_command's handler.
func (h *harness) run(in RunInput) tool.Result {
	h.t.Helper()
	res, err := h.s.run(h.t.Context(), h.call(), in)
	if err != nil {
		h.t.Fatalf("run(%q): fault %v", in.Command, err)
	}
	checkResult(h.t, res)
	return res
}

func (h *harness) output(in OutputInput) tool.Result {
	h.t.Helper()
	res, err := h.s.output(h.t.Context(), h.call(), in)
	if err != nil {
		h.t.Fatalf("shell_output(%q): fault %v", in.JobID, err)
	}
	checkResult(h.t, res)
	return res
}

func (h *harness) kill(id string) tool.Result {
	h.t.Helper()
	res, err := h.s.kill(h.t.Context(), h.call(), KillInput{JobID: id})
	if err != nil {
		h.t.Fatalf("shell_kill(%q): fault %v", id, err)
	}
	checkResult(h.t, res)
	return res
}

// job returns the running background job id.
func (h *harness) job(id string) *proc {
	h.t.Helper()
	p := h.jobs.job(id)
	if p == nil {
		h.t.Fatalf("no job %q", id)
	}
	return p
}

// assertClean checks that nothing of the commands run so far survives.
func (h *harness) assertClean() {
	h.t.Helper()
	if ps := shellProcesses(h.since, h.tag); len(ps) > 0 {
		h.t.Errorf("processes of commands survive:\n%s", strings.Join(ps, "\n"))
	}
	if g := shellGoroutines(); g != "" {
		h.t.Errorf("goroutines of commands survive:\n%s", g)
	}
	if n := countFDs(h.t); n != h.fds {
		h.t.Errorf("%d open file descriptors, want %d:\n%s", n, h.fds, listFDs())
	}
}

// checkResult checks what every result must satisfy.
func checkResult(t *testing.T, res tool.Result) {
	t.Helper()
	if !res.Success && res.Error == "" {
		t.Errorf("failed result without an error: %+v", res)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not marshal: %v", err)
	}
	if !utf8Valid(res.Output) {
		t.Errorf("output is not valid UTF-8: %q", res.Output)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// data returns res's RunData.
func data(t *testing.T, res tool.Result) RunData {
	t.Helper()
	d, ok := res.Data.(RunData)
	if !ok {
		t.Fatalf("result data is %T, want RunData: %+v", res.Data, res)
	}
	return d
}

// harnessVar is set in the environment of a test that uses a harness, to
// a value of its own.
const harnessVar = "WIELD_SHELL_TEST_RUN"

// shellProcesses lists the live processes started since ticks whose
// environment holds tag: the commands of one harness, and their
// supervisors. Nothing a command started should outlive it.
func shellProcesses(since uint64, tag string) []string {
	names, _ := os.ReadDir("/proc")
	var out []string
	buf := make([]byte, 1024)
	self := os.Getpid()
	for _, e := range names {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		p, ok := readStat(pid, buf)
		if !ok || p.start < since || p.state == 'Z' || p.state == 'X' {
			continue
		}
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return string(kv) == tag }) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			out = append(out, fmt.Sprintf("pid %d (%c, session %d): %s", pid, p.state, p.sid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	p, ok := readStat(pid, make([]byte, 1024))
	return ok && p.state != 'Z' && p.state != 'X'
}

// pidsIn returns the numbers printed after label: in out.
func pidsIn(t *testing.T, out, label string) []int {
	t.Helper()
	var pids []int
	for _, m := range regexp.MustCompile(label+`:(\d+)`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		pids = append(pids, n)
	}
	if len(pids) == 0 {
		t.Fatalf("no %s: pid in output %q", label, out)
	}
	return pids
}

// shellGoroutines returns the stacks of goroutines running the package's
// process code.
func shellGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaks []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "tools/shell.(*proc)") || strings.Contains(g, "tools/shell.(*capture)") {
			leaks = append(leaks, g)
		}
	}
	return strings.Join(leaks, "\n\n")
}

func countFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

func listFDs() string {
	es, _ := os.ReadDir("/proc/self/fd")
	var b strings.Builder
	for _, e := range es {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		fmt.Fprintf(&b, "%s -> %s\n", e.Name(), l)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
