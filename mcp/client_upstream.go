package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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

// stopGrace is how long a stdio server gets to exit after its standard
// input is closed before it is killed.
const stopGrace = 2 * time.Second

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
	return &timeoutError{fmt.Sprintf("mcp server %q did not start within %v (its startup_timeout)", s.name, s.cfg.startupTimeout())}
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
		switch {
		case c.closing.Load():
			// wield closed its standard input: the server is finishing
			// (flushing what it buffered, its traces among them), and
			// close kills it if it takes longer than stopGrace.
			<-c.proc.exited
		case ioEnded(werr):
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
	// badFrame is why the first message that could not be read was
	// unreadable (see progressConn), or nil.
	badFrame atomic.Pointer[error]

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
			if bad := c.badFrame.Load(); bad != nil {
				err = &badFrameError{err: err, frame: *bad}
			}
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
			return &exitedError{msg: fmt.Sprintf("mcp server %q exited during startup (%s)%s", s.name, p.exitText(), s.stderrNote()), code: p.cmd.ProcessState.ExitCode(), handshake: err}
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
	if err != nil && !ioEnded(err) && ctx.Err() == nil {
		p.c.badFrame.CompareAndSwap(nil, &err) // the first unreadable message
	}
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
