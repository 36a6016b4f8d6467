package main

import "github.com/spf13/cobra"

// tracingCommands returns the commands of OpenTelemetry tracing (none yet).
func (g *globals) tracingCommands() []*cobra.Command { return nil }
