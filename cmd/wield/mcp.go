package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/tool"
)

// mcpFlags are the flags of `wield mcp`.
type mcpFlags struct {
	http         string
	allowRemote  bool
	token        string
	stateless    bool
	jsonResponse bool
	tools        string
	exclude      string
	sessionID    string
	mode         string
}

func newMCPCommand(g *globals) *cobra.Command {
	f := &mcpFlags{}
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "serve wield's tools over MCP (stdio, or streamable HTTP)",
		Long: `Mcp serves wield's tools to any MCP client (Claude Code, gemini-cli, Cursor, ...)
over standard input and output, or with --http over streamable HTTP. Calls
get wield's validation, timeouts and output bounds: invalid arguments come
back as a tool result with isError set that lists every violation.

Permissions apply as in wield run (.wield/settings.json, --mode), but nobody
can be asked over MCP: a call that needs approval is denied with a reason the
client sees, unless a rule allows it. Use --mode auto-edit or yolo to leave
approval to the client.

Logs go to standard error; standard output carries only the protocol. The
server exits when the client closes standard input, or on SIGTERM.

With --session ID (or $WIELD_SESSION), every call and its result are recorded
in that session: committed at once, or merged by the wield run that owns the
session when it commits.

HTTP binds only to loopback addresses unless --allow-remote is given with a
bearer token (--token or $WIELD_MCP_TOKEN); the Host header is checked
against DNS rebinding.

Example, for Claude Code:
  claude mcp add wield -- wield mcp --workdir /path/to/project

See also: wield tools, wield call.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.serveMCP(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on `HOST:PORT` instead of stdio")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --http address (needs a token)")
	fl.StringVar(&f.token, "token", "", "bearer `token` HTTP clients must send (default $WIELD_MCP_TOKEN)")
	fl.BoolVar(&f.stateless, "stateless", false, "HTTP without MCP sessions: each request stands alone")
	fl.BoolVar(&f.jsonResponse, "json-response", true, "answer HTTP requests with JSON rather than SSE streams")
	fl.StringVar(&f.tools, "tools", "", "comma-separated `list` of tools to serve (default: all; 'prefix*' matches)")
	fl.StringVar(&f.exclude, "exclude", "", "comma-separated `list` of tools not to serve")
	fl.StringVar(&f.sessionID, "session", "", "record calls in this session `id` (default $WIELD_SESSION)")
	fl.StringVar(&f.mode, "mode", "", "permission `mode` (default, auto-edit, plan, yolo); nobody can be asked over MCP, so calls that need approval are denied unless a rule allows them")
	return cmd
}

func (g *globals) serveMCP(ctx context.Context, f *mcpFlags) error {
	// A tool server makes many short-lived allocations; trade memory for
	// fewer collections, under a cap, unless the user tuned the GC.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
	ws, err := g.workspace()
	if err != nil {
		return &exitError{exitUsage, err}
	}
	reg, err := g.registry(ws)
	if err != nil {
		return err
	}
	if list := splitList(f.tools, nil); len(list) > 0 {
		if reg, err = reg.Filter(list); err != nil {
			return &exitError{exitUsage, fmt.Errorf("--tools: %w", err)}
		}
	}
	if list := splitList(f.exclude, nil); len(list) > 0 {
		reg = reg.Exclude(list)
	}
	pol, _, err := g.policy(ws, f.mode, false)
	if err != nil {
		return err
	}
	if reg, err = pol.Filter(reg); err != nil {
		return err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	opts := &mcp.ServerOptions{Name: "wield", Version: moduleVersion(), Root: root, Logger: g.logger(),
		RunnerOptions: &tool.RunnerOptions{Gate: pol}}
	if id := cmpOr(f.sessionID, os.Getenv("WIELD_SESSION")); id != "" {
		store := g.store(ws)
		if _, err := store.Load(id); err != nil {
			return &exitError{exitUsage, err}
		}
		opts.Store, opts.SessionID = store, id
	}
	srv, err := mcp.NewServer(reg, opts)
	if err != nil {
		return err
	}
	if f.http == "" {
		return srv.ServeStdio(ctx, nopCloser{g.stdin}, nopWriteCloser{g.stdout})
	}
	token := cmpOr(f.token, os.Getenv("WIELD_MCP_TOKEN"))
	if err := mcp.CheckListenAddr(f.http, f.allowRemote, token); err != nil {
		return &exitError{exitUsage, err}
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("--http: %w", err)}
	}
	hs := &http.Server{
		Handler: srv.HTTPHandler(&mcp.HTTPOptions{Token: token, Stateless: f.stateless, JSONResponse: f.jsonResponse,
			AllowRemoteHosts: f.allowRemote}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(g.stderr, "wield: serving MCP on http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// moduleVersion is wield's version from the build information.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// nopCloser and nopWriteCloser let the server close its transport without
// closing the process's standard streams under other readers.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
