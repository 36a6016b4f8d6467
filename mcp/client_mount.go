package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/schema"
	"github.com/wieldhq/wield/tool"
)

// Bounds on what wield accepts from one server's tools/list.
const (
	// MaxToolsPerServer caps the tools one server may offer.
	MaxToolsPerServer = 1000
	// MaxDescriptionBytes caps a tool description; longer ones are cut.
	MaxDescriptionBytes = 8 << 10
	// maxListPages caps the pages of one tools/list.
	maxListPages = 100
)

// ToolName returns the name under which the tool called name of the server
// called server is mounted: "mcp__<server>__<tool>", as Claude Code names
// them, made legal for every provider by [schema.SanitizeName] (characters
// outside [A-Za-z0-9_-] become '_', and a name past [schema.MaxNameLength]
// is cut and ends in a hash of the whole name).
func ToolName(server, name string) string {
	return schema.SanitizeName("mcp__" + server + "__" + name)
}

// An Origin says where a mounted tool comes from.
type Origin struct {
	// Server is the server's name in the configuration; Tool is the tool's
	// name on that server.
	Server, Tool string
	// Trusted reports whether the server is trusted ([ServerConfig.Trust]):
	// only then are its hints the tool's [tool.Annotations], which a
	// policy reads (it may run a read-only tool without asking). The
	// tools of any other server are annotated as the least safe kind of
	// tool: not read-only, destructive, open-world, not parallel-safe.
	Trusted bool
	// Hints are what the server says of the tool, whether trusted or not.
	Hints Hints
}

// Hints are the annotations an MCP server gives one of its tools
// (readOnlyHint and the others), with MCP's defaults for those it leaves
// out. The MCP specification calls them untrusted hints unless they come
// from a trusted server, so they are labels to show a user: unless
// [Origin.Trusted], nothing that decides what runs reads them.
type Hints struct {
	// Title is the tool's display name, if the server gave one.
	Title string `json:"title,omitempty"`
	// ReadOnly, Destructive, Idempotent and OpenWorld are readOnlyHint
	// (default false), destructiveHint (default true, and meaningful only
	// when not read-only), idempotentHint (default false) and
	// openWorldHint (default true).
	ReadOnly    bool `json:"readOnly"`
	Destructive bool `json:"destructive"`
	Idempotent  bool `json:"idempotent"`
	OpenWorld   bool `json:"openWorld"`
}

// hints returns the hints of a listed tool, with MCP's defaults.
func hints(st *sdk.Tool) Hints {
	h := Hints{Title: st.Title, Destructive: true, OpenWorld: true}
	if a := st.Annotations; a != nil {
		h.Title = cmp.Or(h.Title, a.Title)
		h.ReadOnly = a.ReadOnlyHint
		h.Destructive = !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
		h.Idempotent = a.IdempotentHint
		h.OpenWorld = a.OpenWorldHint == nil || *a.OpenWorldHint
	}
	h.Title = boundText(strings.ToValidUTF8(h.Title, "\uFFFD"), 200)
	return h
}

// Origin returns where the mounted tool called name comes from, as last
// listed. It reports false for a name no server's tools have.
func (m *Manager) Origin(name string) (Origin, bool) {
	for _, s := range m.sortedServers() {
		s.mu.Lock()
		ts := s.tools
		s.mu.Unlock()
		if ts == nil {
			continue
		}
		if orig, ok := ts.origin[name]; ok {
			return orig, true
		}
	}
	return Origin{}, false
}

// toolSet is one server's tools as last listed.
type toolSet struct {
	tools  []*tool.Tool // sorted by name
	origin map[string]Origin
	errs   []error // tools left out, and why
}

// Tools lists the tools of every enabled server, starting those that are
// not running, all at once; each server's start and listing is bounded by
// its startup_timeout. It returns the tools sorted by name, with handlers
// that start their server again when needed, and the errors: one for each
// server that could not be listed or is misconfigured, and one for each
// tool left out because its schema is invalid or its name collides with
// another's. Colliding tools are all left out, so what is mounted never
// depends on the order servers answered in. Tools filtered out by include
// and exclude are left out silently.
func (m *Manager) Tools(ctx context.Context) ([]*tool.Tool, []error) {
	tools, _, errs := m.listAll(ctx)
	return tools, errs
}

// listAll is Tools, also returning the server of each tool.
func (m *Manager) listAll(ctx context.Context) ([]*tool.Tool, map[*tool.Tool]*server, []error) {
	servers := slices.DeleteFunc(m.sortedServers(), func(s *server) bool { return s.cfgErr == nil && !s.cfg.IsEnabled() })
	sets := make([]*toolSet, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { sets[i], errs[i] = s.list(ctx) })
	}
	wg.Wait()
	var all []*tool.Tool
	var out []error
	owner := map[*tool.Tool]*server{}
	describe := map[*tool.Tool]string{}
	for i, ts := range sets {
		if errs[i] != nil {
			out = append(out, errs[i])
		}
		if ts == nil {
			continue
		}
		all = append(all, ts.tools...)
		out = append(out, ts.errs...)
		for _, t := range ts.tools {
			owner[t] = servers[i]
			describe[t] = fmt.Sprintf("%q of mcp server %q", ts.origin[t.Name()].Tool, servers[i].name)
		}
	}
	tools, cerrs := dropCollisions(all, func(t *tool.Tool) string { return describe[t] })
	return tools, owner, append(out, cerrs...)
}

// ServerTools lists the tools of the server called name, starting it if
// needed, bounded by its startup_timeout; the errors are as for
// [Manager.Tools]. A disabled server is an error.
func (m *Manager) ServerTools(ctx context.Context, name string) ([]*tool.Tool, []error) {
	s, err := m.server(name)
	if err != nil {
		return nil, []error{err}
	}
	ts, err := s.list(ctx)
	if err != nil {
		return nil, []error{err}
	}
	return ts.tools, ts.errs
}

// Tool returns the mounted tool called name, listing only the servers
// whose tools could have that name (so `wield call mcp__github__x` starts
// just the github server). It returns an error wrapping [tool.ErrNotFound]
// if no server has it.
func (m *Manager) Tool(ctx context.Context, name string) (*tool.Tool, error) {
	var errs []error
	for _, s := range m.sortedServers() {
		if !s.cfg.IsEnabled() || s.cfgErr != nil || !mayName(s.name, name) {
			continue
		}
		ts, err := s.list(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, t := range ts.tools {
			if t.Name() == name {
				return t, nil
			}
		}
	}
	err := fmt.Errorf("%w: no mcp server offers %s", tool.ErrNotFound, name)
	return nil, errors.Join(append([]error{err}, errs...)...)
}

// mayName reports whether a tool of server could be mounted as name.
func mayName(server, name string) bool {
	prefix := schema.SanitizeName("mcp__" + server + "__")
	if len(prefix) > schema.MaxNameLength-9 {
		prefix = prefix[:schema.MaxNameLength-9]
	}
	return strings.HasPrefix(name, prefix)
}

// list starts the server if needed, lists its tools and keeps them as its
// current tool set. Starting and listing are each bounded by
// startup_timeout.
func (s *server) list(ctx context.Context) (*toolSet, error) {
	c, err := s.session(ctx) // bounded by startup_timeout
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.startupTimeout(), fmt.Errorf("mcp server %q did not list its tools within %v (its startup_timeout)", s.name, s.cfg.startupTimeout()))
	defer cancel()
	var listed []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("list tools of mcp server %q: more than %d pages", s.name, maxListPages)
		}
		res, err := c.session.ListTools(ctx, params)
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, fmt.Errorf("list tools of mcp server %q: %w", s.name, err)
		}
		listed = append(listed, res.Tools...)
		if len(listed) > MaxToolsPerServer {
			return nil, fmt.Errorf("list tools of mcp server %q: more than %d tools", s.name, MaxToolsPerServer)
		}
		if res.NextCursor == "" {
			break
		}
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
	ts := s.convert(listed)
	s.mu.Lock()
	s.tools = ts
	s.mu.Unlock()
	for _, err := range ts.errs {
		s.m.log.Warn("mcp tool left out", "server", s.name, "err", err)
	}
	return ts, nil
}

// convert makes wield tools of a server's listed tools.
func (s *server) convert(listed []*sdk.Tool) *toolSet {
	ts := &toolSet{origin: map[string]Origin{}}
	var tools []*tool.Tool
	seen := map[string]bool{}
	for _, st := range listed {
		if st == nil {
			continue
		}
		if !s.cfg.keeps(st.Name) {
			continue
		}
		if seen[st.Name] {
			ts.errs = append(ts.errs, fmt.Errorf("mcp server %q lists tool %q twice; using the first", s.name, st.Name))
			continue
		}
		seen[st.Name] = true
		t, err := s.convertTool(st)
		if err != nil {
			ts.errs = append(ts.errs, fmt.Errorf("mcp server %q: tool %q left out: %w", s.name, st.Name, err))
			continue
		}
		ts.origin[t.Name()] = Origin{Server: s.name, Tool: st.Name, Trusted: s.cfg.Trust, Hints: hints(st)}
		tools = append(tools, t)
	}
	var cerrs []error
	ts.tools, cerrs = dropCollisions(tools, func(t *tool.Tool) string {
		return fmt.Sprintf("%q of mcp server %q", ts.origin[t.Name()].Tool, s.name)
	})
	ts.errs = append(ts.errs, cerrs...)
	return ts
}

// dropCollisions sorts tools by name and leaves out every tool whose name
// another has, with an error for each such name.
func dropCollisions(tools []*tool.Tool, describe func(*tool.Tool) string) ([]*tool.Tool, []error) {
	byName := map[string][]*tool.Tool{}
	for _, t := range tools {
		byName[t.Name()] = append(byName[t.Name()], t)
	}
	var out []*tool.Tool
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		group := byName[name]
		if len(group) == 1 {
			out = append(out, group[0])
			continue
		}
		var who []string
		for _, t := range group {
			who = append(who, describe(t))
		}
		slices.Sort(who)
		errs = append(errs, fmt.Errorf("tools %s are all mounted as %s; none of them is mounted: rename a server in the configuration", strings.Join(who, " and "), name))
	}
	return out, errs
}

// convertTool makes a wield tool of one listed tool.
func (s *server) convertTool(st *sdk.Tool) (*tool.Tool, error) {
	if st.Name == "" {
		return nil, errors.New("the tool has no name")
	}
	in, err := inputSchema(st.InputSchema)
	if err != nil {
		return nil, err
	}
	desc := strings.TrimSpace(strings.ToValidUTF8(st.Description, "\uFFFD"))
	if desc == "" {
		desc = cmp.Or(st.Title, st.Name)
	}
	desc = boundText(desc, MaxDescriptionBytes)
	desc += fmt.Sprintf("\n\n(Tool %q of MCP server %q.)", st.Name, s.name)
	return tool.NewRaw(tool.Spec{
		Name:        ToolName(s.name, st.Name),
		Description: desc,
		InputSchema: in,
		Annotations: s.annotations(st),
		Timeout:     s.cfg.callTimeout(),
	}, &toolHandler{s: s, name: st.Name})
}

// annotations returns the annotations of one of the server's tools: its
// hints, with MCP's defaults, when the user trusts the server (read-only
// tools may then run in parallel). The MCP specification: "clients MUST
// consider tool annotations to be untrusted unless they come from trusted
// servers". So whatever an untrusted server says, its tools are taken to
// change things for good, to reach outside the workspace and to need to
// run alone, and no policy loosens a permission on its word.
func (s *server) annotations(st *sdk.Tool) tool.Annotations {
	if !s.cfg.Trust {
		return tool.Annotations{Destructive: true, OpenWorld: true}
	}
	h := hints(st)
	return tool.Annotations{
		ReadOnly:     h.ReadOnly,
		Destructive:  h.Destructive,
		OpenWorld:    h.OpenWorld,
		ParallelSafe: h.ReadOnly,
	}
}

// toolHandler calls one tool of a server.
type toolHandler struct {
	s    *server
	name string
}

func (h *toolHandler) Handle(ctx context.Context, c *tool.Call, args json.RawMessage) (tool.Result, error) {
	return h.s.call(ctx, c, h.name, args), nil
}

// lostGrace bounds the wait for a broken connection's reason after a call
// failed on it.
const lostGrace = 5 * time.Second

// call calls the server's tool name. Every failure is a result that says
// what happened.
func (s *server) call(ctx context.Context, tc *tool.Call, name string, args json.RawMessage) tool.Result {
	timeout := s.cfg.callTimeout()
	timedOut := fmt.Errorf("mcp server %q did not answer within %v (its call_timeout)", s.name, timeout)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, timedOut)
	defer cancel()
	stopped := func() tool.Result {
		if cause := context.Cause(ctx); cause != timedOut {
			// The caller stopped the call and will say why.
			return tool.Failure(fmt.Sprintf("mcp server %q had not answered yet", s.name))
		}
		return tool.Failure(timedOut.Error())
	}
	c, err := s.session(ctx)
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != timedOut {
			return stopped()
		}
		return tool.Failure(err.Error())
	}
	callCtx, cancelCall := context.WithCancelCause(ctx)
	defer cancelCall(nil)
	if !c.track(&cancelCall) {
		<-c.done
		return tool.Failure(c.err.Error())
	}
	defer c.untrack(&cancelCall)
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	token, release := c.newProgressToken(tc)
	params.SetProgressToken(token)
	callCtx, span := s.traceCall(callCtx, c, name, params)
	res, err := c.session.CallTool(callCtx, params)
	span.End(callCtx, err == nil && res.IsError, err)
	release()
	if err == nil {
		s.succeeded()
		return toResult(s.name, name, res)
	}
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
		return tool.Failure(fmt.Sprintf("mcp server %q refused the call of %q: %s (JSON-RPC error %d)", s.name, name, boundText(werr.Message, 2000), werr.Code))
	case ctx.Err() != nil:
		return stopped()
	case callCtx.Err() != nil:
		return tool.Failure("the call was lost: " + context.Cause(callCtx).Error())
	}
	// The connection may have broken under the call; its watcher says
	// why. A stdio server's end is certain to be noticed (its standard
	// output closes), so that is worth waiting for, briefly.
	lost := func() tool.Result { return tool.Failure("the call was lost: " + c.err.Error()) }
	select {
	case <-c.done:
		return lost()
	default:
	}
	if c.proc != nil {
		t := time.NewTimer(lostGrace)
		defer t.Stop()
		select {
		case <-c.done:
			return lost()
		case <-t.C:
		case <-ctx.Done():
			return stopped()
		}
	}
	return tool.Failure(fmt.Sprintf("call of %q on mcp server %q failed: %v", name, s.name, err))
}

// traceCall starts the span of a call of the tool name on c, when the
// manager traces, and puts its trace context into params' _meta.
func (s *server) traceCall(ctx context.Context, c *conn, name string, params *sdk.CallToolParams) (context.Context, *otel.MCPCall) {
	tel := s.m.opts.Telemetry
	if tel == nil {
		return ctx, nil
	}
	info := otel.MCPInfo{Tool: name, Server: s.name, SessionID: c.session.ID(), Transport: "tcp"}
	if c.proc != nil {
		info.Transport = "pipe"
	}
	if ir := c.session.InitializeResult(); ir != nil {
		info.ProtocolVersion = ir.ProtocolVersion
	}
	ctx, span, trace := tel.StartMCPClient(ctx, info)
	if params.Meta == nil {
		params.Meta = sdk.Meta{}
	}
	trace.SetMeta(params.Meta)
	return ctx, span
}

// A mount is a registry the manager keeps in step with its servers.
type mount struct {
	reg *tool.Registry
	// tools maps the names of the tools the manager registered to their
	// servers.
	tools map[string]*server
	// exclude names the tools kept out of reg (see [Manager.Track]).
	exclude map[string]bool
}

// Mount registers the tools of every enabled server in reg (see
// [Manager.Tools]) and keeps them up to date for the life of the manager:
// when a server's tool list changes (notifications/tools/list_changed,
// or a restart), its tools are re-registered; a server added with
// [Manager.Add] and listed with [Manager.MountServer] joins; a removed
// server's tools go. It returns the errors of Tools and of registering.
func (m *Manager) Mount(ctx context.Context, reg *tool.Registry) []error {
	tools, owner, errs := m.listAll(ctx)
	mt := &mount{reg: reg, tools: map[string]*server{}}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range tools {
		if m.servers[owner[t].name] != owner[t] {
			continue // removed meanwhile
		}
		if err := reg.Register(t); err != nil {
			errs = append(errs, fmt.Errorf("mount mcp tool: %w", err))
			continue
		}
		mt.tools[t.Name()] = owner[t]
	}
	m.mounts = append(m.mounts, mt)
	return errs
}

// MountServer lists the tools of the server called name (starting it,
// bounded by its startup_timeout) and brings them into every registry
// given to [Manager.Mount]. It returns the server's tools and the errors:
// a tool whose name is taken in a registry is left out of it.
func (m *Manager) MountServer(ctx context.Context, name string) ([]*tool.Tool, []error) {
	tools, warnings, err := m.mountServer(ctx, name)
	if err != nil {
		return nil, []error{err}
	}
	return tools, warnings
}

// mountServer is MountServer, telling a server that could not be listed
// (err) from tools left out (warnings).
func (m *Manager) mountServer(ctx context.Context, name string) (tools []*tool.Tool, warnings []error, err error) {
	s, err := m.server(name)
	if err != nil {
		return nil, nil, err
	}
	ts, err := s.list(ctx)
	if err != nil {
		return nil, nil, err
	}
	return ts.tools, append(slices.Clone(ts.errs), m.syncServer(s, ts)...), nil
}

// syncServer makes the mounted registries hold exactly the tools of ts
// for the server s.
func (m *Manager) syncServer(s *server, ts *toolSet) []error {
	want := map[string]*tool.Tool{}
	for _, t := range ts.tools {
		want[t.Name()] = t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.servers[s.name] != s {
		return nil // removed meanwhile
	}
	var errs []error
	for _, mt := range m.mounts {
		for name, owner := range mt.tools {
			if owner == s {
				if _, ok := want[name]; !ok {
					mt.reg.Remove(name)
					delete(mt.tools, name)
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(want)) {
			if mt.exclude[name] {
				continue
			}
			if owner, ok := mt.tools[name]; ok && owner != s {
				errs = append(errs, fmt.Errorf("tool %s of mcp server %q is not mounted: mcp server %q has a tool of that name", name, s.name, owner.name))
				continue
			}
			if mt.tools[name] == s {
				mt.reg.Remove(name)
			}
			if err := mt.reg.Register(want[name]); err != nil {
				delete(mt.tools, name)
				errs = append(errs, fmt.Errorf("mount mcp tool: %w", err))
				continue
			}
			mt.tools[name] = s
		}
	}
	return errs
}

// unmountServer takes the tools of s out of the mounted registries.
func (m *Manager) unmountServer(s *server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mt := range m.mounts {
		for name, owner := range mt.tools {
			if owner == s {
				mt.reg.Remove(name)
				delete(mt.tools, name)
			}
		}
	}
}

// scheduleRefresh lists the server's tools again in the background and
// brings the mounted registries up to date; refreshes asked for while one
// runs are folded into one more.
func (s *server) scheduleRefresh(ctx context.Context) {
	s.mu.Lock()
	if s.refreshing {
		s.refreshAgain = true
		s.mu.Unlock()
		return
	}
	s.refreshing = true
	s.mu.Unlock()
	err := s.m.goDetached(ctx, func(ctx context.Context) {
		for {
			ts, err := s.list(ctx)
			if err != nil {
				s.m.log.Warn("cannot refresh mcp tools", "server", s.name, "err", err)
			} else {
				for _, err := range s.m.syncServer(s, ts) {
					s.m.log.Warn("mcp tool not mounted", "server", s.name, "err", err)
				}
			}
			s.mu.Lock()
			again := s.refreshAgain && ctx.Err() == nil
			s.refreshAgain = false
			s.refreshing = again
			s.mu.Unlock()
			if !again {
				break
			}
		}
		if f := s.m.opts.OnToolsChanged; f != nil && ctx.Err() == nil {
			f(s.name)
		}
	})
	if err != nil {
		s.mu.Lock()
		s.refreshing = false
		s.mu.Unlock()
	}
}
