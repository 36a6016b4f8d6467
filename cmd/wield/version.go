package main

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
)

// version is wield's version when the build sets it, as a release build
// does:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/wield
//
// Empty means the version the build information gives; see moduleVersion.
var version string

// develVersion is the version of a build that records none: a build
// without version control information, or a test binary.
const develVersion = "v0.0.0-devel"

func newVersionCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print wield's version",
		Long: `Version prints wield's version and the Go version that built it. The version
is the one the build set with -ldflags "-X main.version=...", else the module
version (v1.2.3 after go install ...@v1.2.3, a pseudo-version for a build of a
git checkout), else v0.0.0-devel. wield mcp gives the same version to MCP
clients.

See also: wield help.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			goVersion := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				goVersion = bi.GoVersion
			}
			_, err := fmt.Fprintf(g.stdout, "wield %s %s\n", moduleVersion(), goVersion)
			return err
		},
	}
}

// moduleVersion is wield's version: see [versionOf].
func moduleVersion() string {
	bi, _ := debug.ReadBuildInfo() // nil when there is none
	return versionOf(version, bi)
}

// versionOf returns the version set with -ldflags when there is one, else
// the main module's version from bi, else a pseudo-version made as the go
// command makes them from the version control revision bi records
// (v0.0.0-20061231150405-abcdefabcdef, with +dirty for uncommitted
// changes), else develVersion. It never returns "(devel)", the go
// command's word for a module without a version. bi may be nil.
func versionOf(set string, bi *debug.BuildInfo) string {
	if set != "" {
		return set
	}
	if bi == nil {
		return develVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, stamp string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				stamp = t.UTC().Format("20060102150405")
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) < 12 || stamp == "" {
		return develVersion
	}
	v := "v0.0.0-" + stamp + "-" + rev[:12]
	if dirty {
		v += "+dirty"
	}
	return v
}
