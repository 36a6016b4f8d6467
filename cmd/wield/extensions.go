package main

import (
	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

// extensionCommands returns the commands of skills, plugins and environment variables.
func (g *globals) extensionCommands() []*cobra.Command { return nil }

// extensionTools returns the tools of skills, plugins and environment variables, built with deps.
func (g *globals) extensionTools(deps toolDeps) []*tool.Tool { return nil }
