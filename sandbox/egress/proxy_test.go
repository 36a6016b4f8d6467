package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wieldhq/wield/internal/netguard/netguardtest"
)

// loopback allows the test servers' address, which the guard refuses
// otherwise.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// servers starts a plain HTTP and an HTTPS server on 127.0.0.1 that
// answer with the host and path they were asked for.
func servers(t *testing.T) (plain, secure *httptest.Server) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s%s?%s", r.Host, r.URL.Path, r.URL.RawQuery)
	})
	plain = httptest.NewServer(h)
	t.Cleanup(plain.Close)
	secure = httptest.NewTLSServer(h)
	t.Cleanup(secure.Close)
	return plain, secure
}

func port(t *testing.T, s *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func start(t *testing.T, cfg Config) *Proxy {
	t.Helper()
	p, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// clients returns an HTTP client for each of the proxy's listeners,
// trusting secure's certificate.
func clients(t *testing.T, p *Proxy, secure *httptest.Server) map[string]*http.Client {
	t.Helper()
	roots := secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	tcp := &http.Transport{
		Proxy:           http.ProxyURL(&url.URL{Scheme: "http", Host: p.Addr().String()}),
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}
	unix := &http.Transport{
		Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.invalid"}),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", p.Socket())
		},
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}
	t.Cleanup(tcp.CloseIdleConnections)
	t.Cleanup(unix.CloseIdleConnections)
	return map[string]*http.Client{"tcp": {Transport: tcp}, "unix": {Transport: unix}}
}

func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, b)
	}
	return string(b), err
}

// TestProxyReachesAllowedHosts fetches from the allowed hosts through
// each listener, over plain HTTP (forwarded) and HTTPS (CONNECT).
func TestProxyReachesAllowedHosts(t *testing.T) {
	plain, secure := servers(t)
	pp, sp := port(t, plain), port(t, secure)
	// The test server's certificate is for example.com and its subdomains.
	res := netguardtest.NewResolver(map[string][]string{"allowed.test": {"127.0.0.1"}, "api.example.com": {"127.0.0.1"}})
	p := start(t, Config{
		Allow:      []string{"allowed.test:" + pp, "*.Example.COM:" + sp},
		Resolver:   res,
		AllowAddrs: loopback,
	})
	for name, c := range clients(t, p, secure) {
		t.Run(name, func(t *testing.T) {
			tests := []struct{ url, want string }{
				{"http://allowed.test:" + pp + "/a?x=1;y=2", "hello from allowed.test:" + pp + "/a?x=1;y=2"},
				{"http://ALLOWED.test.:" + pp + "/b", "hello from ALLOWED.test.:" + pp + "/b?"},
				{"https://api.example.com:" + sp + "/c", "hello from api.example.com:" + sp + "/c?"},
			}
			for _, tt := range tests {
				got, err := get(c, tt.url)
				if err != nil || got != tt.want {
					t.Errorf("GET %s = %q, %v; want %q", tt.url, got, err, tt.want)
				}
			}
		})
	}
}

// TestProxyRefuses checks each refusal: hosts and ports outside the
// allow list, and allowed names or literals whose address is not public,
// over plain HTTP and CONNECT, with the message the model reads.
func TestProxyRefuses(t *testing.T) {
	plain, secure := servers(t)
	pp := port(t, plain)
	res := netguardtest.NewResolver(map[string][]string{
		"allowed.test":  {"127.0.0.1"},
		"evil.example":  {"127.0.0.1"},
		"intranet.test": {"10.1.2.3"},
		"metadata.test": {"169.254.169.254"},
		"v6.test":       {"::1"},
		"local.test":    {"127.0.0.1"},
	})
	// The strict proxy: no address ranges beyond the public ones.
	strict := start(t, Config{Allow: []string{"allowed.test", "*", "10.0.0.1:" + pp}, Resolver: res})
	listed := start(t, Config{Allow: []string{"allowed.test", "Bücher.test"}, Resolver: res, AllowAddrs: loopback})
	tests := []struct {
		name   string
		p      *Proxy
		url    string
		status int
		want   string
	}{
		{"host not listed", listed, "http://evil.example/", 403,
			"wield sandbox: host evil.example is not in the sandbox's network allow list (sandbox.network in .wield/config.json or ~/.config/wield/config.json)"},
		{"host not listed, https", listed, "https://evil.example/", 403,
			"wield sandbox: host evil.example is not in the sandbox's network allow list (sandbox.network in .wield/config.json or ~/.config/wield/config.json)"},
		{"subdomain of a listed host", listed, "http://www.allowed.test/", 403, "host www.allowed.test is not in"},
		{"internationalised name not listed", listed, "http://b%C3%BCcher.example/", 403, "host xn--bcher-kva.example is not in"},
		{"port not listed", listed, "http://allowed.test:" + pp + "/", 403,
			"wield sandbox: port " + pp + " of allowed.test is not in the sandbox's network allow list, where a host without a port allows ports 80 and 443 only; allowed.test:" + pp + " must be listed to reach it"},
		{"port not listed, https", listed, "https://allowed.test:8443/", 403, "port 8443 of allowed.test"},
		{"name to loopback", strict, "http://local.test/", 403,
			"wield sandbox: local.test resolves to 127.0.0.1, a loopback address, which the sandbox's network proxy does not reach"},
		{"name to loopback, https", strict, "https://local.test/", 403, "local.test resolves to 127.0.0.1, a loopback address"},
		{"name to private", strict, "https://intranet.test/", 403, "10.1.2.3, a private (RFC 1918) address"},
		{"name to metadata", strict, "http://metadata.test/latest/meta-data/", 403, "169.254.169.254, a link-local (cloud metadata) address"},
		{"name to IPv6 loopback", strict, "https://v6.test/", 403, "v6.test resolves to ::1, a loopback address"},
		{"literal private", strict, "http://10.0.0.1:" + pp + "/", 403, "10.0.0.1 is a private (RFC 1918) address"},
		{"literal metadata", strict, "http://169.254.169.254/", 403, "169.254.169.254 is a link-local (cloud metadata) address"},
		{"literal metadata, decimal", strict, "http://2852039166/", 403, "169.254.169.254 is a link-local (cloud metadata) address"},
		{"literal loopback", strict, "https://127.0.0.1/", 403, "127.0.0.1 is a loopback address"},
		{"literal IPv6 loopback", strict, "https://[::1]/", 403, "::1 is a loopback address"},
		{"literal mapped loopback", strict, "http://[::ffff:127.0.0.1]/", 403, "127.0.0.1 is a loopback address"},
		{"unknown name", strict, "https://nowhere.test/", 502, "wield sandbox: looking up nowhere.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A failed CONNECT shows as its reason phrase only, which
			// is the message; TestProxyDialsTheAddressItChecked reads
			// a refused CONNECT's status.
			status := strconv.Itoa(tt.status)
			if strings.HasPrefix(tt.url, "https:") {
				status = ""
			}
			for name, c := range clients(t, tt.p, secure) {
				_, err := get(c, tt.url)
				if err == nil || !strings.Contains(err.Error(), status) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: GET %s = %v, want %d and %q", name, tt.url, err, tt.status, tt.want)
				}
			}
		})
	}
}

// rawConnect sends CONNECT target to the proxy's TCP port and returns
// the response and the connection, open when the tunnel is.
func rawConnect(t *testing.T, p *Proxy, target string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return resp, c, br
}

// TestProxyDialsTheAddressItChecked is DNS rebinding: the name resolves
// to an allowed address first and to a private one after. Each tunnel
// looks the name up once and connects to the address of that answer,
// which the guard judges on the connect itself: the first reaches the
// server, the second is refused, and no connection goes to the private
// address.
func TestProxyDialsTheAddressItChecked(t *testing.T) {
	plain, _ := servers(t)
	pp := port(t, plain)
	res := netguardtest.NewResolver(map[string][]string{"rebind.test": {"127.0.0.1", "10.0.0.1", "127.0.0.1"}})
	var mu sync.Mutex
	var connected []string
	p := start(t, Config{Allow: []string{"rebind.test:" + pp}, Resolver: res, AllowAddrs: loopback,
		Dialer: &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
			mu.Lock()
			defer mu.Unlock()
			connected = append(connected, address)
			return nil
		}}})
	target := "rebind.test:" + pp

	resp, c, br := rawConnect(t, p, target)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first CONNECT %s = %s", target, resp.Status)
	}
	fmt.Fprintf(c, "GET /first HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	inner, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET through the tunnel: %v", err)
	}
	body, _ := io.ReadAll(inner.Body)
	if want := "hello from " + target + "/first?"; string(body) != want {
		t.Errorf("through the tunnel: %q, want %q", body, want)
	}

	resp, _, _ = rawConnect(t, p, target)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "rebind.test resolves to 10.0.0.1, a private (RFC 1918) address") ||
		!strings.Contains(resp.Status, "10.0.0.1") {
		t.Errorf("second CONNECT %s = %s %q, want 403 naming 10.0.0.1", target, resp.Status, b)
	}
	if n := res.Lookups("rebind.test"); n != 2 {
		t.Errorf("%d lookups for two tunnels, want 2", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "127.0.0.1:" + pp; len(connected) != 1 || connected[0] != want {
		t.Errorf("connected to %v, want only [%s]", connected, want)
	}
}

// TestProxyBadRequests checks requests that are not a proxy's.
func TestProxyBadRequests(t *testing.T) {
	p := start(t, Config{Allow: []string{"allowed.test"}})
	tests := []struct {
		name, request string
		status        int
		want          string
	}{
		{"origin form", "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, "it takes CONNECT host:port"},
		{"connect without port", "CONNECT allowed.test HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, "CONNECT wants a host and port"},
		{"other scheme", "GET ftp://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, "absolute http:// URL"},
		{"bad host", "CONNECT a..b:443 HTTP/1.1\r\nHost: a..b:443\r\n\r\n", 400, `"a..b" is not a host name`},
		{"header too large", "GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nX: " + strings.Repeat("x", MaxHeaderBytes+4096) + "\r\n\r\n", 431, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("unix", p.Socket())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, tt.request)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("%q = %s %q, want %d and %q", tt.request[:min(40, len(tt.request))], resp.Status, b, tt.status, tt.want)
			}
		})
	}
}

// TestProxyCloseEndsTunnels opens a tunnel to a server that says
// nothing and checks that Close ends it, and that nothing is served
// after Close.
func TestProxyCloseEndsTunnels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	_, sp, _ := net.SplitHostPort(ln.Addr().String())
	p, err := New(t.Context(), Config{Allow: []string{"silent.test:" + sp}, AllowAddrs: loopback,
		Resolver: netguardtest.NewResolver(map[string][]string{"silent.test": {"127.0.0.1"}})})
	if err != nil {
		t.Fatal(err)
	}
	resp, c, _ := rawConnect(t, p, "silent.test:"+sp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT = %s", resp.Status)
	}
	server := <-accepted
	defer server.Close()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Errorf("the tunnel is still open after Close: read %d bytes", n)
	}
	if n, err := server.Read(make([]byte, 1)); err == nil {
		t.Errorf("the server's side is still open after Close: read %d bytes", n)
	}
	if _, err := net.Dial("unix", p.Socket()); err == nil {
		t.Error("the socket still takes connections after Close")
	}
	if _, err := net.Dial("tcp", p.Addr().String()); err == nil {
		t.Error("the port still takes connections after Close")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestProxyIdleTunnelCloses checks that a tunnel that carries nothing
// for the idle timeout is closed: the read waits for that event.
func TestProxyIdleTunnelCloses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, sp, _ := net.SplitHostPort(ln.Addr().String())
	p := start(t, Config{Allow: []string{"silent.test:" + sp}, AllowAddrs: loopback, IdleTimeout: 50 * time.Millisecond,
		Resolver: netguardtest.NewResolver(map[string][]string{"silent.test": {"127.0.0.1"}})})
	resp, c, _ := rawConnect(t, p, "silent.test:"+sp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT = %s", resp.Status)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("read from an idle tunnel = %v, want EOF once the proxy closes it", err)
	}
}

func TestNewRefusesBadPatterns(t *testing.T) {
	_, err := New(t.Context(), Config{Allow: []string{"ok.test", "bad*.test", ""}})
	if err == nil || !strings.Contains(err.Error(), `"bad*.test"`) || !strings.Contains(err.Error(), `"": empty`) {
		t.Errorf("New with bad patterns = %v, want an error naming both", err)
	}
}
