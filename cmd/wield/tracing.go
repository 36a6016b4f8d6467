package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/otel/otlp"
)

// contentEnv is the variable OpenTelemetry's GenAI instrumentations read
// to capture message content.
const contentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// flushTimeout bounds the wait for the last spans and metrics to reach
// the collector when wield exits.
const flushTimeout = 5 * time.Second

// tracingState is OpenTelemetry tracing: its flag and, once a command has
// asked for it, the SDK's providers, which close flushes.
type tracingState struct {
	content bool // --trace-content, or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
	// provider is gen_ai.provider.name, set by a run before tracing
	// starts.
	provider string

	started bool
	prov    *otlp.Providers
	tel     *otel.Telemetry
}

// register adds the flag.
func (s *tracingState) register(fl *pflag.FlagSet) {
	fl.BoolVar(&s.content, "trace-content", false, "put messages, tool arguments and results on the OpenTelemetry spans, bounded and redacted (tracing itself is on when OTEL_EXPORTER_OTLP_ENDPOINT is set; see docs/tracing.md); also "+contentEnv+"=true")
}

// tracingCommands returns the commands of OpenTelemetry tracing: none, it
// is configured by the environment and --trace-content.
func (g *globals) tracingCommands() []*cobra.Command { return nil }

// telemetry returns the telemetry of the commands run in workspace ws,
// started on first use from the OTEL_* environment (see package otlp), or
// nil when tracing is off. A configuration that cannot be used is a
// warning, and tracing is then off: it never stops a run.
func (g *globals) telemetry(ws string) *otel.Telemetry {
	s := &g.tracing
	if s.started {
		return s.tel
	}
	s.started = true
	if !otlp.Enabled(os.Getenv) {
		return nil
	}
	content := s.content
	if v := os.Getenv(contentEnv); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			g.logger().Warn("tracing: "+contentEnv+" is not a boolean; message content is not captured", "value", v)
		}
		content = content || b
	}
	prov, err := otlp.Start(context.Background(), otlp.Config{ServiceVersion: moduleVersion()})
	if err != nil {
		g.logger().Warn("tracing is off", "err", err)
		return nil
	}
	store := g.store(ws)
	tel, err := otel.New(otel.Config{TracerProvider: prov.TracerProvider(), MeterProvider: prov.MeterProvider(),
		ProviderName: s.provider, CaptureContent: content, Redact: store.Redact})
	if err != nil {
		g.logger().Warn("tracing is off", "err", err)
		_ = prov.Shutdown(context.Background())
		return nil
	}
	s.prov, s.tel = prov, tel
	return tel
}

// genAIProvider returns the gen_ai.provider.name of a catalogue provider:
// the conventions' name where they have one.
func genAIProvider(name string) string {
	switch name {
	case "gemini", "google":
		return "gcp.gemini"
	case "vertex":
		return "gcp.vertex_ai"
	}
	return name
}

// close flushes what the exporters hold and stops them.
func (s *tracingState) close() error {
	if s.prov == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if err := s.prov.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	return nil
}
