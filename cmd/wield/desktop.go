package main

import (
	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

// desktopCommands returns the commands of the desktop tool (none yet).
func (g *globals) desktopCommands() []*cobra.Command { return nil }

// desktopTools returns the desktop tool when it is configured (none yet).
func (g *globals) desktopTools(deps toolDeps) []*tool.Tool { return nil }
