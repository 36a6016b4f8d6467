package devserver_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/wieldhq/wield/durable/temporal/internal/devserver"
)

// fakeTB records what Address does to a test: Fatal and Skip end the
// calling goroutine, as they do on a real test.
type fakeTB struct {
	testing.TB
	failed, skipped string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatal(args ...any) {
	f.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Skip(args ...any) {
	f.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func TestAddress(t *testing.T) {
	tests := []struct {
		name               string
		addr, allow, ci    string
		want               string
		wantFail, wantSkip bool
	}{
		{name: "set", addr: "127.0.0.1:7233", want: "127.0.0.1:7233"},
		{name: "set in CI", addr: "127.0.0.1:7233", ci: "true", want: "127.0.0.1:7233"},
		{name: "unset fails", wantFail: true},
		{name: "unset with skips allowed skips", allow: "1", wantSkip: true},
		{name: "unset in CI fails even with skips allowed", allow: "1", ci: "true", wantFail: true},
		{name: "unset with another allow value fails", allow: "yes", wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("WIELD_TEMPORAL", tt.addr)
			t.Setenv("WIELD_ALLOW_SKIP", tt.allow)
			t.Setenv("CI", tt.ci)
			tb := &fakeTB{TB: t}
			var got string
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = devserver.Address(tb)
			}()
			<-done
			if got != tt.want {
				t.Errorf("Address = %q, want %q", got, tt.want)
			}
			if (tb.failed != "") != tt.wantFail || (tb.skipped != "") != tt.wantSkip {
				t.Fatalf("failed = %q, skipped = %q; want fail %v, skip %v", tb.failed, tb.skipped, tt.wantFail, tt.wantSkip)
			}
			if msg := tb.failed + tb.skipped; msg != "" && !strings.Contains(msg, "scripts/temporal-dev.sh --exec") {
				t.Errorf("the message does not say how to run the tests: %q", msg)
			}
		})
	}
}

func TestNamespace(t *testing.T) {
	t.Setenv("WIELD_TEMPORAL_NAMESPACE", "")
	if got := devserver.Namespace(); got != "default" {
		t.Errorf("Namespace() with WIELD_TEMPORAL_NAMESPACE unset = %q, want default", got)
	}
	t.Setenv("WIELD_TEMPORAL_NAMESPACE", "runs")
	if got := devserver.Namespace(); got != "runs" {
		t.Errorf("Namespace() = %q, want runs", got)
	}
}

func greet(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var greeting string
	err := workflow.ExecuteActivity(ctx, hello, name).Get(ctx, &greeting)
	return greeting, err
}

func hello(ctx context.Context, name string) (string, error) {
	return "hello, " + name, nil
}

// TestServer runs a workflow with one activity on the development server,
// with a worker on a task queue of its own: the harness works end to end.
func TestServer(t *testing.T) {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{
		HostPort:  devserver.Address(t),
		Namespace: devserver.Namespace(),
		Logger:    logger,
	})
	if err != nil {
		t.Fatalf("dialling the Temporal server: %v", err)
	}
	defer c.Close()

	queue := "devserver-test-" + rand.Text()
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(greet)
	w.RegisterActivity(hello)
	if err := w.Start(); err != nil {
		t.Fatalf("starting the worker: %v", err)
	}
	defer w.Stop()

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, greet, "wield")
	if err != nil {
		t.Fatalf("starting the workflow: %v", err)
	}
	var got string
	if err := run.Get(ctx, &got); err != nil {
		t.Fatalf("the workflow failed: %v", err)
	}
	if want := "hello, wield"; got != want {
		t.Errorf("the workflow returned %q, want %q", got, want)
	}

	desc, err := c.DescribeWorkflowExecution(ctx, queue, run.GetRunID())
	if err != nil {
		t.Fatalf("describing the workflow: %v", err)
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Errorf("the workflow's status is %v, want completed", st)
	}
	var activities int
	iter := c.GetWorkflowHistory(ctx, queue, run.GetRunID(), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatalf("reading the history: %v", err)
		}
		if ev.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_COMPLETED {
			activities++
		}
	}
	if activities != 1 {
		t.Errorf("the history has %d completed activities, want 1", activities)
	}
}
