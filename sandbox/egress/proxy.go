package egress

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wieldhq/wield/internal/netguard"
)

// Limits and defaults of a [Proxy].
const (
	// DefaultIdleTimeout is how long a tunnel, or a connection to a
	// server, may carry nothing before it is closed, and how long a
	// server may take to begin its response.
	DefaultIdleTimeout = 5 * time.Minute
	// HeaderTimeout bounds the reading of a request's header.
	HeaderTimeout = 10 * time.Second
	// MaxHeaderBytes caps a request's header.
	MaxHeaderBytes = 64 << 10
	// KeepAlive is how long a client's connection to the proxy is kept
	// open between requests.
	KeepAlive = 90 * time.Second
	// DefaultHint says where the allow list is set, in the message of a
	// refused host: wield's configuration files.
	DefaultHint = "sandbox.network in .wield/config.json or ~/.config/wield/config.json"
)

// A Resolver looks up the addresses of a host name. [*net.Resolver]
// implements it; implementations must be safe for concurrent use.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config configures a [Proxy]. The zero Config is ready to use and
// refuses every host; [New] copies it.
type Config struct {
	// Allow is the allow list, in the patterns [AllowList] describes.
	// Nil or empty means no host: every request is refused, with a
	// message that says so.
	Allow []string
	// Socket is the path of the Unix socket to listen on; the file must
	// not exist. Empty means a socket in a new directory (mode 0700) under
	// the system's temporary directory, removed by Close.
	Socket string
	// AllowAddrs are address ranges the proxy may connect to although
	// they are not public (an intranet's, or in tests a local server's).
	// Nil means none: only public addresses are reached, whatever Allow
	// says; see package netguard's checks in the package documentation.
	AllowAddrs []netip.Prefix
	// Resolver resolves host names; nil means [net.DefaultResolver].
	Resolver Resolver
	// Dialer makes the connections to servers: its timeouts and
	// keep-alive are kept, and its Control hook, if any, runs after the
	// address check. Nil means a 10s connect timeout.
	Dialer *net.Dialer
	// IdleTimeout is how long a tunnel or a connection to a server may be
	// silent, and how long a server may take to start its response; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Hint ends the message of a refused host, in parentheses, to say
	// where the allow list is set; empty means DefaultHint.
	Hint string
	// Logger receives a record for each refusal (Info) and each
	// connection made (Debug); nil discards them.
	Logger *slog.Logger
}

// A Proxy is an HTTP proxy that connects only to the hosts of its allow
// list, and of those only to public addresses. It serves CONNECT
// tunnels (HTTPS, or any protocol over TCP) and plain HTTP requests with
// an absolute URL, on a Unix socket and on a port of 127.0.0.1. It is
// safe for concurrent use; [Proxy.Close] stops it.
type Proxy struct {
	allow  *AllowList
	dial   *netguard.Dialer
	idle   time.Duration
	hint   string
	log    *slog.Logger
	socket string
	dir    string // the socket's directory when New made it
	addr   netip.AddrPort
	srv    *http.Server
	tr     *http.Transport
	fwd    *httputil.ReverseProxy

	// ctx is the parent of every request's context; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // the servers' loops and the handlers
}

// New starts a proxy for cfg, listening on its Unix socket and on
// 127.0.0.1 at a port the system chooses. It returns an error for a
// pattern of cfg.Allow it cannot read, and when it cannot listen. The
// proxy runs until [Proxy.Close]; ctx's values, not its cancellation,
// reach the proxy's work.
func New(ctx context.Context, cfg Config) (*Proxy, error) {
	allow, err := ParseAllowList(cfg.Allow)
	if err != nil {
		return nil, fmt.Errorf("egress: %w", err)
	}
	p := &Proxy{
		allow: allow,
		dial: netguard.NewDialer(netguard.Guard{Allow: cfg.AllowAddrs, By: "the sandbox's network proxy"},
			cfg.Resolver, cfg.Dialer),
		idle:   cfg.IdleTimeout,
		hint:   cfg.Hint,
		log:    cfg.Logger,
		socket: cfg.Socket,
	}
	if p.idle <= 0 {
		p.idle = DefaultIdleTimeout
	}
	if p.hint == "" {
		p.hint = DefaultHint
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.socket == "" {
		if p.dir, err = os.MkdirTemp("", "wield-egress-"); err != nil {
			return nil, fmt.Errorf("egress: socket directory: %w", err)
		}
		p.socket = filepath.Join(p.dir, "proxy.sock")
	}
	unixLn, err := net.Listen("unix", p.socket)
	if err != nil {
		p.removeDir()
		return nil, fmt.Errorf("egress: %w", err)
	}
	tcpLn, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		unixLn.Close()
		p.removeDir()
		return nil, fmt.Errorf("egress: %w", err)
	}
	p.addr = tcpLn.Addr().(*net.TCPAddr).AddrPort()
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	p.tr = &http.Transport{
		Proxy:                 nil, // never another proxy: it would connect past the guard
		DialContext:           p.dialServer,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: p.idle,
	}
	p.fwd = &httputil.ReverseProxy{
		// The URL is absolute already, and no X-Forwarded headers are
		// added; the query goes as the client wrote it (ReverseProxy
		// drops parameters it cannot parse).
		Rewrite:      func(pr *httputil.ProxyRequest) { pr.Out.URL.RawQuery = pr.In.URL.RawQuery },
		Transport:    p.tr,
		ErrorHandler: p.forwardFailed,
		ErrorLog:     slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
	}
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serveHTTP),
		ReadHeaderTimeout: HeaderTimeout,
		IdleTimeout:       KeepAlive,
		MaxHeaderBytes:    MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return p.ctx },
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
	}
	for _, ln := range []net.Listener{unixLn, tcpLn} {
		p.wg.Go(func() { p.srv.Serve(ln) })
	}
	return p, nil
}

// Socket returns the path of the proxy's Unix socket.
func (p *Proxy) Socket() string { return p.socket }

// Addr returns the proxy's address on 127.0.0.1.
func (p *Proxy) Addr() netip.AddrPort { return p.addr }

// Allow returns the proxy's allow list.
func (p *Proxy) Allow() *AllowList { return p.allow }

// Close stops the proxy: it stops listening, closes every connection and
// tunnel, waits until every request has ended, and removes the socket
// (and the directory New made for it). Later calls do nothing.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	err := p.srv.Close()
	p.wg.Wait()
	p.tr.CloseIdleConnections()
	p.removeDir()
	if err != nil {
		return fmt.Errorf("egress: close: %w", err)
	}
	return nil
}

func (p *Proxy) removeDir() {
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// enter counts a handler in, unless the proxy is closed; the handler
// calls p.wg.Done when it returns.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Add(1)
	return true
}

// serveHTTP serves one request to the proxy: a CONNECT, or a request
// with an absolute URL.
func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		return
	}
	defer p.wg.Done()
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	p.forward(w, r)
}

// dialServer connects to a server through the guard, with the idle
// timeout on every read and write.
func (p *Proxy) dialServer(ctx context.Context, network, address string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	c, err := p.dial.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &idleConn{Conn: c, idle: p.idle}, nil
}

// An idleConn is a connection whose reads and writes each fail after
// idle passes without progress.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(b []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(b)
}

func (c *idleConn) Write(b []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(b)
}
