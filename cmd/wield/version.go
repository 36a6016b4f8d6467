package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print wield's version",
		Long: `Version prints wield's module version and the Go version that built it.

See also: wield help.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			version, goVersion := "(devel)", ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				goVersion = bi.GoVersion
				if bi.Main.Version != "" {
					version = bi.Main.Version
				}
			}
			_, err := fmt.Fprintf(g.stdout, "wield %s %s\n", version, goVersion)
			return err
		},
	}
}
