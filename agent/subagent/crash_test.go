package subagent_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

func TestMain(m *testing.M) {
	if os.Getenv("WIELD_SUBAGENT_CHILD") == "kill" {
		killChild(os.Getenv("WIELD_SESSION_DIR"))
		return
	}
	os.Exit(m.Run())
}

// killScript has the parent start three children that each call block,
// which never returns; the second task (after the kill) is answered.
const killScript = `{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Child task one"}},{"id":"c2","name":"agent","arguments":{"type":"general","prompt":"Child task two"}},{"id":"c3","name":"agent","arguments":{"type":"general","prompt":"Child task three"}}]}
{"when":"Child task","turn":1,"round":1,"text":"working","tool_calls":[{"name":"echo","arguments":{"text":"x"}},{"name":"block","arguments":{}}]}
{"turn":2,"round":1,"text":"resumed"}`

// printing is a provider that prints "model" before each answer.
type printing struct {
	llm.Provider
	say func(string)
}

func (p printing) Stream(ctx context.Context, req *llm.Request, h func(llm.Event)) (*llm.Response, error) {
	p.say("model")
	return p.Provider.Stream(ctx, req, h)
}

// killChild runs a parent whose three children block in a tool for ever,
// printing "model", "echo" and "blocked" as things happen, until it is
// killed.
func killChild(dir string) {
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Println(s)
	}
	fail := func(err error) {
		say("error: " + err.Error())
		os.Exit(1)
	}
	entries, err := replay.Parse([]byte(killScript))
	if err != nil {
		fail(err)
	}
	rp, err := replay.New(entries)
	if err != nil {
		fail(err)
	}
	p := printing{rp, say}
	echo := tool.New(tool.Spec{Name: "echo", Description: "echo", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, _ *tool.Call, in textIn) (tool.Result, error) {
			say("echo")
			return tool.Text(in.Text), nil
		})
	block := tool.New(tool.Spec{Name: "block", Description: "blocks"},
		func(ctx context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
			say("blocked")
			<-ctx.Done()
			return tool.Failure("stopped"), nil
		})
	reg, err := tool.NewRegistry(echo, block)
	if err != nil {
		fail(err)
	}
	store := &session.Store{Dir: dir}
	r, err := subagent.New(subagent.Config{Provider: p, Tools: reg, Store: store})
	if err != nil {
		fail(err)
	}
	if err := reg.Register(r.Tool()); err != nil {
		fail(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Tools: reg})
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	s, err := store.Create(ctx, session.Header{ID: "parent"})
	if err != nil {
		fail(err)
	}
	_, err = a.Run(ctx, s, "delegate")
	fail(fmt.Errorf("the run ended: %v", err))
}

// TestKillWhileChildrenRun kills wield's process (SIGKILL) at several
// moments while children run, then opens the sessions as the next process
// would and continues the parent: every call, in the parent and in every
// child, has exactly one result, every transaction is closed, and the
// parent's next prompt pairs each agent call with one result.
func TestKillWhileChildrenRun(t *testing.T) {
	// The events: the parent's model call, then each child's model call,
	// echo and block in some order (3 × 3), so 10 in all.
	for _, after := range []int{1, 2, 4, 7, 10} {
		t.Run(fmt.Sprintf("after %d events", after), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "WIELD_SUBAGENT_CHILD=kill", "WIELD_SESSION_DIR="+dir)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			for seen := 0; seen < after; {
				if !sc.Scan() {
					t.Fatalf("the child process ended after %d events", seen)
				}
				if line := sc.Text(); strings.HasPrefix(line, "error:") {
					t.Fatalf("child process: %s", line)
				}
				seen++
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()

			store := &session.Store{Dir: dir, Logger: slog.New(slog.DiscardHandler)}
			parent, err := store.Open(t.Context(), "parent")
			if err != nil {
				t.Fatal(err)
			}
			defer parent.Close()
			st := parent.State()
			if st.Open() {
				t.Fatal("the parent's transaction is still open")
			}
			checkOneResultPerCall(t, "parent", st.Turns)
			var children []string
			for _, turn := range st.Turns {
				if turn.Kind == session.TurnAgentStarted {
					children = append(children, turn.Child)
				}
			}
			if after == 10 && len(children) != 3 {
				t.Errorf("%d children recorded as started, want 3", len(children))
			}
			for _, id := range children {
				cs, err := store.Open(t.Context(), id)
				if err != nil {
					t.Fatalf("child %s: %v", id, err)
				}
				cst := cs.State()
				if err := cs.Close(); err != nil {
					t.Fatal(err)
				}
				if cst.Open() || cst.Header.Child == nil || cst.Header.Child.Session != "parent" {
					t.Errorf("child %s: open %v, link %+v", id, cst.Open(), cst.Header.Child)
				}
				checkOneResultPerCall(t, id, cst.Turns)
				if after == 10 && !hasInterrupted(cst.Turns, "block") {
					t.Errorf("child %s: its blocked call was not closed as interrupted", id)
				}
			}
			if after >= 2 && !hasInterrupted(st.Turns, subagent.ToolName) {
				t.Error("the parent's agent calls were not closed as interrupted")
			}

			// Continue the parent: the next prompt has one result per call.
			entries, _ := replay.Parse([]byte(killScript))
			p, _ := replay.New(entries)
			reg, _ := tool.NewRegistry()
			r, err := subagent.New(subagent.Config{Provider: p, Tools: reg, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			_ = reg.Register(r.Tool())
			a, err := agent.New(agent.Config{Provider: p, Tools: reg})
			if err != nil {
				t.Fatal(err)
			}
			out, err := a.Run(t.Context(), parent, "go on")
			if err != nil || out.Text != "resumed" {
				t.Fatalf("resumed run: %+v, %v", out, err)
			}
			reqs := p.Requests()
			results := map[string]int{}
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.Role == llm.RoleTool {
					results[m.ToolCallID]++
				}
			}
			for id, n := range results {
				if n != 1 {
					t.Errorf("the resumed prompt has %d results for call %s, want 1", n, id)
				}
			}
		})
	}
}

// hasInterrupted reports whether a call of tool in turns got an
// interrupted result.
func hasInterrupted(turns []session.Turn, tool string) bool {
	for _, t := range turns {
		if t.Kind == session.TurnToolResponse && t.Tool == tool && t.Interrupted {
			return true
		}
	}
	return false
}
