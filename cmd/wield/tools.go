package main

import (
	"bytes"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

func newToolsCommand(g *globals) *cobra.Command {
	var format string
	var strict, hidden bool
	cmd := &cobra.Command{
		Use:   "tools [--format json|openai|anthropic|gemini|mcp] [--strict]",
		Short: "list the tools and their schemas",
		Long: `Tools prints every tool wield offers a model, as a JSON array.

The --format flag picks the form: json (wield's own: name, description,
input_schema, annotations), or the "tools" field of a provider request:
openai (chat completions), anthropic, gemini (one object holding the
functionDeclarations) or mcp (tools/list). Names are made legal for the
provider where needed.

The --strict flag asks for OpenAI's strict mode: every property required,
optional ones nullable, no additional properties; tools whose schema cannot be
strict (open maps) are exported without it.

See also: wield call.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			reg, err := g.registry(cmd.Context(), ws, toolDeps{})
			if err != nil {
				return err
			}
			out, _, err := reg.Export(tool.Format(format), &tool.ExportOptions{Strict: strict, IncludeHidden: hidden})
			if err != nil {
				return &exitError{exitUsage, err}
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, out, "", "  "); err != nil {
				return err
			}
			buf.WriteByte('\n')
			_, err = g.stdout.Write(buf.Bytes())
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output `form`: json, openai, anthropic, gemini or mcp")
	cmd.Flags().BoolVar(&strict, "strict", false, "use OpenAI's strict mode where a schema allows it")
	cmd.Flags().BoolVar(&hidden, "hidden", false, "include tools hidden from the model")
	return cmd
}
