package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// ServerOptions configures a [Server]. The zero value serves the registry's
// visible tools without a workspace or a session.
type ServerOptions struct {
	// Name and Version identify the server to clients; empty means "wield"
	// and "dev".
	Name, Version string
	// Instructions are sent to clients on initialize.
	Instructions string
	// Root is the workspace given to every call; nil means none.
	Root *os.Root
	// Runner runs the calls; nil means a runner with default options over
	// the registry. Its Recorder and OnEvent are replaced.
	RunnerOptions *tool.RunnerOptions
	// Store and SessionID, when both set, record every call and its result
	// in that session through [session.Store.Record].
	Store     *session.Store
	SessionID string
	// Logger receives the server's logs; nil discards them. Over
	// stdio it must not write to standard output.
	Logger *slog.Logger
	// Telemetry, if set, traces each tools/call with a SERVER span that
	// continues the caller's trace when the request's _meta carries a
	// traceparent. Nil traces nothing.
	Telemetry *otel.Telemetry
}

// A Server serves a tool registry over MCP. Create it with [NewServer],
// or with [BuildServer] to answer initialize while the tools are built;
// it is safe for concurrent use by any number of client sessions.
type Server struct {
	opts ServerOptions
	sdk  *sdk.Server
	log  *slog.Logger

	// ready is closed once the tools are in place or failed to be;
	// buildErr, written before, says which. What follows is set before
	// ready is closed and read only after.
	ready    chan struct{}
	buildErr error
	reg      *tool.Registry
	runner   *tool.Runner
	served   map[string]bool
	// structured holds the served tools that declare an output schema.
	structured map[string]bool

	ids      atomic.Uint64
	progress sync.Map // call id → *progressTarget
}

// progressTarget is where a call's progress goes.
type progressTarget struct {
	send  func(context.Context, *sdk.ProgressNotificationParams) error
	token any
	ctx   context.Context
	n     atomic.Int64
}

// NewServer returns a server for the visible tools of reg.
func NewServer(reg *tool.Registry, opts *ServerOptions) (*Server, error) {
	s := newServer(opts)
	err := s.install(reg)
	s.buildErr = err
	close(s.ready)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// BuildServer returns at once a server for the visible tools of the
// registry that build returns, and runs build on a goroutine of its own,
// with ctx. Until build returns, the server answers the handshake and
// pings over stdio and holds the tools/ requests; then it answers them
// as a server from [NewServer] would. So a client's handshake does not
// wait for tools that take long to build, or for the MCP servers they
// mount. Over HTTP every request waits for build. build should return
// when ctx is done.
//
// If build fails, [Server.ServeStdio] returns its error and the HTTP
// handler answers 503 Service Unavailable; [Server.Ready] reports it.
// The tool list never changes after build: the server says so to
// clients (tools.listChanged false), as [NewServer]'s does.
func BuildServer(ctx context.Context, build func(context.Context) (*tool.Registry, error), opts *ServerOptions) *Server {
	s := newServer(opts)
	go func() {
		defer close(s.ready)
		reg, err := build(ctx)
		if err == nil {
			err = s.install(reg)
		}
		s.buildErr = err
	}()
	return s
}

// Ready waits until the server's tools are in place and returns nil, or
// returns the error that kept them out, or ctx's error when ctx is done
// first. A server from [NewServer] is ready at once.
func (s *Server) Ready(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.buildErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newServer returns a server without tools.
func newServer(opts *ServerOptions) *Server {
	s := &Server{ready: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	name, version := s.opts.Name, s.opts.Version
	if name == "" {
		name = "wield"
	}
	if version == "" {
		version = "dev"
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: name, Version: version}, &sdk.ServerOptions{
		Instructions: s.opts.Instructions,
		Logger:       s.log,
		// Declared rather than derived from the tools added, which a
		// server from BuildServer has none of at initialize. The list is
		// fixed once built, so no list_changed is promised (and none is
		// sent as the tools are added). No logging either: the server
		// logs to its Logger, never to the client.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: false}},
	})
	return s
}

// install puts the visible tools of reg in place.
func (s *Server) install(reg *tool.Registry) error {
	if reg == nil {
		return errors.New("mcp: no tool registry")
	}
	var ro tool.RunnerOptions
	if s.opts.RunnerOptions != nil {
		ro = *s.opts.RunnerOptions
	}
	ro.OnEvent = s.onEvent
	ro.Logger = s.log
	if s.opts.Store != nil && s.opts.SessionID != "" {
		ro.Recorder = &pairRecorder{store: s.opts.Store, id: s.opts.SessionID}
	}
	s.reg = reg
	s.runner = tool.NewRunner(reg, &ro)
	s.served, s.structured = map[string]bool{}, map[string]bool{}
	for _, t := range reg.Visible() {
		s.served[t.Name()] = true
		s.structured[t.Name()] = len(t.Spec().OutputSchema) != 0
		mt, err := mcpTool(t)
		if err != nil {
			return err
		}
		s.sdk.AddTool(mt, s.handler(t.Name()))
	}
	return nil
}

// SDK returns the underlying go-sdk server, for transports this package
// does not wrap. A server from [BuildServer] has its tools only once
// [Server.Ready] has returned nil.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// mcpTool describes t in MCP's terms.
func mcpTool(t *tool.Tool) (*sdk.Tool, error) {
	spec := t.Spec()
	// The schemas go to the SDK as JSON text, which it checks and writes
	// as they are: as maps, each would be encoded again at every start.
	if !json.Valid(spec.InputSchema) {
		return nil, fmt.Errorf("tool %s: input schema is not valid JSON", spec.Name)
	}
	a := spec.Annotations
	destructive, openWorld := a.Destructive, a.OpenWorld
	mt := &sdk.Tool{
		Name:        spec.Name,
		Description: spec.Description,
		InputSchema: spec.InputSchema,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &destructive,
			OpenWorldHint:   &openWorld,
		},
	}
	if len(spec.OutputSchema) != 0 {
		if !json.Valid(spec.OutputSchema) {
			return nil, fmt.Errorf("tool %s: output schema is not valid JSON", spec.Name)
		}
		mt.OutputSchema = spec.OutputSchema
	}
	return mt, nil
}

// handler returns the MCP handler of the tool called name.
func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var send func(context.Context, *sdk.ProgressNotificationParams) error
		if req.Session != nil {
			send = req.Session.NotifyProgress
		}
		return s.callTool(ctx, name, req.Params.Arguments, req.Params.GetProgressToken(), send, otel.FromMeta(req.Params.Meta)), nil
	}
}

// callTool runs one tools/call: through the runner (validation, policy,
// timeouts, bounds, recording), with progress sent to the client when it
// gave a token, traced as a continuation of trace when the server traces.
func (s *Server) callTool(ctx context.Context, name string, args json.RawMessage, token any, send func(context.Context, *sdk.ProgressNotificationParams) error, trace otel.TraceContext) (out *sdk.CallToolResult) {
	if tel := s.opts.Telemetry; tel != nil {
		var span *otel.MCPCall
		ctx, span = tel.StartMCPServer(ctx, trace, otel.MCPInfo{Tool: name})
		defer func() { span.End(ctx, out.IsError, nil) }()
	}
	id := "mcp-" + strconv.FormatUint(s.ids.Add(1), 10)
	if token != nil && send != nil {
		s.progress.Store(id, &progressTarget{send: send, token: token, ctx: ctx})
		defer s.progress.Delete(id)
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	tmpl := tool.Call{SessionID: s.opts.SessionID, Agent: "mcp", Root: s.opts.Root}
	res, err := s.runner.Call(ctx, tmpl, tool.Request{ID: id, Name: name, Arguments: args})
	if err != nil {
		// A fault (the session could not record the call): the client
		// hears about it as a failed call; the server keeps serving.
		s.log.Error("tool call fault", "tool", name, "call", id, "err", err)
		if res.Error == "" {
			res = tool.Failure(err.Error())
		} else {
			res.Error += " (" + err.Error() + ")"
		}
		res.Success = false
	}
	return toMCPResult(res, s.structured[name])
}

// toMCPResult maps a wield result to a tools/call result: the text the
// model reads as text content, its pictures as image content after it,
// and a failure as isError. The data becomes
// structured content, when it is a JSON object, in two cases:
//
//   - a success of a tool that declares an output schema (structured says
//     so), whose data the schema describes; the same JSON follows as a
//     second text content, for clients that read only text, as the spec
//     advises;
//   - a failure of a tool that declares none, such as the violations of
//     invalid arguments. A tool with an output schema fails without
//     structured content, which its schema would not describe (clients
//     check it even on errors).
//
// So a successful result carries structured content only when the tool
// declares its shape.
func toMCPResult(r tool.Result, structured bool) *sdk.CallToolResult {
	out := &sdk.CallToolResult{IsError: !r.Success}
	out.Content = []sdk.Content{&sdk.TextContent{Text: r.ForModel()}}
	for _, img := range r.Images {
		if len(img.Data) > 0 {
			out.Content = append(out.Content, &sdk.ImageContent{Data: img.Data, MIMEType: img.MIMEType})
		}
	}
	if r.Data == nil || r.Success != structured {
		return out
	}
	b, err := json.Marshal(r.Data)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return out
	}
	out.StructuredContent = json.RawMessage(b)
	if r.Success {
		out.Content = append(out.Content, &sdk.TextContent{Text: string(b)})
	}
	return out
}

// onEvent forwards a call's progress to the client that asked for it.
func (s *Server) onEvent(e tool.Event) {
	if e.Kind != tool.EventProgress {
		return
	}
	v, ok := s.progress.Load(e.CallID)
	if !ok {
		return
	}
	p := v.(*progressTarget)
	progress := e.Progress
	if progress == 0 && e.Total == 0 {
		// Progress must increase; count events when the tool gives none.
		progress = float64(p.n.Add(1))
	}
	err := p.send(p.ctx, &sdk.ProgressNotificationParams{
		ProgressToken: p.token, Message: e.Message, Progress: progress, Total: e.Total,
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		s.log.Debug("progress notification failed", "call", e.CallID, "err", err)
	}
}

// pairRecorder records each call with its result into a session through
// the store, so that calls from MCP clients land in the journal.
type pairRecorder struct {
	store *session.Store
	id    string
	args  sync.Map // call id → json.RawMessage
}

func (r *pairRecorder) RecordCall(_ context.Context, c *tool.Call, args json.RawMessage) error {
	r.args.Store(c.ID, args)
	return nil
}

func (r *pairRecorder) RecordResult(ctx context.Context, c *tool.Call, res tool.Result) error {
	v, _ := r.args.LoadAndDelete(c.ID)
	args, _ := v.(json.RawMessage)
	// The client may have gone; the record must still be written.
	return r.store.Record(context.WithoutCancel(ctx), r.id, c, args, res)
}
