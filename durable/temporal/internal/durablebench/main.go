// Command durablebench measures durable runs on a Temporal server (run it
// through bench/durable.sh, which starts one):
//
//   - history: the workflow history's bytes per round for runs of 10, 50
//     and 200 rounds whose conversation grows by about 2 KB a round, next
//     to the session journal's bytes, which do grow;
//   - throughput: -workers worker processes (4) serving -runs concurrent
//     runs (100) of -rounds rounds (5) each, against a scripted model.
//
// The model is scripted in process (no think time, no HTTP): the figures
// are Temporal's and wield's cost per run, not a model's.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wieldhq/wield/agent"
	temporal "github.com/wieldhq/wield/durable/temporal"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

func main() {
	addr := flag.String("temporal", os.Getenv("WIELD_TEMPORAL"), "Temporal frontend `host:port`")
	ns := flag.String("namespace", "default", "Temporal namespace")
	workers := flag.Int("workers", 4, "worker processes for the throughput run")
	runs := flag.Int("runs", 100, "concurrent runs for the throughput run")
	rounds := flag.Int("rounds", 5, "rounds of each throughput run")
	historyRounds := flag.String("history", "10,50,200", "rounds of the history runs")
	pollers := flag.Int("pollers", 0, "long polls per task kind of each worker (0: the SDK's default, 2)")
	serve := flag.String("serve", "", "internal: serve as a worker on this task queue with this sessions directory (queue:dir)")
	flag.Parse()
	if *addr == "" {
		fmt.Fprintln(os.Stderr, "durablebench: no Temporal server: pass -temporal HOST:PORT or run it through bench/durable.sh")
		os.Exit(2)
	}
	opts := temporal.Options{HostPort: *addr, Namespace: *ns}
	if *serve != "" {
		queue, dir, _ := strings.Cut(*serve, ":")
		opts.TaskQueue = queue
		if err := serveWorker(opts, dir, *pollers); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := run(opts, *workers, *runs, *rounds, *historyRounds, *pollers); err != nil {
		fmt.Fprintln(os.Stderr, "durablebench:", err)
		os.Exit(1)
	}
}

func run(opts temporal.Options, workers, runs, rounds int, historyRounds string, pollers int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "durablebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// History bytes per round, one in-process worker.
	opts.TaskQueue = "bench-history-" + rand.Text()[:8]
	c, err := temporal.Dial(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	store := &session.Store{Dir: filepath.Join(dir, "history")}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go c.NewWorker(host{store: store}, temporal.WorkerOptions{}).Run(wctx)
	fmt.Println("workflow history per round (conversation growing about 2 KB a round)")
	fmt.Printf("%8s %8s %12s %14s %16s\n", "rounds", "events", "history B", "history B/rnd", "journal B/rnd")
	for _, f := range strings.Split(historyRounds, ",") {
		var n int
		fmt.Sscan(f, &n)
		id := fmt.Sprintf("hist-%d-%s", n, rand.Text()[:6])
		in := temporal.RunInput{SessionID: id, Task: fmt.Sprintf("rounds=%d", n), Limits: agent.Limits{MaxRounds: n + 1, LoopRepeats: n + 1}, ContinueEvery: n + 1}
		if err := c.Start(ctx, id, in); err != nil {
			return err
		}
		if _, err := c.Wait(ctx, id); err != nil {
			return err
		}
		events, size, err := c.HistoryBytes(ctx, id)
		if err != nil {
			return err
		}
		info, err := os.Stat(store.Path(id))
		if err != nil {
			return err
		}
		fmt.Printf("%8d %8d %12d %14.0f %16.0f\n", n, events, size, float64(size)/float64(n), float64(info.Size())/float64(n))
	}
	stop()

	// Throughput: worker processes on one queue.
	queue := "bench-throughput-" + rand.Text()[:8]
	sessions := filepath.Join(dir, "throughput")
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			_ = syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			_ = p.Wait()
		}
	}()
	for range workers {
		p := exec.Command(self, "-temporal", opts.HostPort, "-namespace", opts.Namespace, "-pollers", fmt.Sprint(pollers), "-serve", queue+":"+sessions)
		p.Stderr = os.Stderr
		p.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := p.Start(); err != nil {
			return err
		}
		procs = append(procs, p)
	}
	opts.TaskQueue = queue
	tc, err := temporal.Dial(ctx, opts)
	if err != nil {
		return err
	}
	defer tc.Close()
	begun := time.Now()
	lat := make([]time.Duration, runs)
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for i := range runs {
		wg.Go(func() {
			id := fmt.Sprintf("tp-%d-%s", i, rand.Text()[:6])
			t0 := time.Now()
			in := temporal.RunInput{SessionID: id, Task: fmt.Sprintf("rounds=%d", rounds), Limits: agent.Limits{MaxRounds: rounds + 1, LoopRepeats: rounds + 1}}
			if err := tc.Start(ctx, id, in); err != nil {
				errs <- err
				return
			}
			out, err := tc.Wait(ctx, id)
			if err == nil && out.Reason != agent.StopAnswer {
				err = fmt.Errorf("run %s ended %s: %s", id, out.Reason, out.Note)
			}
			if err != nil {
				errs <- err
				return
			}
			lat[i] = time.Since(t0)
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	wall := time.Since(begun)
	slices.Sort(lat)
	fmt.Printf("\nthroughput: %d worker processes (%d pollers each), %d concurrent runs of %d rounds (1 tool call each)\n", workers, pollers, runs, rounds)
	fmt.Printf("  wall %.2f s   %.1f runs/s   %.1f rounds/s   run latency p50 %.0f ms  p90 %.0f ms  max %.0f ms\n",
		wall.Seconds(), float64(runs)/wall.Seconds(), float64(runs*(rounds+1))/wall.Seconds(),
		ms(lat[len(lat)/2]), ms(lat[len(lat)*9/10]), ms(lat[len(lat)-1]))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func serveWorker(opts temporal.Options, dir string, pollers int) error {
	c, err := temporal.Dial(context.Background(), opts)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.NewWorker(host{store: &session.Store{Dir: dir, Sync: session.SyncCommit}}, temporal.WorkerOptions{Pollers: pollers}).Run(context.Background())
}

// host serves one agent: the scripted model and the tool "fetch", which
// returns about 2 KB, so that the conversation grows round by round.
type host struct{ store *session.Store }

func (h host) Sessions() *session.Store { return h.store }

func (h host) Agent(context.Context, string) (*agent.Agent, error) {
	type in struct {
		N int `json:"n"`
	}
	fetch := tool.New(tool.Spec{Name: "fetch", Description: "Fetches page n.", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, _ *tool.Call, in in) (tool.Result, error) {
			return tool.Result{Success: true, Output: fmt.Sprintf("page %d: %s", in.N, strings.Repeat("lorem ipsum ", 170))}, nil
		})
	reg, err := tool.NewRegistry(fetch)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{Provider: model{}, Tools: reg, MaxRounds: 1000, LoopRepeats: 1000})
}

// model calls fetch once a round until the task's rounds=N is reached.
type model struct{}

func (model) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	var task string
	round := 0
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llm.RoleUser {
			task = m.Content
			break
		}
		if m.Role == llm.RoleAssistant {
			round++
		}
	}
	var want int
	fmt.Sscanf(task, "rounds=%d", &want)
	resp := &llm.Response{Usage: llm.Usage{InputTokens: len(req.Messages) * 500, OutputTokens: 20}}
	if round >= want {
		resp.Message = llm.Message{Role: llm.RoleAssistant, Content: "done"}
		return resp, nil
	}
	args, _ := json.Marshal(map[string]int{"n": round + 1})
	resp.Message = llm.Message{Role: llm.RoleAssistant, Content: "next",
		ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call-%d", round+1), Name: "fetch", Arguments: args}}}
	return resp, nil
}
