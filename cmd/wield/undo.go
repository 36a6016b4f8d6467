package main

import (
	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

// undoCommands returns the commands of the change ledger: undo, rewind and the transaction tools.
func (g *globals) undoCommands() []*cobra.Command { return nil }

// undoTools returns the tools of the change ledger: undo, rewind and the transaction tools, built with deps.
func (g *globals) undoTools(deps toolDeps) []*tool.Tool { return nil }
