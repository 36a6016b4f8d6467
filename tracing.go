package wield

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/otel/otlp"
)

// EnvTraceContent is the variable OpenTelemetry's GenAI instrumentations
// read to capture message content: "true" puts messages, tool arguments
// and results on the spans, as [TracingConfig.CaptureContent] does.
const EnvTraceContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// TracingConfig is what [StartTracing] sets tracing up with. The zero
// value reads the process's environment and captures no content.
type TracingConfig struct {
	// Getenv reads the OTEL_* variables (see package otlp) and
	// [EnvTraceContent]; nil means os.Getenv. The exporters read their
	// own variables (headers, timeouts, certificates) from the process's
	// environment whatever it is.
	Getenv func(string) string
	// ServiceVersion is service.version.
	ServiceVersion string
	// Provider is the catalogue's name of the model's provider ("openai",
	// "gemini", ...), which StartTracing turns into the semantic
	// conventions' gen_ai.provider.name ("gcp.gemini"); empty means
	// "wield".
	Provider string
	// CaptureContent puts messages, tool arguments and results on the
	// spans, bounded and redacted; [EnvTraceContent]=true does too.
	CaptureContent bool
	// Redact removes secrets from what goes on a span (see
	// otel.Config.Redact); wield passes its session store's
	// ([session.Store.Redact]). Nil with content captured is an error.
	Redact func(string) string
	// Logger receives the warnings of a variable that is not understood
	// but does not stop tracing; nil discards them.
	Logger *slog.Logger
}

// Tracing is OpenTelemetry tracing started by [StartTracing]: the
// [otel.Telemetry] to give [Options.Telemetry] (and the MCP manager and
// server), and the exporters behind it, which [Tracing.Close] flushes. A
// nil *Tracing is tracing that is off: its Telemetry is nil and its
// Close does nothing.
type Tracing struct {
	prov *otlp.Providers
	tel  *otel.Telemetry
}

// TracingEnabled reports whether the environment (read with getenv; nil
// means os.Getenv) asks for tracing: an OTLP endpoint is set and the SDK
// is not disabled (see package otlp). A program checks it to build what
// [TracingConfig] needs only when tracing is on.
func TracingEnabled(getenv func(string) string) bool {
	return otlp.Enabled(getenv)
}

// StartTracing sets up the OpenTelemetry SDK and its OTLP exporters from
// the environment, as every OpenTelemetry SDK reads it, and returns the
// telemetry of wield's runs, model calls and tool calls. It returns nil
// and no error when the environment asks for no tracing. The error names
// the variable whose value is not understood or the exporter that could
// not be made; tracing is then off.
func StartTracing(ctx context.Context, cfg TracingConfig) (*Tracing, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if !otlp.Enabled(getenv) {
		return nil, nil
	}
	log := cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	content := cfg.CaptureContent
	if v := getenv(EnvTraceContent); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			log.Warn("tracing: "+EnvTraceContent+" is not a boolean; message content is not captured", "value", v)
		}
		content = content || b
	}
	prov, err := otlp.Start(ctx, otlp.Config{Getenv: getenv, ServiceVersion: cfg.ServiceVersion})
	if err != nil {
		return nil, err
	}
	tel, err := otel.New(otel.Config{TracerProvider: prov.TracerProvider(), MeterProvider: prov.MeterProvider(),
		ProviderName: genAIProvider(cfg.Provider), CaptureContent: content, Redact: cfg.Redact})
	if err != nil {
		return nil, errors.Join(err, prov.Shutdown(ctx))
	}
	return &Tracing{prov: prov, tel: tel}, nil
}

// Telemetry returns what traces runs, model calls and tool calls; nil
// when t is nil.
func (t *Tracing) Telemetry() *otel.Telemetry {
	if t == nil {
		return nil
	}
	return t.tel
}

// Close flushes what the exporters hold and stops them, waiting at most
// until ctx is done; spans ended after it are lost.
func (t *Tracing) Close(ctx context.Context) error {
	if t == nil || t.prov == nil {
		return nil
	}
	if err := t.prov.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	return nil
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
