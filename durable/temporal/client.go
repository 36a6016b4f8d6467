package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/wieldhq/wield/agent"
)

// DefaultTaskQueue is the task queue runs go to when Options names none.
const DefaultTaskQueue = "wield"

// Options say where Temporal is. The zero value means a server on
// 127.0.0.1:7233, namespace "default", task queue "wield".
type Options struct {
	// HostPort is the frontend's address.
	HostPort string
	// Namespace is the Temporal namespace.
	Namespace string
	// TaskQueue is where runs and their activities are queued.
	TaskQueue string
	// Logger receives the SDK's diagnostics; nil discards them.
	Logger *slog.Logger
}

// A Client starts runs on Temporal, answers their approvals and asks how
// they are doing. It is safe for concurrent use.
type Client struct {
	c     client.Client
	queue string
}

// Dial connects to Temporal.
func Dial(ctx context.Context, opts Options) (*Client, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: opts.HostPort, Namespace: opts.Namespace,
		Logger: log.NewStructuredLogger(logger)})
	if err != nil {
		hp := opts.HostPort
		if hp == "" {
			hp = client.DefaultHostPort
		}
		return nil, fmt.Errorf("connect to Temporal at %s: %w (is the server running? `temporal server start-dev` starts one)", hp, err)
	}
	q := opts.TaskQueue
	if q == "" {
		q = DefaultTaskQueue
	}
	return &Client{c: c, queue: q}, nil
}

// Close closes the connection.
func (c *Client) Close() { c.c.Close() }

// Start starts a run as workflow id. The id names the run from then on
// (for [Client.Approve], [Client.Wait]); starting an id that is running
// fails.
func (c *Client) Start(ctx context.Context, id string, in RunInput) error {
	if len(in.Task) > MaxTaskBytes {
		return fmt.Errorf("the task is %d bytes, over the %d a run's input carries: put it in a file and name the file in the task", len(in.Task), MaxTaskBytes)
	}
	_, err := c.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: c.queue,
		WorkflowExecutionErrorWhenAlreadyStarted: true}, WorkflowName, in)
	if err != nil {
		return fmt.Errorf("start run %s: %w", id, err)
	}
	return nil
}

// Wait waits for run id to end, through every history it continues in,
// and returns its outcome.
func (c *Client) Wait(ctx context.Context, id string) (*agent.Outcome, error) {
	var out agent.Outcome
	if err := c.c.GetWorkflow(ctx, id, "").Get(ctx, &out); err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	return &out, nil
}

// Approve answers a call that run id awaits approval for. An answer that
// arrives before the run asks is kept until it does.
func (c *Client) Approve(ctx context.Context, id string, ans agent.Answer) error {
	if err := c.c.SignalWorkflow(ctx, id, "", SignalApproval, ans); err != nil {
		return fmt.Errorf("send the answer for call %s to run %s: %w", ans.CallID, id, err)
	}
	return nil
}

// Status asks run id what it is doing.
func (c *Client) Status(ctx context.Context, id string) (Status, error) {
	v, err := c.c.QueryWorkflow(ctx, id, "", QueryStatus)
	if err != nil {
		return Status{}, fmt.Errorf("ask run %s for its status: %w", id, err)
	}
	var st Status
	if err := v.Get(&st); err != nil {
		return Status{}, fmt.Errorf("read the status of run %s: %w", id, err)
	}
	return st, nil
}

// Cancel cancels run id: its activities are cancelled (a running command
// is killed with its process group) and its transaction is aborted.
func (c *Client) Cancel(ctx context.Context, id string) error {
	if err := c.c.CancelWorkflow(ctx, id, ""); err != nil {
		return fmt.Errorf("cancel run %s: %w", id, err)
	}
	return nil
}

// HistoryBytes returns the size of the current history of run id, as
// Temporal stores it.
func (c *Client) HistoryBytes(ctx context.Context, id string) (events, size int, err error) {
	it := c.c.GetWorkflowHistory(ctx, id, "", false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return events, size, err
		}
		events++
		size += e.Size()
	}
	return events, size, nil
}

// WorkerOptions configure a [Worker]; the zero value works.
type WorkerOptions struct {
	// MaxConcurrentActivities caps the activities the worker runs at
	// once; zero means the SDK's default.
	MaxConcurrentActivities int
	// Pollers is the number of long polls the worker keeps open for each
	// kind of task (workflow steps, activities); zero means the SDK's
	// default, 2. Many concurrent runs want more.
	Pollers int
	// StickyTimeout is how long a run's next workflow step waits for the
	// worker that ran its last one (which has the run in its cache)
	// before any worker takes it: after a worker is lost, its runs go on
	// elsewhere this much later. Zero means the SDK's default, 5 s.
	StickyTimeout time.Duration
}

// A Worker runs runs' workflows and activities from the client's task
// queue.
type Worker struct {
	w worker.Worker
}

// NewWorker returns a worker whose activities are served from h.
func (c *Client) NewWorker(h Host, opts WorkerOptions) *Worker {
	w := worker.New(c.c, c.queue, worker.Options{MaxConcurrentActivityExecutionSize: opts.MaxConcurrentActivities,
		StickyScheduleToStartTimeout:     opts.StickyTimeout,
		MaxConcurrentActivityTaskPollers: opts.Pollers, MaxConcurrentWorkflowTaskPollers: opts.Pollers})
	Register(w, NewActivities(h))
	return &Worker{w: w}
}

// Run runs the worker until ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	<-ctx.Done()
	w.w.Stop()
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// Register registers the workflow and acts with w, under their fixed
// names.
func Register(w worker.Registry, acts *Activities) {
	w.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowName})
	for name, fn := range map[string]any{
		activityBegin: acts.Begin, activityCallModel: acts.CallModel, activityCallTool: acts.CallTool,
		activityPause: acts.Pause, activityCompact: acts.Compact, activityFinish: acts.Finish,
	} {
		w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}
