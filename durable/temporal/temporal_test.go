package temporal

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/durable/temporal/internal/devserver"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
	"github.com/wieldhq/wield/session/pgstore/pgtest"
	"github.com/wieldhq/wield/tool"
)

// workerEnv, when set in a test binary's environment, makes it a worker
// process (see TestMain) configured by the variable's JSON.
const workerEnv = "WIELD_DURABLE_TEST_WORKER"

type workerConfig struct {
	HostPort, Namespace, Queue, Sessions, Marks string
	// Postgres and Schema, when set, put the sessions in PostgreSQL
	// (package session/pgstore) instead of the Sessions directory.
	Postgres, Schema string
	Script           script
}

// store returns the session store cfg names.
func (cfg *workerConfig) store() *session.Store {
	st := &session.Store{Dir: cfg.Sessions}
	if cfg.Postgres != "" {
		st.Backend = pgstore.Open(cfg.Postgres, &pgstore.Options{Schema: cfg.Schema})
	}
	return st
}

func TestMain(m *testing.M) {
	if raw := os.Getenv(workerEnv); raw != "" {
		os.Exit(runWorkerProcess(raw))
	}
	os.Exit(m.Run())
}

// runWorkerProcess serves a worker until it is killed. It prints "ready"
// once polling, and "started ID" when a blocking mark call starts.
func runWorkerProcess(raw string) int {
	var cfg workerConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	c, err := Dial(ctx, Options{HostPort: cfg.HostPort, Namespace: cfg.Namespace, TaskQueue: cfg.Queue})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	h := &testHost{store: cfg.store(), script: cfg.Script, marks: cfg.Marks,
		started: func(id string) { fmt.Printf("started %s\n", id) }}
	w := c.NewWorker(h, WorkerOptions{StickyTimeout: time.Second})
	if err := w.w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("ready")
	select {}
}

func dialTest(t *testing.T) (*Client, string) {
	t.Helper()
	queue := "wield-test-" + rand.Text()[:10]
	c, err := Dial(t.Context(), Options{HostPort: devserver.Address(t), Namespace: devserver.Namespace(), TaskQueue: queue})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, queue
}

// startWorker runs an in-process worker for the test's duration.
func startWorker(t *testing.T, c *Client, h Host) {
	t.Helper()
	w := c.NewWorker(h, WorkerOptions{})
	if err := w.w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.w.Stop)
}

// theScript: two parallel looks and a mark, then a mark and a call that
// needs approval, then the answer.
var theScript = script{
	{call("c1", "look", `{"what":"a"}`), call("c2", "look", `{"what":"b"}`), call("c3", "mark", `{}`)},
	{call("c4", "mark", `{}`), call("c5", "risky", `{}`)},
}

// TestRun runs a multi-round run with parallel calls and an approval on a
// real Temporal server, and checks its session against a local run of
// the same agent: the same conversation, each call applied once.
func TestRun(t *testing.T) {
	c, _ := dialTest(t)
	dir := t.TempDir()
	h := &testHost{store: &session.Store{Dir: filepath.Join(dir, "sessions")}, script: theScript, marks: filepath.Join(dir, "marks")}
	startWorker(t, c, h)

	ctx := t.Context()
	id := "run-" + rand.Text()[:8]
	if err := c.Start(ctx, id, RunInput{SessionID: id, Task: "mark things"}); err != nil {
		t.Fatal(err)
	}
	// An answer may come before the run asks: it is kept.
	if err := c.Approve(ctx, id, agent.Answer{CallID: "c5", Verdict: tool.Allow}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopAnswer || out.Text != "done" || out.Rounds != 3 || out.ToolCalls != 5 {
		t.Fatalf("outcome %+v", out)
	}
	if got := marksOf(h.marks); !reflect.DeepEqual(got, []string{"c3", "c4"}) {
		t.Fatalf("marks %v: each mark call must apply once", got)
	}
	durable := conversation(t, h.store, id)
	recordHistory(t, c, id, "run")

	// The same agent, run locally.
	local := &testHost{store: &session.Store{Dir: filepath.Join(dir, "local")}, script: theScript, marks: filepath.Join(dir, "local-marks")}
	ag, _ := local.Agent(ctx, "")
	s, err := local.store.Create(ctx, session.Header{ID: "local"})
	if err != nil {
		t.Fatal(err)
	}
	lout, err := ag.Run(ctx, s, "mark things")
	if err != nil || lout.Reason != agent.StopApproval {
		t.Fatalf("local run: %+v %v", lout, err)
	}
	if lout, err = ag.Resume(ctx, s, []agent.Answer{{CallID: "c5", Verdict: tool.Allow}}); err != nil || lout.Reason != agent.StopAnswer {
		t.Fatalf("local resume: %+v %v", lout, err)
	}
	s.Close()
	if want := conversation(t, local.store, "local"); !reflect.DeepEqual(durable, want) {
		t.Fatalf("the durable run's session reads\n%s\nthe local run's\n%s", strings.Join(durable, "\n"), strings.Join(want, "\n"))
	}
}

// conversation renders session id's committed conversation, one line a
// message, and checks that every call has exactly one result, right
// after the reply that made it.
func conversation(t *testing.T, store *session.Store, id string) []string {
	t.Helper()
	st, err := store.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Open() {
		t.Fatalf("session %s still has its transaction open", id)
	}
	history, _ := st.Project()
	var lines []string
	for i := 0; i < len(history); i++ {
		m := history[i]
		line := string(m.Role) + ": " + m.Content
		for _, c := range m.ToolCalls {
			line += fmt.Sprintf(" [%s %s %s]", c.ID, c.Name, c.Arguments)
		}
		lines = append(lines, line)
		if len(m.ToolCalls) == 0 {
			continue
		}
		var results []string
		byID := map[string]string{}
		for i+1 < len(history) && history[i+1].Role == llm.RoleTool {
			i++
			results = append(results, history[i].ToolCallID)
			byID[history[i].ToolCallID] = history[i].Content
		}
		var calls []string
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID)
			// In call order, whatever order parallel calls finished in.
			lines = append(lines, "tool "+c.ID+": "+byID[c.ID])
		}
		if !slices.Equal(slices.Sorted(slices.Values(results)), slices.Sorted(slices.Values(calls))) {
			t.Fatalf("session %s: calls %v got results %v", id, calls, results)
		}
	}
	return lines
}

// workerProc is a worker process.
type workerProc struct {
	cmd   *exec.Cmd
	lines chan string
}

func startWorkerProcess(t *testing.T, cfg workerConfig) *workerProc {
	t.Helper()
	raw, _ := json.Marshal(cfg)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(w.kill)
	w.expect(t, "ready")
	return w
}

// expect waits for the worker to print line.
func (w *workerProc) expect(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-w.lines:
			if !ok {
				t.Fatalf("the worker ended before printing %q", want)
			}
			if line == want {
				return
			}
		case <-timeout:
			t.Fatalf("the worker did not print %q within a minute", want)
		}
	}
}

// kill kills the worker and its process group with SIGKILL.
func (w *workerProc) kill() {
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	_ = w.cmd.Wait()
}

// TestWorkerKilled kills the worker running a call, and later the worker
// a run waits on for approval; other workers finish the run. Each call
// has one result, in order; the call that was running when its worker
// died is not run again but gets an interrupted result; the approval
// sent after the restart reaches the run.
func TestWorkerKilled(t *testing.T) {
	t.Run("files", func(t *testing.T) { testWorkerKilled(t, "") })
	// Workers on several machines share their sessions in PostgreSQL.
	t.Run("postgres", func(t *testing.T) { testWorkerKilled(t, pgtest.URL(t)) })
}

func testWorkerKilled(t *testing.T, postgres string) {
	begun := time.Now()
	logf := func(format string, args ...any) {
		t.Logf("%5.1fs "+format, append([]any{time.Since(begun).Seconds()}, args...)...)
	}
	c, queue := dialTest(t)
	dir := t.TempDir()
	cfg := workerConfig{HostPort: devserver.Address(t), Namespace: devserver.Namespace(), Queue: queue,
		Sessions: filepath.Join(dir, "sessions"), Marks: filepath.Join(dir, "marks"),
		Postgres: postgres, Schema: "durable_" + strings.ToLower(rand.Text()[:10]),
		Script: script{
			{call("c1", "look", `{"what":"a"}`), call("c2", "mark", `{"block":true}`)},
			{call("c3", "mark", `{}`), call("c4", "risky", `{}`)},
		}}
	w1 := startWorkerProcess(t, cfg)

	ctx := t.Context()
	id := "killed-" + rand.Text()[:8]
	if err := c.Start(ctx, id, RunInput{SessionID: id, Task: "survive", Heartbeat: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	w1.expect(t, "started c2")
	logf("c2 started on worker 1; killing it")
	w1.kill()

	w2 := startWorkerProcess(t, cfg)
	// The run goes on to the approval and waits there.
	st := waitFor(t, c, id, func(st Status) bool { return len(st.Pending) == 1 })
	if st.Pending[0].ID != "c4" || st.Phase != agent.PhaseApproval {
		t.Fatalf("status %+v", st)
	}
	logf("the run awaits approval on worker 2; killing it")
	w2.kill()
	startWorkerProcess(t, cfg)
	logf("worker 3 ready")
	if err := c.Approve(ctx, id, agent.Answer{CallID: "c4", Verdict: tool.Allow}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	logf("the run finished")
	if out.Reason != agent.StopAnswer || out.Rounds != 3 || out.ToolCalls != 4 {
		t.Fatalf("outcome %+v", out)
	}
	if got := marksOf(cfg.Marks); !reflect.DeepEqual(got, []string{"c2", "c3"}) {
		t.Fatalf("marks %v: each mark call must apply once", got)
	}
	lines := conversation(t, cfg.store(), id)
	if postgres == "" {
		recordHistory(t, c, id, "worker-killed")
	}
	want := []string{
		"user: survive",
		`assistant: round 1 [c1 look {"what":"a"}] [c2 mark {"block":true}]`,
		"tool c1: seen a",
		"tool c2: Error: " + Interrupted,
		`assistant: round 2 [c3 mark {}] [c4 risky {}]`,
		"tool c3: marked c3",
		"tool c4: risky done",
		"assistant: done",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("conversation\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// waitFor asks run id for its status until ok says it is the one wanted.
func waitFor(t *testing.T, c *Client, id string, ok func(Status) bool) Status {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := c.Status(t.Context(), id)
		if err == nil && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: status %+v (%v) not reached within a minute", id, st, err)
		}
		// Polling the run's state: there is no event to wait on from here.
		time.Sleep(50 * time.Millisecond)
	}
}

// TestContinueAsNew runs a run whose history continues every model call
// and checks it ends as a run of one history does.
func TestContinueAsNew(t *testing.T) {
	c, _ := dialTest(t)
	dir := t.TempDir()
	sc := script{{call("c1", "look", `{"what":"a"}`)}, {call("c2", "look", `{"what":"b"}`)}, {call("c3", "mark", `{}`)}}
	h := &testHost{store: &session.Store{Dir: filepath.Join(dir, "sessions")}, script: sc, marks: filepath.Join(dir, "marks")}
	startWorker(t, c, h)
	ctx := t.Context()
	id := "long-" + rand.Text()[:8]
	if err := c.Start(ctx, id, RunInput{SessionID: id, Task: "go long", ContinueEvery: 1}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopAnswer || out.Rounds != 4 || out.ToolCalls != 3 {
		t.Fatalf("outcome %+v", out)
	}
	if got := marksOf(h.marks); !reflect.DeepEqual(got, []string{"c3"}) {
		t.Fatalf("marks %v", got)
	}
	desc, err := c.c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	if first := desc.WorkflowExecutionInfo.GetFirstRunId(); first == desc.WorkflowExecutionInfo.Execution.GetRunId() {
		t.Fatalf("the run never continued as new")
	}
	conversation(t, h.store, id)
}

// TestCancelKillsCommands cancels a run while its shell command runs:
// the command dies with its process group, and the session's
// transaction is closed with the call's result.
func TestCancelKillsCommands(t *testing.T) {
	c, _ := dialTest(t)
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sc := script{{call("c1", "run_shell_command", `{"command":"echo $$ > pid; exec sleep 300"}`)}}
	h := &testHost{store: &session.Store{Dir: filepath.Join(dir, "sessions")}, script: sc, marks: filepath.Join(dir, "marks"), shell: true, root: root}
	startWorker(t, c, h)
	ctx := t.Context()
	id := "cancel-" + rand.Text()[:8]
	if err := c.Start(ctx, id, RunInput{SessionID: id, Task: "wait", Heartbeat: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	pid := 0
	for deadline := time.Now().Add(time.Minute); pid == 0; {
		// Polling for the command's pid file: the command writes it.
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			fmt.Sscan(string(b), &pid)
		} else if time.Now().After(deadline) {
			t.Fatal("the command did not start within a minute")
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err := c.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx, id); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("a cancelled run ended with %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); syscall.Kill(pid, 0) == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("the command (pid %d) outlived its cancelled run by 30 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	st, err := h.store.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Open() {
		t.Fatal("the cancelled run left its transaction open")
	}
	if _, owned := st.Meta[session.MetaRunOwner]; owned {
		t.Fatal("the cancelled run still owns the session")
	}
	history, _ := st.Project()
	if n := len(history); n < 3 || history[n-1].Role != llm.RoleTool || history[n-1].ToolCallID != "c1" {
		t.Fatalf("the call has no result in the session: %+v", history)
	}
}

// tooLong says the prompt is over the context window until compacted is
// set.
type tooLong struct{ compacted *atomic.Bool }

func (p tooLong) Stream(context.Context, *llm.Request, func(llm.Event)) (*llm.Response, error) {
	if !p.compacted.Load() {
		return nil, &llm.APIError{Status: 400, Message: "prompt is too long: 213462 tokens > 200000 maximum"}
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "fits now"}}, nil
}

type flagCompactor struct {
	compacted *atomic.Bool
	usage     atomic.Int64
}

func (c *flagCompactor) MaybeCompact(_ context.Context, _ string, usage llm.Usage) (bool, error) {
	c.usage.Store(int64(usage.InputTokens))
	c.compacted.Store(true)
	return true, nil
}

// TestOverflowCompacts runs a run whose first prompt is over the model's
// context window: the workflow compacts and calls the model again.
func TestOverflowCompacts(t *testing.T) {
	c, _ := dialTest(t)
	dir := t.TempDir()
	var compacted atomic.Bool
	comp := &flagCompactor{compacted: &compacted}
	h := &testHost{store: &session.Store{Dir: filepath.Join(dir, "sessions")}, marks: filepath.Join(dir, "marks"),
		provider: tooLong{&compacted}, compactor: comp}
	startWorker(t, c, h)
	ctx := t.Context()
	id := "overflow-" + rand.Text()[:8]
	if err := c.Start(ctx, id, RunInput{SessionID: id, Task: "a long one"}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopAnswer || out.Text != "fits now" || out.Rounds != 1 {
		t.Fatalf("outcome %+v", out)
	}
	if got := comp.usage.Load(); got != agent.OverflowTokens {
		t.Fatalf("the compactor was asked with %d input tokens", got)
	}
}
