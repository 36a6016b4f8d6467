package mcp

import (
	"context"
	_ "embed"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/tool"
)

//go:embed debug_mcp_server.md
var debugDescription string

// DebugInput is the argument object of the debug_mcp_server tool.
type DebugInput struct {
	Name string `json:"name,omitempty" jsonschema:"the server's name; empty diagnoses every server"`
}

// NewDebugServer returns the debug_mcp_server tool, which diagnoses the
// servers of m with [Manager.Diagnose] and returns the [Report] as text,
// and as its Data. It is read-only (the diagnosis runs a server of its
// own and stops it; the running ones are left alone) and open-world.
func NewDebugServer(m *Manager) *tool.Tool {
	return tool.New(tool.Spec{
		Name:         "debug_mcp_server",
		Effect:       tool.EffectRead | tool.EffectRun | tool.EffectNetwork,
		Description:  renderDebugDescription(),
		OutputSchema: tool.SchemaOf[Report](),
		Annotations:  tool.Annotations{ReadOnly: true, OpenWorld: true},
		// A start and a listing, each bounded by startup_timeout.
		Timeout: 2*DefaultStartupTimeout + DefaultStartupTimeout/2,
	}, debugServer{m}.debug)
}

func renderDebugDescription() string {
	var b strings.Builder
	t := template.Must(template.New("").Parse(debugDescription))
	if err := t.Execute(&b, map[string]any{"StderrLines": maxStderrLines}); err != nil {
		panic(err) // the template is part of the binary
	}
	return b.String()
}

type debugServer struct{ m *Manager }

func (d debugServer) debug(ctx context.Context, _ *tool.Call, in DebugInput) (tool.Result, error) {
	var names []string
	if in.Name != "" {
		names = []string{in.Name}
	}
	rep, err := d.m.Diagnose(ctx, names...)
	if err != nil {
		var known []string
		for _, s := range d.m.Status() {
			known = append(known, s.Name)
		}
		msg := err.Error() + "; the servers are: " + strings.Join(known, ", ")
		if len(known) == 0 {
			msg = err.Error() + "; no MCP server is configured"
		}
		return tool.Failure(msg), nil
	}
	var b strings.Builder
	if err := rep.Format(&b); err != nil {
		return tool.Result{}, err
	}
	// A failed server is what the call found out, not a failure of the
	// call.
	return tool.Result{Success: true, Output: b.String(), Data: rep}, nil
}
