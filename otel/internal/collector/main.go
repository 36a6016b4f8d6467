// Command collector is a minimal OpenTelemetry Collector for wield's tracing
// tests: an OTLP receiver (gRPC and HTTP) and the file exporter, nothing else.
//
// It lives in its own module so that users of wield never download the
// collector's dependencies; scripts/test.sh builds it and points
// WIELD_OTELCOL at the binary. Run it like the upstream collector:
//
//	collector --config=/path/to/config.yaml
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers: receivers,
		Exporters: exporters,
		Telemetry: quietTelemetry(),
	}, nil
}

// quietTelemetry is the collector's own telemetry: its log on standard
// error (tests wait for "Everything is ready" there), no metrics or traces
// of its own. The
// upstream factory (otelconftelemetry) would bring Prometheus and every
// cloud's resource detector, doubling the build.
func quietTelemetry() telemetry.Factory {
	return telemetry.NewFactory(func() component.Config { return &struct{}{} },
		telemetry.WithCreateLogger(func(context.Context, telemetry.LoggerSettings, component.Config) (*zap.Logger, component.ShutdownFunc, error) {
			cfg := zap.NewProductionConfig()
			cfg.Level = zap.NewAtomicLevelAt(zapcore.InfoLevel)
			cfg.OutputPaths, cfg.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
			l, err := cfg.Build()
			if err != nil {
				return nil, nil, err
			}
			return l, func(context.Context) error { _ = l.Sync(); return nil }, nil
		}))
}

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "collector", Description: "wield test collector", Version: "v0.161.0"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), yamlprovider.NewFactory()},
				DefaultScheme:     "file",
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "collector:", err)
		os.Exit(1)
	}
}
