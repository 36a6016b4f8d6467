package wield

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestStartTracing: tracing is off without an endpoint; with one it is
// on, and EnvTraceContent turns content capture on (which needs a
// redactor) or, when it is not a boolean, is a warning and leaves it off.
func TestStartTracing(t *testing.T) {
	endpoint := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1",
		"OTEL_METRICS_EXPORTER":       "none", // no final export to wait for on Close
	}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name     string
		env      map[string]string
		redact   func(string) string
		wantOn   bool
		wantErr  string
		wantWarn string
	}{
		{name: "no endpoint", env: map[string]string{}},
		{name: "disabled", env: with(endpoint, "OTEL_SDK_DISABLED", "true")},
		{name: "endpoint", env: endpoint, wantOn: true},
		{name: "content with a redactor", env: with(endpoint, EnvTraceContent, "true"), redact: strings.ToUpper, wantOn: true},
		{name: "content without a redactor", env: with(endpoint, EnvTraceContent, "true"), wantErr: "Redact"},
		{name: "content not a boolean", env: with(endpoint, EnvTraceContent, "maybe"), wantOn: true, wantWarn: "is not a boolean"},
		{name: "a protocol not understood", env: with(endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon"), wantErr: "carrier-pigeon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			getenv := func(k string) string { return tt.env[k] }
			if on := TracingEnabled(getenv); on != (tt.wantOn || tt.wantErr != "") {
				t.Errorf("TracingEnabled = %v", on)
			}
			tr, err := StartTracing(t.Context(), TracingConfig{Getenv: getenv, Redact: tt.redact, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("StartTracing: error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if on := tr.Telemetry() != nil; on != tt.wantOn {
				t.Errorf("Telemetry() != nil is %v, want %v", on, tt.wantOn)
			}
			if !strings.Contains(log.String(), tt.wantWarn) || tt.wantWarn == "" && log.Len() > 0 {
				t.Errorf("log %q, want %q", log.String(), tt.wantWarn)
			}
			if err := tr.Close(t.Context()); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func TestGenAIProvider(t *testing.T) {
	for name, want := range map[string]string{"gemini": "gcp.gemini", "google": "gcp.gemini", "vertex": "gcp.vertex_ai", "openai": "openai", "": ""} {
		if got := genAIProvider(name); got != want {
			t.Errorf("genAIProvider(%q) = %q, want %q", name, got, want)
		}
	}
}
