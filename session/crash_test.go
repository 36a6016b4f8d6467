package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// crashChild appends rounds to a session forever, printing "step" after
// every event and "committed N" after each commit, until it is killed.
func crashChild(dir, id string) {
	ctx := context.Background()
	st := &Store{Dir: dir}
	s, err := st.Open(ctx, id)
	if errors.Is(err, ErrNotFound) {
		s, err = st.Create(ctx, Header{ID: id})
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	step := func(err error) {
		if err != nil {
			fmt.Fprintln(out, "error:", err)
			out.Flush()
			os.Exit(1)
		}
		fmt.Fprintln(out, "step")
		out.Flush()
	}
	for n := len(s.State().Pools) + 1; ; n++ {
		step(s.Begin(ctx, "round "+strconv.Itoa(n)))
		calls := []llm.ToolCall{{ID: fmt.Sprintf("r%d-a", n), Name: "echo", Arguments: json.RawMessage(`{"text":"a"}`)},
			{ID: fmt.Sprintf("r%d-b", n), Name: "echo", Arguments: json.RawMessage(`{"text":"b"}`)}}
		step(s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}}))
		for _, c := range calls {
			step(s.RecordCall(ctx, &tool.Call{ID: c.ID, Tool: c.Name}, c.Arguments))
		}
		for _, c := range calls {
			step(s.RecordResult(ctx, &tool.Call{ID: c.ID, Tool: c.Name}, tool.Text(strings.Repeat("x", 100*n%4000))))
		}
		step(s.Commit(ctx))
		fmt.Fprintln(out, "committed", n)
		out.Flush()
	}
}

// TestCrashRecovery kills a writing child process at random moments and
// checks after each kill that the session opens, keeps every committed
// round, and gives every dangling call exactly one interrupted result.
func TestCrashRecovery(t *testing.T) {
	const kills = 60
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(20261123, 7))
	committed := map[int]bool{} // rounds the child reported committed
	repaired := 0               // dangling calls given an interrupted result
	st := &Store{Dir: dir, Logger: slog.New(slog.DiscardHandler)}
	for i := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "WIELD_SESSION_CHILD=crash", "WIELD_SESSION_DIR="+dir, "WIELD_SESSION_ID=crash")
		stdout, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		r := bufio.NewScanner(stdout)
		// Kill after a random number of events: sometimes mid-round,
		// sometimes right after a commit, sometimes several rounds in.
		for left := rng.IntN(30); left > 0 && r.Scan(); {
			line := r.Text()
			if n, ok := strings.CutPrefix(line, "committed "); ok {
				k, _ := strconv.Atoi(n)
				committed[k] = true
				continue
			}
			if strings.HasPrefix(line, "error:") {
				t.Fatalf("kill %d: child failed: %s", i, line)
			}
			left--
		}
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()

		// What the killed child left, before Open repairs it: the calls
		// without a result, and the calls repaired after earlier kills.
		before, err := st.Load(t.Context(), "crash")
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotFound) {
			continue // killed before the journal was created
		}
		if err != nil {
			t.Fatalf("kill %d: reading the journal failed: %v", i, err)
		}
		dangling := map[string]bool{}
		for _, c := range unanswered(append(slices.Clone(before.Turns), before.Pool...)) {
			dangling[c.ID] = true
		}
		wasInterrupted := map[string]bool{}
		for _, tr := range append(slices.Clone(before.Turns), before.Pool...) {
			if tr.Kind == TurnToolResponse && tr.Interrupted {
				wasInterrupted[tr.CallID] = true
			}
		}

		s, err := st.Open(t.Context(), "crash")
		if err != nil {
			t.Fatalf("kill %d: reopening failed: %v", i, err)
		}
		got := s.State()
		must(t, s.Close())
		if got.Open() {
			t.Fatalf("kill %d: transaction still open after Open", i)
		}
		checkOneResultPerCall(t, got.Turns)
		// Each dangling call got exactly one result, marked interrupted;
		// every other result is the child's own, unmarked.
		interrupted := map[string]int{}
		for _, tr := range got.Turns {
			if tr.Kind != TurnToolResponse {
				continue
			}
			switch {
			case dangling[tr.CallID] || wasInterrupted[tr.CallID]:
				if !tr.Interrupted || tr.Status != StatusFailed || tr.Output != "Error: "+Interrupted {
					t.Errorf("kill %d: call %s: repaired result = {interrupted: %v, status: %q, output: %q}, want an interrupted failure",
						i, tr.CallID, tr.Interrupted, tr.Status, tr.Output)
				}
				if dangling[tr.CallID] {
					interrupted[tr.CallID]++
				}
			case tr.Interrupted || tr.Status != StatusSucceeded || strings.Trim(tr.Output, "x") != "":
				t.Errorf("kill %d: call %s: result = {interrupted: %v, status: %q, output: %.20q}, want the child's own result",
					i, tr.CallID, tr.Interrupted, tr.Status, tr.Output)
			}
		}
		for id := range dangling {
			if interrupted[id] != 1 {
				t.Errorf("kill %d: dangling call %s has %d interrupted results, want exactly 1", i, id, interrupted[id])
			}
		}
		repaired += len(dangling)
		tasks := map[string]bool{}
		for _, tr := range got.Turns {
			if tr.Kind == TurnUserTask {
				tasks[tr.Text] = true
			}
		}
		for k := range committed {
			if !tasks["round "+strconv.Itoa(k)] {
				t.Fatalf("kill %d: committed round %d is lost", i, k)
			}
		}
		for _, p := range got.Pools {
			if p.Status == PoolOpen {
				t.Fatalf("kill %d: pool %d left open", i, p.Seq)
			}
		}
	}
	if len(committed) == 0 {
		t.Error("no round was ever committed; the kills came too early to test anything")
	}
	if repaired == 0 {
		t.Error("no kill left a dangling call; the repair of dangling calls was not tested")
	}
	t.Logf("%d kills, %d rounds committed, %d dangling calls repaired", kills, len(committed), repaired)
}
