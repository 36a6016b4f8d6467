//go:build unix

package otel_test

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
)

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nopRecorder records nothing, as the agent's session would record
// everything: the runner calls it per call either way.
type nopRecorder struct{}

func (nopRecorder) RecordCall(context.Context, *tool.Call, json.RawMessage) error { return nil }
func (nopRecorder) RecordResult(context.Context, *tool.Call, tool.Result) error   { return nil }

// BenchmarkToolCall measures one tool call through the runner as the
// agent makes it, with tracing off (a nil Telemetry: nothing is wrapped)
// and on (spans to a batching SDK pipeline whose exporter drops them, and
// metrics to a manual reader), and with each signal alone. The difference
// is tracing's cost per call; bench/tracing.sh prints it.
func BenchmarkToolCall(b *testing.B) {
	noop := tool.NewRaw
	echo, err := noop(tool.Spec{Name: "noop", Description: "Does nothing.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		tool.HandlerFunc(func(context.Context, *tool.Call, json.RawMessage) (tool.Result, error) {
			return tool.Result{Success: true, Output: "ok"}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	reg, _ := tool.NewRegistry(echo)
	on, err := otel.New(otel.Config{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter())),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
	})
	if err != nil {
		b.Fatal(err)
	}
	traces, _ := otel.New(otel.Config{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))})
	metrics, _ := otel.New(otel.Config{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))})
	reqs := []tool.Request{{ID: "c1", Name: "noop", Arguments: json.RawMessage(`{}`)}}
	for _, bc := range []struct {
		name string
		tel  *otel.Telemetry
	}{{"off", nil}, {"on", on}, {"traces-only", traces}, {"metrics-only", metrics}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx, run := bc.tel.StartAgent(b.Context(), otel.AgentInfo{Name: "bench", ConversationID: "s"})
			defer run.End(otel.RunOutcome{}, nil)
			// As the agent's: it always records and listens to events.
			opts := tool.RunnerOptions{Recorder: nopRecorder{}, OnEvent: func(tool.Event) {}, Inline: true}
			r := tool.NewRunner(bc.tel.Instrument(ctx, &opts, reg), &opts)
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := r.Run(ctx, tool.Call{SessionID: "s"}, reqs); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time, which other processes on a busy machine do not
			// inflate as they do the wall time of ns/op.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSDKSpan is the floor of BenchmarkToolCall/on: the SDK's own
// cost for a span with as many attributes as an execute_tool span, into
// the same pipeline, with no wield code around it.
func BenchmarkSDKSpan(b *testing.B) {
	tr := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter())).Tracer("bench")
	ctx := b.Context()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		_, s := tr.Start(ctx, "execute_tool noop", trace.WithAttributes(attribute.String("a", "b"), attribute.String("c", "d"), attribute.String("e", "f")))
		s.SetAttributes(attribute.Float64("q", 1), attribute.Float64("r", 2))
		s.End()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
