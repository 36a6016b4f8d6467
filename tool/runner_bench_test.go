package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wieldhq/wield/tool"
)

type benchInput struct {
	Path  string `json:"path"`
	Limit int    `json:"limit"`
	Force bool   `json:"force"`
}

func benchRunner(b *testing.B, opts *tool.RunnerOptions) *tool.Runner {
	b.Helper()
	noop := tool.New(tool.Spec{Name: "noop", Description: "does nothing",
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(context.Context, *tool.Call, benchInput) (tool.Result, error) {
			return tool.Result{Success: true, Output: "ok"}, nil
		})
	reg, err := tool.NewRegistry(noop)
	if err != nil {
		b.Fatal(err)
	}
	return tool.NewRunner(reg, opts)
}

var benchRequest = tool.Request{ID: "call_1", Name: "noop",
	Arguments: json.RawMessage(`{"path":"src/main.go","limit":200,"force":true}`)}

// BenchmarkRunner_Call measures validating and executing a no-op tool with a
// three-field argument object.
func BenchmarkRunner_Call(b *testing.B) { benchCall(b, nil) }

// BenchmarkRunner_CallInline is BenchmarkRunner_Call with handlers run on
// the caller's goroutine (RunnerOptions.Inline).
func BenchmarkRunner_CallInline(b *testing.B) { benchCall(b, &tool.RunnerOptions{Inline: true}) }

// benchCall runs benchRequest in a loop on a runner made with opts.
func benchCall(b *testing.B, opts *tool.RunnerOptions) {
	r := benchRunner(b, opts)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := r.Call(ctx, tool.Call{}, benchRequest)
		if err != nil || !res.Success {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkRunner_CallParallel runs the same call from GOMAXPROCS goroutines.
func BenchmarkRunner_CallParallel(b *testing.B) {
	r := benchRunner(b, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := r.Call(ctx, tool.Call{}, benchRequest)
			if err != nil || !res.Success {
				b.Error(res, err)
				return
			}
		}
	})
}

// BenchmarkRunner_Batch runs a batch of eight parallel-safe calls.
func BenchmarkRunner_Batch(b *testing.B) {
	r := benchRunner(b, nil)
	ctx := context.Background()
	reqs := make([]tool.Request, 8)
	for i := range reqs {
		reqs[i] = benchRequest
		reqs[i].ID = ""
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Run(ctx, tool.Call{}, reqs); err != nil {
			b.Fatal(err)
		}
	}
}
