package wield

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// RegistryConfig is what [NewRegistry] builds a registry from.
type RegistryConfig struct {
	// Toolbox builds wield's own tools with Tools; nil means they are left
	// out.
	Toolbox *Toolbox
	// Tools is what wield's own tools are built with.
	Tools ToolsConfig
	// Extra are more tools, the program's own; a name taken is an error.
	Extra []*tool.Tool
	// Declared are files of declared tools (see [tool.LoadDeclared]).
	// The workspace's own (.wield/tools) are added when Tools.Trusted:
	// declared tools run commands.
	Declared []string
	// MCP, when set, mounts the tools of its servers and adds the tools
	// that manage them (register_mcp_server, debug_mcp_server).
	MCP *mcp.Manager
	// Warn receives each problem that leaves a tool out without failing
	// the registry (a declared tool that does not load, an MCP server
	// that does not start); nil means they are dropped.
	Warn func(msg string, err error)
}

// NewRegistry returns a registry of wield's own tools, cfg.Extra, the
// declared tools and the tools of the MCP servers. A declared-tools file
// that does not exist is an error; other problems go to cfg.Warn and the
// rest of the registry still works.
func NewRegistry(ctx context.Context, cfg RegistryConfig) (*tool.Registry, error) {
	warn := cfg.Warn
	if warn == nil {
		warn = func(string, error) {}
	}
	var builtin []*tool.Tool
	if cfg.Toolbox != nil {
		ts, err := cfg.Toolbox.Tools(cfg.Tools)
		if err != nil {
			return nil, err
		}
		builtin = ts
	}
	reg, err := tool.NewRegistry(append(builtin, cfg.Extra...)...)
	if err != nil {
		return nil, err
	}
	add := func(ts []*tool.Tool) {
		for _, t := range ts {
			if err := reg.Register(t); err != nil {
				warn("declared tool skipped", err)
			}
		}
	}
	if cfg.Tools.Trusted && cfg.Tools.Workspace != "" {
		ts, err := tool.LoadDeclaredDir(workspace.Layout{Root: cfg.Tools.Workspace}.Tools())
		if err != nil {
			warn("declared tools", err)
		}
		add(ts)
	}
	for _, f := range cfg.Declared {
		ts, err := tool.LoadDeclared(f)
		if err != nil {
			if len(ts) == 0 && errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			warn("declared tools", err)
		}
		add(ts)
	}
	if cfg.MCP != nil {
		for _, err := range cfg.MCP.Mount(ctx, reg) {
			warn("MCP server", err)
		}
		opts := &mcp.RegisterOptions{}
		if cfg.Tools.Store != nil {
			opts.Recorder = registered.Store{Sessions: cfg.Tools.Store}
		}
		for _, t := range []*tool.Tool{mcp.NewRegisterServer(cfg.MCP, opts), mcp.NewDebugServer(cfg.MCP)} {
			if err := reg.Register(t); err != nil {
				return nil, err
			}
		}
	}
	return reg, nil
}

// OptIn are the tools offered only when a tools list names them exactly:
// each can do lasting harm a run rarely needs (delete a session, start
// any program as an MCP server).
var OptIn = []string{"delete_session", "register_mcp_server"}

// SelectTools returns the tools of reg a run offers by list (names and
// "prefix*" patterns; nil means all), without the [OptIn] tools list
// does not name, and without ask_user when nobody can answer (human is
// false). want reports whether the list asks for the agent tool, which
// is added later (it needs the selected tools).
func SelectTools(reg *tool.Registry, list []string, human bool) (_ *tool.Registry, want bool, err error) {
	rest, want := withoutAgentTool(list)
	switch {
	case len(list) == 0:
	case len(rest) == 0: // only agent: no other tool
		reg = reg.Exclude([]string{"*"})
	default:
		if reg, err = reg.Filter(rest); err != nil {
			return nil, false, err
		}
	}
	var out []string
	for _, t := range OptIn {
		if !slices.Contains(list, t) {
			out = append(out, t)
		}
	}
	if !human {
		out = append(out, "ask_user")
	}
	return reg.Exclude(out), want, nil
}

// withoutAgentTool takes the agent tool out of a tools list, which is
// filtered before the agent tool exists, and reports whether the list
// asks for it: when there is no list, or an entry names it.
func withoutAgentTool(list []string) ([]string, bool) {
	if len(list) == 0 {
		return nil, true
	}
	want := false
	rest := slices.DeleteFunc(slices.Clone(list), func(e string) bool {
		if e == subagent.ToolName {
			want = true
			return true
		}
		if p, ok := strings.CutSuffix(e, "*"); ok && strings.HasPrefix(subagent.ToolName, p) {
			want = true
		}
		return false
	})
	return rest, want
}
