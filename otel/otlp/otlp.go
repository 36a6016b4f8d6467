// Package otlp sets up OpenTelemetry's SDK to export wield's traces and
// metrics over OTLP, configured the standard way: by the OTEL_*
// environment variables every OpenTelemetry SDK reads.
//
// It is the only wield package that imports the SDK and the exporters;
// the rest of wield depends on the OpenTelemetry API alone (see package
// [github.com/wieldhq/wield/otel]).
//
// # Environment
//
// Export is on when an endpoint is set, OTEL_EXPORTER_OTLP_ENDPOINT or
// the per-signal OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, and OTEL_SDK_DISABLED is not
// "true". OTEL_EXPORTER_OTLP_PROTOCOL (or its per-signal form) chooses
// "http/protobuf" (the default) or "grpc". OTEL_TRACES_EXPORTER or
// OTEL_METRICS_EXPORTER set to "none" turns that signal off.
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES describe the process,
// and the exporters read the rest (headers, timeouts, certificates,
// OTEL_EXPORTER_OTLP_INSECURE) themselves.
package otlp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config configures [Start]. The zero value reads the process's
// environment and names the service "wield".
type Config struct {
	// Getenv reads the environment; nil means os.Getenv. The exporters
	// read their own variables (headers, timeouts) from the process's
	// environment whatever it is.
	Getenv func(string) string
	// ServiceName is service.name when OTEL_SERVICE_NAME is unset; empty
	// means "wield".
	ServiceName string
	// ServiceVersion is service.version.
	ServiceVersion string
}

// Providers are the SDK's tracer and meter providers. Either may be nil:
// that signal is off. Shut them down with [Providers.Shutdown] before the
// process exits, or the last spans are lost.
type Providers struct {
	Tracer *sdktrace.TracerProvider
	Meter  *sdkmetric.MeterProvider
}

// TracerProvider returns the tracer provider as the API's interface: nil
// when traces are off.
func (p *Providers) TracerProvider() trace.TracerProvider {
	if p == nil || p.Tracer == nil {
		return nil
	}
	return p.Tracer
}

// MeterProvider returns the meter provider as the API's interface: nil
// when metrics are off.
func (p *Providers) MeterProvider() metric.MeterProvider {
	if p == nil || p.Meter == nil {
		return nil
	}
	return p.Meter
}

// Shutdown flushes what is buffered and stops the exporters; nil
// Providers do nothing.
func (p *Providers) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	var err error
	if p.Tracer != nil {
		err = errors.Join(err, p.Tracer.Shutdown(ctx))
	}
	if p.Meter != nil {
		err = errors.Join(err, p.Meter.Shutdown(ctx))
	}
	if err != nil {
		return fmt.Errorf("otlp: shut down: %w", err)
	}
	return nil
}

// Enabled reports whether the environment asks for export (see the
// package doc).
func Enabled(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" ||
		getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != ""
}

// Start returns the providers the environment asks for, or nil and no
// error when it asks for none. The error names the variable whose value
// is not understood, or the exporter that could not be made.
func Start(ctx context.Context, cfg Config) (*Providers, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if !Enabled(getenv) {
		return nil, nil
	}
	attrs := []attribute.KeyValue{serviceName(cmp.Or(cfg.ServiceName, "wield"))}
	if cfg.ServiceVersion != "" {
		attrs = append(attrs, serviceVersion(cfg.ServiceVersion))
	}
	// Later options win: the environment overrides the defaults.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && res == nil {
		return nil, fmt.Errorf("otlp: describe the process: %w", err)
	}
	p := &Providers{}
	if !off(getenv, "OTEL_TRACES_EXPORTER") && (getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "") {
		exp, err := traceExporter(ctx, protocol(getenv, "TRACES"))
		if err != nil {
			return nil, err
		}
		p.Tracer = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	}
	if !off(getenv, "OTEL_METRICS_EXPORTER") && (getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "") {
		exp, err := metricExporter(ctx, protocol(getenv, "METRICS"))
		if err != nil {
			return nil, errors.Join(err, p.Shutdown(ctx))
		}
		p.Meter = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
	}
	if p.Tracer == nil && p.Meter == nil {
		return nil, nil
	}
	return p, nil
}

// off reports whether the variable turns its signal off.
func off(getenv func(string) string, name string) bool {
	return strings.EqualFold(strings.TrimSpace(getenv(name)), "none")
}

// protocol returns the OTLP protocol of a signal: its own variable, the
// general one, or "http/protobuf".
func protocol(getenv func(string) string, signal string) string {
	return strings.TrimSpace(cmp.Or(getenv("OTEL_EXPORTER_OTLP_"+signal+"_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf"))
}

func traceExporter(ctx context.Context, proto string) (sdktrace.SpanExporter, error) {
	var exp sdktrace.SpanExporter
	var err error
	switch proto {
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	case "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	default:
		return nil, fmt.Errorf("otlp: OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported: use grpc or http/protobuf", proto)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: trace exporter: %w", err)
	}
	return exp, nil
}

func metricExporter(ctx context.Context, proto string) (sdkmetric.Exporter, error) {
	var exp sdkmetric.Exporter
	var err error
	switch proto {
	case "grpc":
		exp, err = otlpmetricgrpc.New(ctx)
	case "http/protobuf":
		exp, err = otlpmetrichttp.New(ctx)
	default:
		return nil, fmt.Errorf("otlp: OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported: use grpc or http/protobuf", proto)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: metric exporter: %w", err)
	}
	return exp, nil
}

// serviceName and serviceVersion are the resource attributes the SDK's
// environment detector overrides (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES).
func serviceName(v string) attribute.KeyValue    { return attribute.String("service.name", v) }
func serviceVersion(v string) attribute.KeyValue { return attribute.String("service.version", v) }
