package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
	"github.com/wieldhq/wield/tools/env"
	"github.com/wieldhq/wield/tools/shell"
	skilltools "github.com/wieldhq/wield/tools/skills"
	"github.com/wieldhq/wield/workspace"
)

// globals holds the flags every command shares.
type globals struct {
	workdir     string
	toolsFile   []string
	verbose     bool
	noMCP       bool
	outputState               // --debug, --tty and the log: see render_log.go
	box         wield.Toolbox // wield's own tools and their shell jobs
	code        codeState     // see code.go
	mcp         *mcp.Manager
	memory      *memory.Store // of memoryWS: see memory.go
	memoryWS    string
	ext         *extState      // see extensions.go
	desktop     desktopState   // see desktop.go
	tracing     tracingState   // see tracing.go
	trustFlag   bool           // --trust: see project.go
	trust       *trustState    // the workspace's, found once: see project.go
	stores      []func() error // close the session stores opened: see session.go

	stdin          io.Reader
	stdout, stderr io.Writer
}

// noColor reports whether the user asked for output without colour or
// styles (https://no-color.org).
func (g *globals) noColor() bool { return os.Getenv("NO_COLOR") != "" }

func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *globals) {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "wield",
		Short: "Tools for LLM agents",
		Long: `Wield gives LLM agents tools that are typed, validated, bounded and safe.

It runs an agent loop against a model (run, chat) — Claude, Gemini, OpenAI or
any OpenAI-compatible server (models) — journaling every turn in a session
(session), with subagents (agents), plan mode and memory (memory); it calls
one tool from the command line (call), lists the tools in every provider's
schema dialect (tools), serves them over MCP (mcp) and reports what this
machine offers (doctor).

Tools come from wield itself, from declared-tool files (JSON files in
.wield/tools/ of the workspace, and any file named with --tools-file) and
from the MCP servers configured in .mcp.json and mcp.json files.

The workspace is the root of the git repository that holds the current
directory (outside a repository, the current directory itself) unless
--workdir names another; wield keeps its files in .wield/ there.

See also: wield help run, wield help session.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{exitUsage, err} })
	pf := root.PersistentFlags()
	pf.StringVar(&g.workdir, "workdir", "", "workspace root (default: the root of the git repository holding the current directory, else the current directory)")
	pf.StringArrayVar(&g.toolsFile, "tools-file", nil, "load declared tools from this JSON `file` (repeatable)")
	pf.BoolVarP(&g.verbose, "verbose", "v", false, "show each tool call's full arguments and output")
	g.registerOutputFlags(pf)
	root.Version = moduleVersion()
	root.SetVersionTemplate("wield {{.Version}}\n")
	pf.BoolVar(&g.trustFlag, "trust", false, "use the workspace's own configuration (hooks, allow rules, endpoints, MCP servers, declared tools) for this run without recording trust; see wield trust")
	pf.BoolVar(&g.noMCP, "no-mcp", false, "do not mount the tools of the MCP servers in .mcp.json and mcp.json files")
	g.code.register(pf)    // --sandbox, --ask-model: see code.go
	g.desktop.register(pf) // --desktop: see desktop.go
	g.tracing.register(pf) // --trace-content: see tracing.go
	root.AddCommand(
		newRunCommand(g),
		newChatCommand(g),
		newCallCommand(g),
		newMCPCommand(g),
		newSessionCommand(g),
		newToolsCommand(g),
		newModelsCommand(g),
		newAgentsCommand(g),
		newMemoryCommand(g),
		newVersionCommand(g),
		newDoctorCommand(g),
		newTrustCommand(g),
		newViewCommand(g),
		newWorkerCommand(g),  // durable.go
		newApproveCommand(g), // durable.go
	)
	root.AddCommand(g.undoCommands()...)
	root.AddCommand(g.codeCommands()...)
	root.AddCommand(g.docsCommands()...)
	root.AddCommand(g.extensionCommands()...)
	root.AddCommand(g.desktopCommands()...) // desktop.go
	root.AddCommand(g.tracingCommands()...) // tracing.go
	return root, g
}

// workspace returns the absolute workspace root: --workdir if given, else
// the repository root that holds the current directory (see
// [workspace.Find]).
func (g *globals) workspace() (string, error) {
	dir := g.workdir
	if dir == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return workspace.Find(cwd)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", abs)
	}
	return abs, nil
}

// toolDeps is what wield's own tools are built with besides their
// configuration. A zero field means the tools go without it.
type toolDeps struct {
	// store holds the sessions: the session tools work on it, and the file
	// tools add file references to a session in the references context
	// mode. Nil means the session tools fail and reads return content.
	store *session.Store
	// asker answers ask_user; nil means nobody can answer.
	asker askuser.Asker
	// code gives ask_model a run's models; see code.go.
	code codeDeps
}

// toolsConfig returns what wield's own tools are built with: deps, the
// flags and the config files. The process's toolbox (see package wield),
// which [globals.close] closes, builds them.
func (g *globals) toolsConfig(deps toolDeps) (wield.ToolsConfig, error) {
	ws, _ := g.workspace()
	shellCfg, err := g.shellConfig(shell.Config{Supervisor: shellSupervisor()}) // --sandbox: see code.go
	if err != nil {
		return wield.ToolsConfig{}, err
	}
	x := g.extensions(ws)
	cfg := wield.ToolsConfig{
		Workspace:   ws,
		Trusted:     g.trusted(ws), // hooks only when trusted: see project.go
		Store:       deps.store,
		Asker:       deps.asker,
		Logger:      g.logger(),
		Shell:       shellCfg,
		Memory:      g.memoryStore(ws), // see memory.go
		Skills:      g.skillCatalog(ws),
		SkillBudget: skill.Budget(x.window),
		Plugins:     skilltools.PluginListerFunc(listPluginInfo),
		Env:         env.Config{Vars: x.vars, Secrets: x.secrets},
		Desktop:     g.desktopOn(), // desktop.go
	}
	g.codeConfig(&cfg, deps) // code.go
	if lib, err := g.docsLibrary(ws); err != nil {
		g.logger().Warn("documents", "err", err)
	} else {
		cfg.Documents = lib
	}
	if ws != "" && !g.noMCP {
		g.addPluginServers(g.mcpManager(ws)) // extensions.go
	}
	return cfg, nil
}

// close releases what commands left running: every background shell job
// and every mounted MCP server dies with wield, and the session stores'
// connections are closed.
func (g *globals) close() error {
	var errs []error
	if g.mcp != nil {
		errs = append(errs, g.mcp.Close())
	}
	errs = append(errs, g.box.Close())
	errs = append(errs, g.code.close())
	errs = append(errs, g.desktop.close())
	errs = append(errs, g.tracing.close()) // after the MCP servers' last calls
	for _, closeStore := range g.stores {
		errs = append(errs, closeStore())
	}
	return errors.Join(errs...)
}

// mcpManager returns the manager of the MCP servers configured for
// workspace ws (.mcp.json, .wield/mcp.json, the user's mcp.json), made on
// first use. Configuration problems are warnings: valid servers still work.
func (g *globals) mcpManager(ws string) *mcp.Manager {
	if g.mcp == nil {
		servers, err := mcp.LoadConfig(g.mcpConfigFiles(ws), nil)
		if err != nil {
			g.logger().Warn("MCP server configuration", "err", err)
		}
		g.mcp = mcp.NewManager(servers, &mcp.ManagerOptions{Dir: ws, LogDir: workspace.Layout{Root: ws}.MCPLogs(),
			Logger: g.logger(), Version: moduleVersion(), Telemetry: g.telemetry(ws),
			ConfirmHint: func(server string) string { return "wield mcp confirm " + server }})
	}
	return g.mcp
}

// mcpConfigFiles returns the MCP configuration files of workspace ws (see
// [mcp.ConfigFiles]): the user's alone when the workspace is not trusted,
// whose servers would run commands or reach hosts it chose.
func (g *globals) mcpConfigFiles(ws string) []string {
	files := mcp.ConfigFiles(ws)
	if g.trusted(ws) {
		return files
	}
	l := workspace.Layout{Root: ws}
	return slices.DeleteFunc(files, func(f string) bool { return f == l.SharedMCP() || f == l.MCP() })
}

// registry builds the registry of built-in tools (built with deps),
// declared tools and the tools of the MCP servers (see
// [wield.NewRegistry]). Problems in declared-tool files are logged and the
// rest of the registry still works, unless a file named with --tools-file
// does not exist.
func (g *globals) registry(ctx context.Context, ws string, deps toolDeps) (*tool.Registry, error) {
	cfg, err := g.toolsConfig(deps)
	if err != nil {
		return nil, err
	}
	rc := wield.RegistryConfig{Toolbox: &g.box, Tools: cfg, Declared: g.toolsFile,
		Warn: func(msg string, err error) { g.logger().Warn(msg, "err", err) }}
	if !g.noMCP {
		rc.MCP = g.mcpManager(ws)
	}
	reg, err := wield.NewRegistry(ctx, rc)
	if err != nil && errors.Is(err, os.ErrNotExist) {
		return nil, &exitError{exitUsage, err}
	}
	return reg, err
}
