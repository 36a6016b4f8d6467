package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/env"
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

Other MCP servers (configured in .mcp.json, .wield/mcp.json or
~/.config/wield/mcp.json, in the mcpServers format) are mounted as tools named
mcp__<server>__<tool> in every command; wield mcp ls and wield mcp tools SERVER
show them, and wield mcp doctor says why one fails.

See also: wield tools, wield call.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.serveMCP(cmd.Context(), f)
		},
	}
	cmd.AddCommand(newMCPListCommand(g), newMCPToolsCommand(g), newMCPDoctorCommand(g), newMCPConfirmCommand(g))
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on `HOST:PORT` instead of stdio")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --http address (needs a token)")
	fl.StringVar(&f.token, "token", "", "bearer `token` HTTP clients must send (default $WIELD_MCP_TOKEN)")
	fl.BoolVar(&f.stateless, "stateless", false, "HTTP without MCP sessions: each request stands alone")
	fl.BoolVar(&f.jsonResponse, "json-response", false, "answer HTTP requests with plain JSON instead of SSE streams: faster, but clients get no progress notifications")
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
	// With a session, the session tools and the file tools' references
	// mode work on its store; without one, they go without.
	var store *session.Store
	sessionID := cmp.Or(f.sessionID, os.Getenv("WIELD_SESSION"))
	if sessionID != "" {
		store = g.store(ws)
		if _, err := store.Load(ctx, sessionID); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	pol, _, err := g.policy(ws, f.mode, false)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	var gate tool.Gate = pol
	if !g.noMCP {
		// A server the client's agent registered asks, so is denied here,
		// until confirmed.
		gate = mcp.ConfirmGate(g.mcpManager(ws), pol)
	}
	// Results served to the client's model hide every secret wield knows.
	g.hideSecrets(ws, wield.WorkspaceSecrets(ws))
	gate = env.RedactResults(gate, g.extensions(ws).secrets)
	// The tools are built (and the configured MCP servers mounted) while
	// the server answers the client's initialize: what g's methods set up
	// lazily is set up here first, so that the build only reads it.
	opts := &mcp.ServerOptions{Name: "wield", Version: moduleVersion(), Root: root, Logger: g.logger(),
		RunnerOptions: &tool.RunnerOptions{Gate: gate}, Telemetry: g.telemetry(ws)}
	opts.Store, opts.SessionID = store, sessionID
	build := func(ctx context.Context) (*tool.Registry, error) {
		reg, err := g.registry(ctx, ws, toolDeps{store: store})
		if err != nil {
			return nil, err
		}
		// As in a run: the tools that can do lasting harm only when
		// named, and ask_user only when named (the client's agent may
		// have nobody to ask).
		list := splitList(f.tools, nil)
		if reg, _, err = wield.SelectTools(reg, list, slices.Contains(list, "ask_user")); err != nil {
			return nil, &exitError{exitUsage, fmt.Errorf("--tools: %w", err)}
		}
		if list := splitList(f.exclude, nil); len(list) > 0 {
			reg = reg.Exclude(list)
		}
		if reg, err = pol.Filter(reg); err != nil {
			return nil, err
		}
		if g.mcp != nil {
			g.mcp.Track(reg) // servers registered by a client's agent join the served tools
		}
		return reg, nil
	}
	bctx, stop := context.WithCancel(ctx)
	srv := mcp.BuildServer(bctx, build, opts)
	defer func() {
		// The build sets up what g.close releases: it must have ended.
		stop()
		_ = srv.Ready(context.Background())
	}()
	if f.http == "" {
		// Closed when serving ends (SIGTERM included): a read waiting on
		// a client that keeps its end open returns. Standard input
		// itself stays open.
		var in io.ReadCloser = nopCloser{g.stdin}
		if file, ok := g.stdin.(*os.File); ok {
			in = mcp.PollStdin(file)
			defer in.Close()
		}
		err := srv.ServeStdio(ctx, in, nopWriteCloser{g.stdout})
		if err != nil {
			return err
		}
		// The input may have ended before the build did: a build that
		// failed of itself (not because serving ended) is still an error.
		stop()
		if err := srv.Ready(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	token := cmp.Or(f.token, os.Getenv("WIELD_MCP_TOKEN"))
	if err := mcp.CheckListenAddr(f.http, f.allowRemote, token); err != nil {
		return &exitError{exitUsage, listenHint(err)}
	}
	if err := srv.Ready(ctx); err != nil {
		return err // before listening, so that the error ends the command
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

// nopCloser and nopWriteCloser let the server close its transport without
// closing the process's standard streams under other readers.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// listenHint adds to an error of [mcp.CheckListenAddr] the flags that
// change its answer: the library names no flags.
func listenHint(err error) error {
	switch {
	case errors.Is(err, mcp.ErrNotLoopback):
		return fmt.Errorf("%w; use 127.0.0.1, or pass --allow-remote with a bearer token", err)
	case errors.Is(err, mcp.ErrNoToken):
		return fmt.Errorf("%w: set one with --token or $WIELD_MCP_TOKEN", err)
	}
	return err
}

// newMCPListCommand is `wield mcp ls`: the configured servers, their state
// and tools.
func newMCPListCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "list the configured MCP servers, their state and tool counts",
		Long: `Ls starts every enabled MCP server configured in .mcp.json, .wield/mcp.json
and ~/.config/wield/mcp.json, lists its tools, and prints one line per server.
Servers that fail are listed with the reason; their logs are in
.wield/logs/mcp/.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			mgr := g.mcpManager(ws)
			_, errs := mgr.Tools(cmd.Context())
			for _, err := range errs {
				fmt.Fprintf(g.stderr, "wield: %v\n", err)
			}
			status := mgr.Status()
			if asJSON {
				type row struct {
					Name    string `json:"name"`
					State   string `json:"state"`
					Tools   int    `json:"tools"`
					Source  string `json:"source,omitempty"`
					Error   string `json:"error,omitempty"`
					LogFile string `json:"log_file,omitempty"`
				}
				rows := make([]row, 0, len(status))
				for _, s := range status {
					r := row{Name: s.Name, State: string(s.State), Tools: s.Tools, Source: s.Config.Source, LogFile: s.LogFile}
					if s.Err != nil {
						r.Error = s.Err.Error()
					}
					rows = append(rows, r)
				}
				return writeJSON(g, rows)
			}
			rows := make([][]string, 0, len(status))
			for _, s := range status {
				tools := "-"
				if s.Tools >= 0 {
					tools = strconv.Itoa(s.Tools)
				}
				note := ""
				if s.Err != nil {
					note = oneLine(s.Err.Error(), 100)
				}
				rows = append(rows, []string{s.Name, string(s.State), tools, s.Config.Source, note})
			}
			return writeTable(g, "no MCP servers configured (add them to .mcp.json in the mcpServers format)",
				[]string{"SERVER", "STATE", "TOOLS", "FROM", "NOTE"}, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// newMCPToolsCommand is `wield mcp tools SERVER`.
func newMCPToolsCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tools SERVER",
		Short: "list the tools one MCP server offers, under their wield names",
		Long: `Tools starts the MCP server called SERVER if needed and prints one line per
tool: its wield name, what the server says of it (read-only, destructive) and
the first line of its description. A server not trusted in the user's own
mcp.json ("trust": true) is marked untrusted: what it says is only a label,
and its tools are treated as destructive by the permission policy.

See also: wield mcp ls.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			mgr := g.mcpManager(ws)
			tools, errs := mgr.ServerTools(cmd.Context(), args[0])
			for _, err := range errs {
				fmt.Fprintf(g.stderr, "wield: %v\n", err)
			}
			if tools == nil && len(errs) > 0 {
				return &exitError{exitToolFailure, nil}
			}
			if asJSON {
				// Each tool's spec, with where it comes from and what its
				// server says of it.
				type row struct {
					tool.Spec
					Origin mcp.Origin `json:"origin"`
				}
				rows := make([]row, len(tools))
				for i, t := range tools {
					o, _ := mgr.Origin(t.Name())
					rows[i] = row{t.Spec(), o}
				}
				return writeJSON(g, rows)
			}
			for _, t := range tools {
				s := t.Spec()
				o, _ := mgr.Origin(s.Name)
				var marks []string
				if o.Hints.ReadOnly {
					marks = append(marks, "read-only")
				}
				if o.Hints.Destructive {
					marks = append(marks, "destructive")
				}
				if !o.Trusted {
					marks = append(marks, "untrusted")
				}
				desc, _, _ := strings.Cut(strings.TrimSpace(s.Description), "\n")
				fmt.Fprintf(g.stdout, "%s\t%s\t%s\n", s.Name, strings.Join(marks, ","), oneLine(desc, 100))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each tool's spec as JSON")
	return cmd
}

// mcpLookup returns how the values of a registered server's variables
// are found when it is mounted again: the values the user gave
// request_env in this process, then wield's environment.
func (g *globals) mcpLookup(ws string) func(string) (string, bool) {
	vars := g.extensions(ws).vars
	return func(name string) (string, bool) {
		if v, _, ok := vars.Lookup(name); ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
}

// applyMCP brings the running MCP servers in line with an undo just
// applied: the servers it took away are stopped and unmounted, those it
// brought back are mounted again.
func (g *globals) applyMCP(ctx context.Context, ws string, plan *ledger.Plan, sess *session.Session) {
	if g.mcp == nil || len(plan.MCP) == 0 {
		return
	}
	confirmed := map[string]bool{}
	for _, s := range registered.Servers(sess.State()) {
		confirmed[s.Added.Name] = s.Confirmed
	}
	for _, a := range plan.MCP {
		g.mcp.Remove(a.Name)
		if a.Remove {
			continue
		}
		cfg, err := mcp.ConfigOf(a.Server, g.mcpLookup(ws))
		if err != nil {
			g.logger().Warn("MCP server brought back", "err", err)
		}
		if err := g.mcp.AddRegistered(a.Name, cfg, confirmed[a.Name]); err != nil {
			g.logger().Warn("MCP server brought back", "server", a.Name, "err", err)
			continue
		}
		_, errs := g.mcp.MountServer(ctx, a.Name)
		for _, err := range errs {
			g.logger().Warn("MCP server brought back", "server", a.Name, "err", err)
		}
	}
}

// newMCPDoctorCommand is `wield mcp doctor`.
func newMCPDoctorCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [NAME] [--json]",
		Short: "start each MCP server as wield would and report what goes wrong",
		Long: `Doctor starts each configured MCP server (those of the trusted plugins
included), or only NAME, in a process of its own, as wield would, and
reports: how it is reached (command or URL), the initialize handshake
(protocol version, server name and version, capabilities), how long the start
and tools/list took, its tools and those whose input schema wield cannot use,
the last lines of its standard error (from .wield/logs/mcp/NAME.log), and,
when it failed, where (config, start, initialize, tools/list), why in words
(command not found, exited with status N before answering, no answer within
its startup_timeout, HTTP 401, text that is not a JSON-RPC message on
standard output) and what to do. Each server is stopped afterwards.

The --json flag prints the report as JSON: {"v": 1, "servers": [...]}, one
object per server with the fields above (see docs/cli.md).

The exit status is 0 when every server started (disabled ones are not
started), 1 when one failed, and 2 for an unknown NAME.

The model has the same report as the debug_mcp_server tool.

See also: wield mcp ls, wield mcp tools, wield doctor --check-mcp.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			mgr := g.mcpManager(ws)
			g.addPluginServers(mgr) // see extensions.go
			rep, err := mgr.Diagnose(cmd.Context(), args...)
			if err != nil {
				return &exitError{exitUsage, fmt.Errorf("%w (wield mcp ls lists the servers)", err)}
			}
			if asJSON {
				err = writeJSON(g, rep)
			} else {
				err = rep.Format(g.stdout)
			}
			if err == nil && !rep.Healthy() {
				return &exitError{exitToolFailure, nil}
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// newMCPConfirmCommand is `wield mcp confirm`.
func newMCPConfirmCommand(g *globals) *cobra.Command {
	var sessionID string
	cmd := &cobra.Command{
		Use:   "confirm NAME [--session ID]",
		Short: "trust an MCP server the agent registered, so that its tools stop asking at every call",
		Long: `Confirm records in a session that you trust the MCP server NAME, which the
agent registered there with register_mcp_server. Until then every call of its
tools asks you first, whatever the permission mode or rules; afterwards the
rules and the mode decide its calls as for any server from a project's
.mcp.json (its tools still count as destructive: what it claims of them is
only a label). The confirmation holds when the session is resumed, and is
for this registration: a server registered again with another command or URL
asks again.

The session is the workspace's latest unless --session names one; it must
not be running.

See also: wield mcp doctor, wield undo.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, _, err := g.undoSession(cmd.Context(), sessionID)
			if err != nil {
				return err
			}
			defer sess.Close()
			name := args[0]
			var found *registered.Server
			servers := registered.Servers(sess.State())
			for i := range servers {
				if servers[i].Added.Name == name {
					found = &servers[i]
				}
			}
			if found == nil {
				return &exitError{exitUsage, fmt.Errorf("session %s: the agent registered no MCP server %q that is still in effect", sess.ID(), name)}
			}
			if found.Confirmed {
				fmt.Fprintf(g.stdout, "MCP server %q is already confirmed in session %s\n", name, sess.ID())
				return nil
			}
			if _, err := registered.Append(sess, registered.Entry{Action: registered.Confirm, Name: name}); err != nil {
				return err
			}
			what := found.Added.URL
			if what == "" {
				what = strings.Join(append([]string{found.Added.Command}, found.Added.Args...), " ")
			}
			fmt.Fprintf(g.stdout, "confirmed MCP server %q (%s) in session %s\n", name, what, sess.ID())
			return nil
		},
	}
	cmd.Flags().StringVar(&sessionID, "session", "", "the session `ID` (default: the workspace's session written last)")
	return cmd
}

// workspaceOrEmpty returns the workspace, or "" when there is none.
func (g *globals) workspaceOrEmpty() string {
	ws, _ := g.workspace()
	return ws
}
