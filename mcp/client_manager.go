package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wieldhq/wield/otel"
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
	// Telemetry, if set, traces each tools/call (a CLIENT span, a child
	// of the calling tool's execute_tool span) and sends its trace context
	// in the request's _meta, so that a server that traces continues the
	// trace. Nil traces nothing.
	Telemetry *otel.Telemetry
	// ConfirmHint, if set, returns how a person confirms the server
	// called name where this manager runs (a program's command); the
	// reason [ConfirmGate] gives for asking ends with it. Nil names
	// [Manager.Confirm].
	ConfirmHint func(server string) string
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
	// registered holds the servers the agent added with
	// register_mcp_server, by name: true once the user confirmed one.
	registered map[string]bool
}

// NewManager returns a manager for servers, keyed by name. Invalid
// configurations are kept, so that [Manager.Status] shows them, and their
// errors come back from [Manager.Tools]. No server is started yet.
func NewManager(servers map[string]ServerConfig, opts *ManagerOptions) *Manager {
	m := &Manager{servers: map[string]*server{}, cancels: map[*context.CancelCauseFunc]struct{}{}, registered: map[string]bool{}}
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
	delete(m.registered, name)
	m.mu.Unlock()
	if !ok {
		return false
	}
	s.shutdown()
	m.unmountServer(s)
	return true
}

// Track keeps reg in step with the manager's servers from now on, as
// [Manager.Mount] does, without listing anything: reg is a copy of a
// mounted registry (filtered by a tool list or a policy), whose tools of
// the manager's servers become its mounted tools. The tools of those
// servers that the copy left out stay out; the tools of servers added
// later (register_mcp_server) join it.
func (m *Manager) Track(reg *tool.Registry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mt := &mount{reg: reg, tools: map[string]*server{}, exclude: map[string]bool{}}
	for _, other := range m.mounts {
		for name, s := range other.tools {
			if t, err := reg.Lookup(name); err == nil && other.reg != reg {
				if o, _ := other.reg.Lookup(name); o == t {
					mt.tools[name] = s
					continue
				}
			}
			if _, ok := mt.tools[name]; !ok {
				mt.exclude[name] = true
			}
		}
	}
	for name := range mt.tools {
		delete(mt.exclude, name)
	}
	m.mounts = append(m.mounts, mt)
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
