package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/tool"
)

// Restart backoff of a crashed or failed server: the first restart is
// immediate, then each consecutive failure doubles the delay, from
// [ManagerOptions.RestartDelay] up to MaxRestartDelay (or RestartDelay,
// if that is longer).
const (
	DefaultRestartDelay = time.Second
	MaxRestartDelay     = time.Minute
)

// stopGrace is how long a stdio server gets to exit after its standard
// input is closed before it is killed.
const stopGrace = 2 * time.Second

// ErrClosed is returned (wrapped) by the methods of a closed [Manager],
// and is the reason given to calls cut short by [Manager.Close].
var ErrClosed = errors.New("mcp client closed")

// ErrUnknownServer is returned (wrapped) for a server name the [Manager]
// does not know.
var ErrUnknownServer = errors.New("unknown mcp server")

// ManagerOptions configures a [Manager]. A nil *ManagerOptions, or a zero
// field, means the documented default.
type ManagerOptions struct {
	// Dir is the working directory of stdio servers; empty means wield's.
	// It is usually the workspace root, where .mcp.json lives.
	Dir string
	// Env is the environment stdio servers start with, before their own
	// "env"; nil means wield's environment (os.Environ).
	Env []string
	// LogDir is where each stdio server's standard error is appended, to
	// <server>.log (the name sanitised); empty means it is kept only in
	// memory, to quote in errors. wield uses .wield/logs/mcp.
	LogDir string
	// Logger receives warnings (a crashed server, a skipped tool); nil
	// means they are discarded.
	Logger *slog.Logger
	// RestartDelay is the delay before the second consecutive restart of
	// a failing server; zero means DefaultRestartDelay.
	RestartDelay time.Duration
	// HTTPClient makes the requests to HTTP servers; nil means a client
	// with Go's default transport.
	HTTPClient *http.Client
	// Name and Version identify wield to servers; empty means "wield"
	// and "dev".
	Name, Version string
	// OnToolsChanged, if set, is called (from a goroutine of the manager)
	// after a server's tool list changed: the server sent
	// notifications/tools/list_changed, or came back after a crash. The
	// registries given to [Manager.Mount] are already updated by then.
	// It must not call [Manager.Close], which waits for it.
	OnToolsChanged func(server string)
}

// A Manager connects to MCP servers and makes their tools wield tools. It
// is a value: create one with [NewManager] per process (or per test) and
// [Manager.Close] it; Close stops every server and waits for every
// goroutine the manager started.
//
// # Lifecycle
//
// A server starts on first use: when its tools are listed ([Manager.Tools])
// or one is called. [Manager.Start] starts every enabled server at once
// instead. Starting, including the initialize handshake, is bounded by the
// server's startup_timeout. A stdio server runs in its own process group
// with its standard error appended to a log file; when it exits, or breaks
// the protocol, its calls in flight fail with a result that says so and it
// is started again on its next use: at once after one failure, then after
// a delay that doubles with each consecutive failure (see
// [ManagerOptions.RestartDelay]); meanwhile calls fail at once with the
// last error. A successful call resets the count.
//
// A Manager is safe for concurrent use.
type Manager struct {
	opts ManagerOptions
	log  *slog.Logger

	closed atomic.Bool
	wg     sync.WaitGroup
	tokens atomic.Uint64

	mu      sync.Mutex
	servers map[string]*server
	cancels map[*context.CancelCauseFunc]struct{}
	mounts  []*mount
}

// NewManager returns a manager for servers, keyed by name. Invalid
// configurations are kept, so that [Manager.Status] shows them, and their
// errors come back from [Manager.Tools]. No server is started yet.
func NewManager(servers map[string]ServerConfig, opts *ManagerOptions) *Manager {
	m := &Manager{servers: map[string]*server{}, cancels: map[*context.CancelCauseFunc]struct{}{}}
	if opts != nil {
		m.opts = *opts
	}
	m.log = m.opts.Logger
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	m.opts.RestartDelay = cmp.Or(m.opts.RestartDelay, DefaultRestartDelay)
	if m.opts.Env == nil {
		m.opts.Env = os.Environ()
	}
	for name, cfg := range servers {
		m.servers[name] = m.newServer(name, cfg)
	}
	return m
}

func (m *Manager) newServer(name string, cfg ServerConfig) *server {
	return &server{m: m, name: name, cfg: cfg, cfgErr: cfg.Validate(name), stderr: newStderrSink(m.opts.LogDir, name)}
}

// Add adds a server to the manager, for the rest of its life. It returns
// an error if the name is taken, the configuration is invalid or the
// manager is closed. The server starts on first use; see [Manager.Mount]
// for what happens to registries mounted before.
func (m *Manager) Add(name string, cfg ServerConfig) error {
	if err := cfg.Validate(name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return fmt.Errorf("add mcp server %q: %w", name, ErrClosed)
	}
	if _, ok := m.servers[name]; ok {
		return fmt.Errorf("add mcp server %q: a server of that name exists already", name)
	}
	m.servers[name] = m.newServer(name, cfg)
	return nil
}

// Remove stops the server called name, takes its tools out of the mounted
// registries and forgets it. It reports whether there was such a server.
func (m *Manager) Remove(name string) bool {
	m.mu.Lock()
	s, ok := m.servers[name]
	delete(m.servers, name)
	m.mu.Unlock()
	if !ok {
		return false
	}
	s.shutdown()
	m.unmountServer(s)
	return true
}

// server returns the server called name.
func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownServer, name)
	}
	return s, nil
}

// sortedServers returns the servers sorted by name.
func (m *Manager) sortedServers() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, name := range slices.Sorted(maps.Keys(m.servers)) {
		out = append(out, m.servers[name])
	}
	return out
}

// goDetached runs f in a goroutine of the manager, for work that outlives
// the call that started it (a server start, a refresh). f's context keeps
// ctx's values but not its cancellation, and is cancelled by Close, which
// waits for f. It returns ErrClosed, and does not run f, once the manager
// is closed.
func (m *Manager) goDetached(ctx context.Context, f func(context.Context)) error {
	dctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		cancel(ErrClosed)
		return ErrClosed
	}
	key := &cancel
	m.cancels[key] = struct{}{}
	// Added under m.mu, which Close takes before it waits: no Add can
	// race with the Wait.
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer func() {
			m.mu.Lock()
			delete(m.cancels, key)
			m.mu.Unlock()
			cancel(nil)
		}()
		f(dctx)
	}()
	return nil
}

// Start starts every enabled server that is not running, at once, and
// waits until each is running or has failed to start. It returns the
// errors of those that failed.
func (m *Manager) Start(ctx context.Context) []error {
	servers := slices.DeleteFunc(m.sortedServers(), func(s *server) bool { return !s.cfg.IsEnabled() })
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { _, errs[i] = s.session(ctx) })
	}
	wg.Wait()
	return slices.DeleteFunc(errs, func(e error) bool { return e == nil })
}

// Close stops every server: calls in flight fail with [ErrClosed], stdio
// servers get their standard input closed and are killed, with their
// process groups, if they have not exited within a short grace period.
// Close waits for all of it and for every goroutine of the manager.
// Closing a closed manager does nothing.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed.Swap(true) {
		m.mu.Unlock()
		return nil
	}
	servers := slices.Collect(maps.Values(m.servers))
	cancels := slices.Collect(maps.Keys(m.cancels))
	m.mu.Unlock()
	for _, c := range cancels {
		(*c)(ErrClosed)
	}
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.shutdown)
	}
	wg.Wait()
	m.wg.Wait()
	for _, s := range servers {
		s.stderr.close()
	}
	return nil
}

// State is the state of a server, as [Manager.Status] reports it.
type State string

// The states of a server.
const (
	StateDisabled State = "disabled" // "enabled": false in its configuration
	StateInvalid  State = "invalid"  // its configuration is wrong; see Err
	StateStopped  State = "stopped"  // not started yet
	StateStarting State = "starting"
	StateRunning  State = "running"
	StateFailed   State = "failed" // did not start, or crashed; see Err
	StateClosed   State = "closed"
)

// ServerStatus describes one server of a [Manager].
type ServerStatus struct {
	Name   string
	Config ServerConfig
	State  State
	// Err is why the server is invalid or failed.
	Err error
	// PID is the process id of a running stdio server, else zero.
	PID int
	// Tools is the number of tools the server offered when last listed
	// (after include and exclude), or -1 if it has not been listed.
	Tools int
	// Starts counts successful starts; Crashes counts the times a running
	// server exited or broke the protocol.
	Starts, Crashes int
	// LogFile is the file its standard error goes to, if any.
	LogFile string
}

// Status describes every server, sorted by name. It starts nothing.
func (m *Manager) Status() []ServerStatus {
	var out []ServerStatus
	for _, s := range m.sortedServers() {
		out = append(out, s.status())
	}
	return out
}

// server is one configured server and its current connection.
type server struct {
	m      *Manager
	name   string
	cfg    ServerConfig
	cfgErr error
	stderr *stderrSink

	mu       sync.Mutex
	conn     *conn    // the live connection, or nil
	starting *attempt // the start in progress, or nil
	closed   bool
	failures int // consecutive failures (failed starts and crashes)
	lastErr  error
	lastFail time.Time
	starts   int
	crashes  int
	tools    *toolSet // as last listed, or nil

	refreshing, refreshAgain bool
}

// attempt is one start of a server.
type attempt struct {
	done chan struct{}
	conn *conn
	err  error
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{Name: s.name, Config: s.cfg, Tools: -1, Starts: s.starts, Crashes: s.crashes, LogFile: s.stderr.path}
	if s.cfg.transport() != "stdio" {
		st.LogFile = ""
	}
	if s.tools != nil {
		st.Tools = len(s.tools.tools)
	}
	switch {
	case s.cfgErr != nil:
		st.State, st.Err = StateInvalid, s.cfgErr
	case !s.cfg.IsEnabled():
		st.State = StateDisabled
	case s.closed:
		st.State = StateClosed
	case s.conn != nil:
		st.State = StateRunning
		if s.conn.proc != nil {
			st.PID = s.conn.proc.pid()
		}
	case s.starting != nil:
		st.State = StateStarting
	case s.lastErr != nil:
		st.State, st.Err = StateFailed, s.lastErr
	default:
		st.State = StateStopped
	}
	return st
}

// startTimeoutError is the cause given when a start runs out of time.
func (s *server) startTimeoutError() error {
	return fmt.Errorf("mcp server %q did not start within %v (its startup_timeout)", s.name, s.cfg.startupTimeout())
}

// backoff returns how long the server must wait before its next start.
func (s *server) backoff() time.Duration {
	if s.failures < 2 {
		return 0
	}
	d, limit := s.m.opts.RestartDelay, max(MaxRestartDelay, s.m.opts.RestartDelay)
	for i := 2; i < s.failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// session returns the live connection, starting the server if needed and
// waiting (bounded by ctx) for a start in progress.
func (s *server) session(ctx context.Context) (*conn, error) {
	if s.cfgErr != nil {
		return nil, s.cfgErr
	}
	if !s.cfg.IsEnabled() {
		return nil, fmt.Errorf("mcp server %q is disabled", s.name)
	}
	s.mu.Lock()
	switch {
	case s.closed || s.m.closed.Load():
		s.mu.Unlock()
		return nil, fmt.Errorf("mcp server %q: %w", s.name, ErrClosed)
	case s.conn != nil:
		c := s.conn
		s.mu.Unlock()
		return c, nil
	case s.starting == nil:
		if wait := time.Until(s.lastFail.Add(s.backoff())); wait > 0 {
			err := s.lastErr
			s.mu.Unlock()
			return nil, fmt.Errorf("%w (wield will try to start it again in %v)", err, wait.Round(time.Second))
		}
		a := &attempt{done: make(chan struct{})}
		if err := s.m.goDetached(ctx, func(ctx context.Context) { s.start(ctx, a) }); err != nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("mcp server %q: %w", s.name, err)
		}
		s.starting = a
	}
	a := s.starting
	s.mu.Unlock()
	select {
	case <-a.done:
		return a.conn, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for mcp server %q to start: %w", s.name, context.Cause(ctx))
	}
}

// start runs one start attempt and publishes its outcome in a.
func (s *server) start(ctx context.Context, a *attempt) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.startupTimeout(), s.startTimeoutError())
	defer cancel()
	c, err := s.connect(ctx)
	if err == nil {
		s.m.wg.Go(func() { s.watch(c) })
	}
	s.mu.Lock()
	s.starting = nil
	if err == nil && (s.closed || s.m.closed.Load()) {
		err = fmt.Errorf("mcp server %q: %w", s.name, ErrClosed)
		defer c.close(err)
		c = nil
	}
	if err != nil {
		s.failures++
		s.lastErr, s.lastFail = err, time.Now()
	} else {
		s.conn = c
		s.starts++
	}
	restarted := err == nil && s.starts > 1
	a.conn, a.err = c, err
	close(a.done)
	s.mu.Unlock()
	if err != nil {
		s.m.log.Warn("mcp server did not start", "server", s.name, "err", err)
		return
	}
	if restarted {
		// Its tools may have changed while it was down.
		s.scheduleRefresh(ctx)
	}
}

// succeeded resets the failure count after a call that worked.
func (s *server) succeeded() {
	s.mu.Lock()
	s.failures = 0
	s.mu.Unlock()
}

// watch waits for the connection c to end and, unless wield ended it,
// records the crash and fails the calls in flight with its reason.
func (s *server) watch(c *conn) {
	werr := c.session.Wait()
	if c.proc != nil {
		if ioEnded(werr) && !c.closing.Load() {
			// Its standard output ended or a pipe broke: the server is
			// most likely exiting. Give it the time to, so that its exit
			// status is known.
			t := time.NewTimer(stopGrace)
			select {
			case <-c.proc.exited:
			case <-t.C:
			}
			t.Stop()
		}
		select {
		case <-c.proc.exited:
		default:
			// The server broke the protocol, or closed standard output,
			// but runs on: it is no use any more.
			c.proc.kill()
			<-c.proc.exited
		}
	}
	closing := c.closing.Load()
	var cause error
	if closing {
		cause = fmt.Errorf("mcp server %q was stopped", s.name)
	} else {
		cause = s.crashError(c, werr)
	}
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
	}
	if !closing {
		s.crashes++
		s.failures++
		s.lastErr, s.lastFail = cause, time.Now()
	}
	s.mu.Unlock()
	c.down(cause)
	if !closing {
		s.m.log.Warn("mcp server crashed", "server", s.name, "err", cause)
	}
}

// ioEnded reports whether err, from the end of a stdio connection, means
// that a pipe ended rather than that the server sent something unreadable.
func ioEnded(err error) bool {
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE)
}

// crashError says why the connection c ended without wield ending it.
func (s *server) crashError(c *conn, werr error) error {
	var msg string
	switch {
	case c.proc != nil && !c.proc.killed.Load():
		msg = fmt.Sprintf("mcp server %q exited (%s)", s.name, c.proc.exitText())
	case c.proc != nil && werr != nil:
		msg = fmt.Sprintf("mcp server %q sent something that is not a valid MCP message (%v), so wield stopped it", s.name, werr)
	case werr != nil:
		msg = fmt.Sprintf("the connection to mcp server %q was lost: %v", s.name, werr)
	default:
		msg = fmt.Sprintf("mcp server %q closed the connection", s.name)
	}
	return errors.New(msg + s.stderrNote() + "; it is started again when next used")
}

// stderrNote quotes the end of a stdio server's standard error and names
// its log file.
func (s *server) stderrNote() string {
	if s.cfg.transport() != "stdio" {
		return ""
	}
	note := ""
	if q := s.stderr.quote(); q != "" {
		note = "; its standard error ends with:\n" + q + "\n"
	}
	if s.stderr.path != "" {
		if note == "" {
			note = ";"
		}
		note += " (log: " + s.stderr.path + ")"
	}
	return note
}

// shutdown stops the server for good.
func (s *server) shutdown() {
	s.mu.Lock()
	s.closed = true
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		c.close(fmt.Errorf("mcp server %q: %w", s.name, ErrClosed))
	}
}

// conn is one live connection to a server: an MCP client session and,
// for stdio servers, the child process.
type conn struct {
	s       *server
	session *sdk.ClientSession
	proc    *process // nil unless stdio
	release func()   // frees what the transport holds; nil if nothing

	closing   atomic.Bool
	closeOnce sync.Once

	// inline reports whether progress notifications are taken from the
	// connection as they are read (see progressConn).
	inline atomic.Bool

	mu       sync.Mutex
	calls    map[*context.CancelCauseFunc]struct{} // calls in flight
	progress map[string]*progressSink
	isDown   bool
	err      error         // why it ended, set before done is closed
	done     chan struct{} // closed when the connection has ended
}

// connect starts the server (for stdio) and runs the MCP handshake.
func (s *server) connect(ctx context.Context) (*conn, error) {
	c := &conn{s: s, calls: map[*context.CancelCauseFunc]struct{}{}, progress: map[string]*progressSink{}, done: make(chan struct{})}
	name, version := cmp.Or(s.m.opts.Name, "wield"), cmp.Or(s.m.opts.Version, "dev")
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: version}, &sdk.ClientOptions{
		Logger: s.m.log,
		// No roots: a server such as server-filesystem would otherwise
		// ask for them and replace the directories it was given.
		Capabilities:                &sdk.ClientCapabilities{},
		ToolListChangedHandler:      func(ctx context.Context, _ *sdk.ToolListChangedRequest) { s.scheduleRefresh(ctx) },
		ProgressNotificationHandler: c.onProgress,
	})
	var err error
	switch s.cfg.transport() {
	case "inproc":
		var t sdk.Transport
		if t, err = s.cfg.Transport(ctx); err == nil {
			c.session, err = client.Connect(ctx, c.inlineProgress(t), nil)
		}
		if err != nil {
			return nil, s.startError(ctx, err)
		}
	case "stdio":
		p, err := startProcess(&s.cfg, s.m.opts.Dir, s.m.opts.Env, s.stderr)
		if err != nil {
			return nil, fmt.Errorf("start mcp server %q: %w", s.name, err)
		}
		c.proc = p
		c.session, err = client.Connect(ctx, c.inlineProgress(&sdk.IOTransport{Reader: p.stdout, Writer: p.stdin}), nil)
		if err != nil {
			return nil, s.stdioStartError(ctx, p, err)
		}
	default:
		c.session, c.release, err = s.connectHTTP(ctx, client, c.inlineProgress)
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// stdioStartError stops a child whose handshake failed and says why.
func (s *server) stdioStartError(ctx context.Context, p *process, err error) error {
	p.stdin.Close()
	p.stdout.Close()
	if ctx.Err() == nil {
		// The handshake failed early: most likely the server is exiting.
		// Give it the time to, so that its exit status is known.
		t := time.NewTimer(stopGrace)
		select {
		case <-p.exited:
		case <-t.C:
		}
		t.Stop()
	}
	select {
	case <-p.exited:
		if !p.killed.Load() {
			return fmt.Errorf("mcp server %q exited during startup (%s)%s", s.name, p.exitText(), s.stderrNote())
		}
	default:
		p.kill()
		<-p.exited
	}
	return s.startError(ctx, err)
}

// startError words a failed handshake.
func (s *server) startError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w%s", context.Cause(ctx), s.stderrNote())
	}
	return fmt.Errorf("mcp server %q failed the initialize handshake: %w%s", s.name, err, s.stderrNote())
}

// track registers the cancel function of a call in flight. It reports
// false if the connection has ended already.
func (c *conn) track(cancel *context.CancelCauseFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.isDown {
		return false
	}
	c.calls[cancel] = struct{}{}
	return true
}

func (c *conn) untrack(cancel *context.CancelCauseFunc) {
	c.mu.Lock()
	delete(c.calls, cancel)
	c.mu.Unlock()
}

// down marks the connection ended for cause and fails the calls in flight.
func (c *conn) down(cause error) {
	c.mu.Lock()
	if c.isDown {
		c.mu.Unlock()
		return
	}
	c.isDown, c.err = true, cause
	calls := slices.Collect(maps.Keys(c.calls))
	c.mu.Unlock()
	for _, cancel := range calls {
		(*cancel)(cause)
	}
	if c.release != nil {
		c.release()
	}
	close(c.done)
}

// close ends the connection: calls in flight fail with cause, the
// session is closed (closing a stdio server's standard input), and a
// stdio server that does not exit within stopGrace is killed.
func (c *conn) close(cause error) {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.mu.Lock()
		calls := slices.Collect(maps.Keys(c.calls))
		c.mu.Unlock()
		for _, cancel := range calls {
			(*cancel)(cause)
		}
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			_ = c.session.Close()
		}()
		if c.proc != nil {
			t := time.NewTimer(stopGrace)
			select {
			case <-c.proc.exited:
			case <-t.C:
				c.proc.kill()
				<-c.proc.exited
			}
			t.Stop()
		}
		<-closed
		<-c.done
	})
}

// progressSink passes a call's progress notifications to its tool.Call
// until the call returns.
type progressSink struct {
	mu   sync.Mutex
	call *tool.Call
}

// newProgressToken registers tc for progress and returns the token to send
// and a function that unregisters it; after that returns, tc is not used.
func (c *conn) newProgressToken(tc *tool.Call) (string, func()) {
	token := "wield-" + strconv.FormatUint(c.s.m.tokens.Add(1), 10)
	p := &progressSink{call: tc}
	c.mu.Lock()
	c.progress[token] = p
	c.mu.Unlock()
	return token, func() {
		c.mu.Lock()
		delete(c.progress, token)
		c.mu.Unlock()
		p.mu.Lock()
		p.call = nil
		p.mu.Unlock()
	}
}

// onProgress passes on the progress notifications of connections that
// cannot be read inline (streamable HTTP).
func (c *conn) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if !c.inline.Load() && req.Params != nil {
		c.progressed(req.Params)
	}
}

// progressed passes a progress notification to the call it belongs to.
func (c *conn) progressed(params *sdk.ProgressNotificationParams) {
	token, ok := params.ProgressToken.(string)
	if !ok {
		return
	}
	c.mu.Lock()
	p := c.progress[token]
	c.mu.Unlock()
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.call != nil {
		p.call.Emit(tool.Event{Message: boundText(params.Message, maxProgressMessage), Progress: params.Progress, Total: params.Total})
	}
}

// inlineProgress wraps a transport whose connections can be wrapped (all
// but streamable HTTP's, which the SDK must see unwrapped) so that its
// progress notifications are taken as they are read.
func (c *conn) inlineProgress(t sdk.Transport) sdk.Transport {
	return transportFunc(func(ctx context.Context) (sdk.Connection, error) {
		conn, err := t.Connect(ctx)
		if err != nil {
			return nil, err
		}
		c.inline.Store(true)
		return progressConn{conn, c}, nil
	})
}

// progressConn hands progress notifications to their calls as they are
// read, in order with the results. The SDK gives notifications to its
// handlers on another goroutine, so that one read just before a call's
// result could otherwise come after the call has returned, and be lost.
type progressConn struct {
	sdk.Connection
	c *conn
}

func (p progressConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := p.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "notifications/progress" && !req.ID.IsValid() {
		var params sdk.ProgressNotificationParams
		if json.Unmarshal(req.Params, &params) == nil {
			p.c.progressed(&params)
		}
	}
	return msg, err
}

// maxProgressMessage caps a progress message passed on.
const maxProgressMessage = 1 << 10
