package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/otel"
)

// flushTimeout bounds the wait for the last spans and metrics to reach
// the collector when wield exits.
const flushTimeout = 5 * time.Second

// tracingState is OpenTelemetry tracing: its flag and, once a command has
// asked for it, the tracing wield.StartTracing started, which close
// flushes.
type tracingState struct {
	content bool // --trace-content, or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
	// provider is the catalogue's name of the model's provider, set by a
	// run before tracing starts.
	provider string

	started bool
	tracing *wield.Tracing
}

// register adds the flag.
func (s *tracingState) register(fl *pflag.FlagSet) {
	fl.BoolVar(&s.content, "trace-content", false, "put messages, tool arguments and results on the OpenTelemetry spans, bounded and redacted (tracing itself is on when OTEL_EXPORTER_OTLP_ENDPOINT is set; see docs/tracing.md); also "+wield.EnvTraceContent+"=true")
}

// tracingCommands returns the commands of OpenTelemetry tracing: none, it
// is configured by the environment and --trace-content.
func (g *globals) tracingCommands() []*cobra.Command { return nil }

// telemetry returns the telemetry of the commands run in workspace ws,
// started on first use from the OTEL_* environment (see
// [wield.StartTracing]), or nil when tracing is off. A configuration that
// cannot be used is a warning, and tracing is then off: it never stops a
// run.
func (g *globals) telemetry(ws string) *otel.Telemetry {
	s := &g.tracing
	if s.started {
		return s.tracing.Telemetry()
	}
	s.started = true
	if !wield.TracingEnabled(os.Getenv) {
		return nil
	}
	tr, err := wield.StartTracing(context.Background(), wield.TracingConfig{ServiceVersion: moduleVersion(),
		Provider: s.provider, CaptureContent: s.content, Redact: g.store(ws).Redact, Logger: g.logger()})
	if err != nil {
		g.logger().Warn("tracing is off", "err", err)
		return nil
	}
	s.tracing = tr
	return tr.Telemetry()
}

// close flushes what the exporters hold and stops them.
func (s *tracingState) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	return s.tracing.Close(ctx)
}
