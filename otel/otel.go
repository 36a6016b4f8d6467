package otel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// DefaultMaxContentBytes bounds each captured content attribute when
// [Config.MaxContentBytes] is zero.
const DefaultMaxContentBytes = 4096

// Config configures [New]. The zero value makes a Telemetry that records
// nothing; set at least one provider.
type Config struct {
	// TracerProvider makes the tracer of the spans; nil means no spans.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter of the metrics; nil means no metrics.
	MeterProvider metric.MeterProvider
	// ProviderName is gen_ai.provider.name, the model's provider
	// ("openai", "anthropic", "gcp.gemini"); empty means "wield".
	ProviderName string
	// CaptureContent puts messages, tool arguments and tool results on
	// the spans (gen_ai.input.messages, gen_ai.tool.call.arguments, …).
	// They are off by default: they hold whatever the user and the tools
	// handled. When on, each value is cut to MaxContentBytes and passed
	// through Redact.
	CaptureContent bool
	// MaxContentBytes bounds each captured value; zero means
	// DefaultMaxContentBytes.
	MaxContentBytes int
	// Redact removes secrets from captured content before it is put on a
	// span, and from the error message of a failed span's status, which is
	// exported whether content is captured or not (a tool's error may
	// quote a token); wield passes its session store's redaction
	// ([session.Store.Redact]). Nil with CaptureContent is an error:
	// content is never exported unredacted by accident. Nil without it
	// leaves error messages as they are.
	Redact func(string) string
}

// Telemetry makes the spans and metrics of agent runs, tool calls and MCP
// calls. A nil *Telemetry is valid and records nothing, at no cost: every
// method returns at once, and the values it returns are nil and do nothing
// either. It is safe for concurrent use.
type Telemetry struct {
	tracer   trace.Tracer
	provider attribute.KeyValue
	capture  bool
	max      int
	redact   func(string) string
	m        instruments

	// wrapped caches the traced twin of each tool, so that tracing a run
	// does not recompile every tool's schema.
	wrapped sync.Map // *tool.Tool -> *tool.Tool
	// toolAttrs caches the metric attributes of tool calls.
	toolAttrs sync.Map // toolAttrsKey -> metric.RecordOption
}

// New returns a Telemetry for cfg, or nil when cfg has neither provider
// (tracing is off). The error says which metric instrument could not be
// made, or that content capture lacks a redaction.
func New(cfg Config) (*Telemetry, error) {
	if cfg.TracerProvider == nil && cfg.MeterProvider == nil {
		return nil, nil
	}
	if cfg.CaptureContent && cfg.Redact == nil {
		return nil, errors.New("otel: content capture needs a Redact function (content is never exported unredacted)")
	}
	t := &Telemetry{
		provider: keyProviderName.String(cmp.Or(cfg.ProviderName, providerDefault)),
		capture:  cfg.CaptureContent,
		max:      cmp.Or(cfg.MaxContentBytes, DefaultMaxContentBytes),
		redact:   cfg.Redact,
	}
	if cfg.TracerProvider != nil {
		t.tracer = cfg.TracerProvider.Tracer(instrumentationName, trace.WithSchemaURL(SchemaURL))
	}
	if cfg.MeterProvider != nil {
		m, err := newInstruments(cfg.MeterProvider.Meter(instrumentationName, metric.WithSchemaURL(SchemaURL)))
		if err != nil {
			return nil, fmt.Errorf("otel: %w", err)
		}
		t.m = m
	}
	return t, nil
}

// start starts a span, or returns ctx and nil when there is no tracer.
func (t *Telemetry) start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t.tracer == nil {
		return ctx, nil
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// content returns s cut to the configured bound and redacted, and whether
// content is captured at all.
func (t *Telemetry) content(s string) (string, bool) {
	if !t.capture {
		return "", false
	}
	if len(s) > t.max {
		cut := t.max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…[truncated]"
	}
	return t.redact(s), true
}

// status returns msg, an error message for a span's status, redacted when
// there is a Redact function.
func (t *Telemetry) status(msg string) string {
	if t.redact == nil {
		return msg
	}
	return t.redact(msg)
}

// instruments are the metric instruments; zero (all nil) without a meter.
type instruments struct {
	tokens    metric.Int64Histogram
	duration  metric.Float64Histogram
	ttfc      metric.Float64Histogram
	mcpClient metric.Float64Histogram
	mcpServer metric.Float64Histogram
}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var err, e error
	// Bucket boundaries as the GenAI conventions advise.
	durations := metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)
	in.tokens, e = m.Int64Histogram(metricTokenUsage, metric.WithUnit(unitToken),
		metric.WithDescription("Number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864))
	err = errors.Join(err, e)
	in.duration, e = m.Float64Histogram(metricOperationDuration, metric.WithUnit(unitSeconds),
		metric.WithDescription("GenAI operation duration."), durations)
	err = errors.Join(err, e)
	in.ttfc, e = m.Float64Histogram(metricTimeToFirstChunk, metric.WithUnit(unitSeconds),
		metric.WithDescription("Time to receive the first chunk of a streamed response."), durations)
	err = errors.Join(err, e)
	in.mcpClient, e = m.Float64Histogram(metricMCPClientDuration, metric.WithUnit(unitSeconds),
		metric.WithDescription("Duration of an MCP request as the client sees it."), durations)
	err = errors.Join(err, e)
	in.mcpServer, e = m.Float64Histogram(metricMCPServerDuration, metric.WithUnit(unitSeconds),
		metric.WithDescription("Duration of an MCP request as the server sees it."), durations)
	err = errors.Join(err, e)
	if err != nil {
		return instruments{}, fmt.Errorf("make metric instruments: %w", err)
	}
	return in, nil
}
