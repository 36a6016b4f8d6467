package main

import (
	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

// codeCommands returns the commands of code execution and the second-model tool.
func (g *globals) codeCommands() []*cobra.Command { return nil }

// codeTools returns the tools of code execution and the second-model tool, built with deps.
func (g *globals) codeTools(deps toolDeps) []*tool.Tool { return nil }
