package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
)

// TestConcurrent runs many commands at once, foreground and background,
// cancelling some calls and killing some jobs while they run, and checks
// each result and that nothing survives. Run it with -race.
func TestConcurrent(t *testing.T) {
	h := newHarness(t, withSupervisor(Config{KillGrace: 200 * time.Millisecond}), true)
	const n = 24
	var cancels sync.Map
	reg, err := tool.NewRegistry(NewRunShellCommand(withSupervisor(Config{KillGrace: 200 * time.Millisecond, Jobs: h.jobs})))
	if err != nil {
		t.Fatal(err)
	}
	runner := tool.NewRunner(reg, &tool.RunnerOptions{MaxParallel: n, OnEvent: func(e tool.Event) {
		if ev, ok := e.Data.(OutputEvent); ok && strings.Contains(ev.Output, "started") {
			if cancel, ok := cancels.Load(e.CallID); ok {
				cancel.(context.CancelFunc)()
			}
		}
	}})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			switch i % 4 {
			case 0: // plain
				res, err := h.s.run(t.Context(), h.call(), RunInput{Command: fmt.Sprintf("echo %d; echo err%d >&2", i, i)})
				if err != nil || !res.Success || res.Output != fmt.Sprintf("%d\nerr%d\n", i, i) {
					t.Errorf("command %d: %+v, %v", i, res, err)
				}
			case 1: // cancelled at once, whatever it is doing
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				res, err := h.s.run(ctx, h.call(), RunInput{Command: "sleep 1000 & sleep 1000"})
				if err != nil || res.Success || !data(t, res).Cancelled {
					t.Errorf("cancelled command %d: %+v, %v", i, res, err)
				}
			case 2: // cancelled by its progress event, once it has started a session-leaving child
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				id := fmt.Sprintf("c%d", i)
				cancels.Store(id, cancel)
				args, _ := json.Marshal(RunInput{Command: "setsid sleep 1000 & echo started; sleep 1000"})
				res, err := runner.Call(ctx, tool.Call{ID: id, Root: h.root}, tool.Request{ID: id, Name: "run_shell_command", Arguments: args})
				if err != nil || res.Success {
					t.Errorf("cancelled command %d: %+v, %v", i, res, err)
				}
			case 3: // background job, killed
				res, err := h.s.run(t.Context(), h.call(), RunInput{Command: "echo ready; setsid sleep 1000 & sleep 1000", Background: true})
				if err != nil || !res.Success {
					t.Errorf("job %d: %+v, %v", i, res, err)
					return
				}
				id := data(t, res).JobID
				if p := h.jobs.job(id); p != nil {
					p.waitOutput(t.Context(), "ready")
				}
				kill, err := h.s.kill(t.Context(), h.call(), KillInput{JobID: id})
				if err != nil || !kill.Success || !strings.Contains(kill.Output, "Killed job "+id) {
					t.Errorf("kill %d (%s): %+v, %v", i, id, kill, err)
				}
			}
		})
	}
	wg.Wait()
	h.assertClean()
}
