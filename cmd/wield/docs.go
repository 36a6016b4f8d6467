package main

import (
	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

// docsCommands returns the commands of retrieval over local documents.
func (g *globals) docsCommands() []*cobra.Command { return nil }

// docsTools returns the tools of retrieval over local documents, built with deps.
func (g *globals) docsTools(deps toolDeps) []*tool.Tool { return nil }
