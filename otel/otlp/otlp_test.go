package otlp

import (
	"context"
	"testing"
)

func TestEnabled(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://x/v1/traces"}, true},
		{"metrics endpoint", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://x/v1/metrics"}, true},
		{"disabled wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "TRUE"}, false},
		{"disabled false", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "false"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Enabled(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("Enabled(%v) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}

func TestStart(t *testing.T) {
	tests := []struct {
		name           string
		env            map[string]string
		traces, metric bool
		wantErr        bool
	}{
		{"off", nil, false, false, false},
		{"both over http", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true, true, false},
		{"both over grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, true, false},
		{"traces only", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, true, false, false},
		{"metrics off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "none"}, true, false, false},
		{"all off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "none", "OTEL_TRACES_EXPORTER": "none"}, false, false, false},
		{"unknown protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(t.Context(), Config{Getenv: func(k string) string { return tt.env[k] }})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Start: error %v, want error %v", err, tt.wantErr)
			}
			if got := p.TracerProvider() != nil; got != tt.traces {
				t.Errorf("traces on = %v, want %v", got, tt.traces)
			}
			if got := p.MeterProvider() != nil; got != tt.metric {
				t.Errorf("metrics on = %v, want %v", got, tt.metric)
			}
			// Nothing was recorded: shutting down sends nothing to the
			// unreachable endpoint.
			if p != nil && p.Tracer != nil {
				if err := p.Tracer.Shutdown(t.Context()); err != nil {
					t.Errorf("Shutdown: %v", err)
				}
			}
			if p != nil && p.Meter != nil {
				// Its reader's last collection would go to the
				// unreachable endpoint: a done context stops it at once.
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				_ = p.Meter.Shutdown(ctx)
			}
		})
	}
}
