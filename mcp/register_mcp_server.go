package mcp

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/tool"
)

//go:embed register_mcp_server.md
var registerDescription string

// RegisterInput is the argument object of the register_mcp_server tool.
type RegisterInput struct {
	Name    string            `json:"name" jsonschema:"the server's name: its tools are mounted as mcp__<name>__<tool>"`
	Command string            `json:"command,omitempty" jsonschema:"program that runs a stdio MCP server (give command or url)"`
	Args    []string          `json:"args,omitempty" jsonschema:"arguments of command"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"environment variables for command, besides wield's own"`
	URL     string            `json:"url,omitempty" jsonschema:"http:// or https:// URL of an MCP server (give command or url)"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"HTTP headers sent to url, such as Authorization"`
}

// RegisterData is the Data of the register_mcp_server tool's results.
type RegisterData struct {
	// Server is the server's name; Tools are the names its tools are
	// mounted under.
	Server string   `json:"server"`
	Tools  []string `json:"tools"`
}

// NewRegisterServer returns the register_mcp_server tool, which adds a
// server to m for the rest of its life, starts it and mounts its tools in
// the registries given to [Manager.Mount]. It is destructive (it runs a
// program or reaches a service), open-world, and not parallel-safe.
func NewRegisterServer(m *Manager) *tool.Tool {
	return tool.New(tool.Spec{
		Name:         "register_mcp_server",
		Description:  renderRegisterDescription(),
		OutputSchema: tool.SchemaOf[RegisterData](),
		Annotations:  tool.Annotations{Destructive: true, OpenWorld: true},
		// Starting the server is bounded by its own startup_timeout.
		Timeout: DefaultStartupTimeout + DefaultStartupTimeout/2,
	}, registerServer{m}.register)
}

func renderRegisterDescription() string {
	var b strings.Builder
	t := template.Must(template.New("").Parse(registerDescription))
	if err := t.Execute(&b, map[string]any{"StartupTimeout": DefaultStartupTimeout.String()}); err != nil {
		panic(err) // the template is part of the binary
	}
	return b.String()
}

type registerServer struct{ m *Manager }

func (r registerServer) register(ctx context.Context, _ *tool.Call, in RegisterInput) (tool.Result, error) {
	if (in.Command == "") == (in.URL == "") {
		return tool.Failure(`give exactly one of "command" (a stdio server) or "url" (an HTTP server)`), nil
	}
	cfg := ServerConfig{Command: in.Command, Args: in.Args, Env: in.Env, URL: in.URL, Headers: in.Headers}
	if err := r.m.Add(in.Name, cfg); err != nil {
		return tool.Failure(err.Error()), nil
	}
	tools, errs, err := r.m.mountServer(ctx, in.Name)
	if err != nil {
		// It did not start: forget it, so that a corrected call may use
		// the same name.
		r.m.Remove(in.Name)
		return tool.Failure(fmt.Sprintf("mcp server %q was not registered: %v", in.Name, err)), nil
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Registered MCP server %q with %d tools", in.Name, len(tools))
	if len(names) > 0 {
		b.WriteString(": " + strings.Join(names, ", "))
	}
	b.WriteString(".")
	for _, err := range errs {
		b.WriteString("\nNote: " + err.Error())
	}
	return tool.Result{Success: true, Output: b.String(), Data: RegisterData{Server: in.Name, Tools: names}}, nil
}
