package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/sandbox/egress"
)

// hostsResolver resolves the names of a table, each to one address.
type hostsResolver map[string]string

func (r hostsResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// proxied starts a plain and a TLS server on 127.0.0.1, an egress proxy
// that allows allowed.test (resolved to 127.0.0.1) on their ports, and
// returns a sandbox for each mechanism with that proxy, and the servers'
// ports.
func proxied(t *testing.T) (sbs []*sandbox.Sandbox, plainPort, tlsPort string) {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.Path)
	})
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(h)
	t.Cleanup(secure.Close)
	pu, _ := url.Parse(plain.URL)
	su, _ := url.Parse(secure.URL)
	p, err := egress.New(t.Context(), egress.Config{
		Allow:    []string{"allowed.test:" + pu.Port(), "allowed.test:" + su.Port(), "inside.test"},
		Resolver: hostsResolver{"allowed.test": "127.0.0.1", "evil.test": "127.0.0.1", "inside.test": "10.0.0.1"},
		// The test servers are on loopback, which the proxy refuses
		// otherwise.
		AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	var errs []string
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: m,
			Proxy: &sandbox.Proxy{Socket: p.Socket(), Addr: p.Addr()}})
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		sbs = append(sbs, sb)
	}
	if len(sbs) == 0 {
		t.Fatalf("no sandbox mechanism works on this machine: %s", strings.Join(errs, "; "))
	}
	return sbs, pu.Port(), su.Port()
}

// TestNetworkThroughProxy runs curl and Python's urllib in the sandbox
// under each mechanism: an allowed host is reached through the proxy,
// over plain HTTP and through CONNECT, another host is refused with the
// proxy's message, and a program that ignores the proxy variables, or
// connects around the proxy, reaches nothing.
func TestNetworkThroughProxy(t *testing.T) {
	for _, prog := range []string{"curl", "python3"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is needed for this test: %v", prog, err)
		}
	}
	sbs, pp, sp := proxied(t)
	const denied = "wield sandbox: host evil.test is not in the sandbox's network allow list"
	urlopen := func(u string) []string {
		return []string{"python3", "-c", `import ssl, sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], context=ssl._create_unverified_context(), timeout=20).read().decode())
except Exception as e:
    print("error:", e)
    sys.exit(1)`, u}
	}
	rawConnect := func(host, port string) []string {
		return []string{"python3", "-c", `import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
print(s.recv(100))`, host, port}
	}
	tests := []struct {
		name     string
		args     []string
		wantExit int    // -1: any non-zero status
		want     string // in stdout or stderr
	}{
		{"curl http", []string{"curl", "-sS", "--max-time", "20", "http://allowed.test:" + pp + "/a"}, 0, "hello from allowed.test:" + pp + "/a"},
		{"curl https", []string{"curl", "-sSk", "--max-time", "20", "https://allowed.test:" + sp + "/b"}, 0, "hello from allowed.test:" + sp + "/b"},
		{"python http", urlopen("http://allowed.test:" + pp + "/c"), 0, "hello from allowed.test:" + pp + "/c"},
		{"python https", urlopen("https://allowed.test:" + sp + "/d"), 0, "hello from allowed.test:" + sp + "/d"},
		{"curl http, other host", []string{"curl", "-sS", "--max-time", "20", "http://evil.test:" + pp + "/"}, 0, denied},
		{"curl https, other host", []string{"curl", "-sSk", "--max-time", "20", "https://evil.test/"}, -1, "403"},
		{"python http, other host", urlopen("http://evil.test/"), 1, "HTTP Error 403: " + denied},
		{"python https, other host", urlopen("https://evil.test/"), 1, "Tunnel connection failed: 403 " + denied},
		{"curl, allowed name of a private address", []string{"curl", "-sS", "--max-time", "20", "http://inside.test/"}, 0,
			"wield sandbox: inside.test resolves to 10.0.0.1, a private (RFC 1918) address, which the sandbox's network proxy does not reach"},
		{"curl ignoring the proxy", []string{"curl", "-sS", "--noproxy", "*", "--max-time", "5", "http://127.0.0.1:" + pp + "/"}, -1, "curl: (7)"},
		{"python raw socket to the server", rawConnect("127.0.0.1", pp), -1, "Error"},
		{"python raw socket to an outside address", rawConnect("203.0.113.1", "80"), -1, "Error"},
	}
	for _, sb := range sbs {
		t.Run(string(sb.Capabilities().Mechanism), func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res := run(t, sb, &sandbox.Command{Args: tt.args})
					out := string(res.Stdout) + string(res.Stderr)
					okExit := res.ExitCode == tt.wantExit || (tt.wantExit == -1 && res.ExitCode != 0)
					if !okExit || !strings.Contains(out, tt.want) {
						t.Errorf("%q: exit %d, output %q; want exit %d and %q", tt.args, res.ExitCode, out, tt.wantExit, tt.want)
					}
				})
			}
		})
	}
}

// TestProxiedCommandsKeepTheirLimits checks that a command run with a
// proxy, which under bubblewrap starts through a forwarder and one more
// helper, still gets its standard streams, exit status, signals, limits
// and setup errors as one run without a proxy does.
func TestProxiedCommandsKeepTheirLimits(t *testing.T) {
	sbs, _, _ := proxied(t)
	for _, sb := range sbs {
		t.Run(string(sb.Capabilities().Mechanism), func(t *testing.T) {
			res := run(t, sb, &sandbox.Command{Args: sh("cat; echo err >&2; exit 3"), Stdin: strings.NewReader("in\n")})
			if res.ExitCode != 3 || string(res.Stdout) != "in\n" || string(res.Stderr) != "err\n" || res.Signal != "" {
				t.Errorf("exit %d, signal %q, stdout %q, stderr %q; want 3, none, \"in\\n\", \"err\\n\"", res.ExitCode, res.Signal, res.Stdout, res.Stderr)
			}
			res = run(t, sb, &sandbox.Command{Args: sh("kill -TERM $$")})
			if res.ExitCode != -1 || res.Signal != "SIGTERM" {
				t.Errorf("killed by SIGTERM: exit %d, signal %q; want -1, SIGTERM", res.ExitCode, res.Signal)
			}
			res = run(t, sb, &sandbox.Command{Args: sh("while :; do :; done"), CPUTime: time.Second, Timeout: time.Minute})
			if res.Limit != "cpu" || res.Signal != "SIGXCPU" {
				t.Errorf("busy loop: limit %q, signal %q, exit %d; want cpu, SIGXCPU", res.Limit, res.Signal, res.ExitCode)
			}
			grow := []string{"awk", `BEGIN { s = "x"; while (length(s) < 1073741824) s = s s; print "done" }`}
			res = run(t, sb, &sandbox.Command{Args: grow, Memory: 64 << 20})
			if res.ExitCode == 0 || strings.Contains(string(res.Stdout), "done") {
				t.Errorf("allocating 1 GiB under a 64 MiB limit: exit %d, stdout %q; want a failure", res.ExitCode, res.Stdout)
			}
			mark := processMark(t)
			res = run(t, sb, &sandbox.Command{Args: sh("sleep 3611." + mark + " & setsid sleep 3612." + mark + " & sleep 3613." + mark),
				Timeout: 300 * time.Millisecond})
			if res.Limit != "timeout" {
				t.Errorf("limit %q, want timeout", res.Limit)
			}
			if left := processesWith(t, "."+mark); len(left) > 0 {
				t.Errorf("still running after Run returned: %q", left)
			}
			// A program the kernel cannot execute fails in the last
			// helper, which reports it through the status descriptor.
			scratch := t.TempDir()
			bad := filepath.Join(scratch, "bad")
			if err := os.WriteFile(bad, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := sb.Run(t.Context(), &sandbox.Command{Args: []string{bad}, Scratch: scratch})
			if err == nil || !strings.Contains(err.Error(), "exec "+bad) {
				t.Errorf("Run(%s) = %v, want the exec failure", bad, err)
			}
		})
	}
}

// TestProxyEnvironment checks the variables that point a command at the
// proxy: set, replacing the caller's, with the no-proxy lists emptied;
// and absent for a command that has the network.
func TestProxyEnvironment(t *testing.T) {
	sbs, _, _ := proxied(t)
	for _, sb := range sbs {
		t.Run(string(sb.Capabilities().Mechanism), func(t *testing.T) {
			env := []string{"PATH=/usr/bin:/bin", "HTTP_PROXY=http://elsewhere.test:1", "no_proxy=*"}
			res := run(t, sb, &sandbox.Command{Args: []string{"env"}, Env: env})
			got := strings.Fields(string(res.Stdout))
			var url string
			for _, kv := range got {
				if v, ok := strings.CutPrefix(kv, "HTTP_PROXY="); ok {
					url = v
				}
			}
			if !strings.HasPrefix(url, "http://127.0.0.1:") {
				t.Fatalf("HTTP_PROXY = %q, want http://127.0.0.1:PORT; environment %q", url, got)
			}
			for _, want := range []string{"HTTP_PROXY=" + url, "HTTPS_PROXY=" + url, "ALL_PROXY=" + url,
				"http_proxy=" + url, "https_proxy=" + url, "all_proxy=" + url, "NO_PROXY=", "no_proxy=", "PATH=/usr/bin:/bin"} {
				if n := countOf(got, want); n != 1 {
					t.Errorf("%q appears %d times in %q, want once", want, n, got)
				}
			}
			if n := countOf(got, "HTTP_PROXY=http://elsewhere.test:1") + countOf(got, "no_proxy=*"); n != 0 {
				t.Errorf("the caller's proxy variables were kept: %q", got)
			}
			if env[1] != "HTTP_PROXY=http://elsewhere.test:1" {
				t.Errorf("Run changed the caller's Env: %q", env)
			}
			res = run(t, sb, &sandbox.Command{Args: []string{"env"}, Network: true})
			if strings.Contains(string(res.Stdout), "127.0.0.1") {
				t.Errorf("a command with the network got the proxy: %s", res.Stdout)
			}
			w, err := sb.Wrap(&sandbox.Command{Args: []string{"env"}})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Cleanup()
			if countOf(w.Env, "HTTPS_PROXY="+url) != 1 {
				t.Errorf("Wrap's environment %q has no HTTPS_PROXY=%s", w.Env, url)
			}
		})
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// TestNewChecksTheProxy checks that New refuses a proxy the mechanism
// cannot use.
func TestNewChecksTheProxy(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	addr := netip.MustParseAddrPort("127.0.0.1:3128")
	tests := []struct {
		mechanism sandbox.Mechanism
		proxy     sandbox.Proxy
		want      string
	}{
		{sandbox.Bubblewrap, sandbox.Proxy{Addr: addr}, "has no Socket"},
		{sandbox.Bubblewrap, sandbox.Proxy{Socket: "proxy.sock", Addr: addr}, "is not absolute"},
		{sandbox.Landlock, sandbox.Proxy{Socket: sock}, "has no Addr"},
		{sandbox.Landlock, sandbox.Proxy{Socket: sock, Addr: netip.MustParseAddrPort("192.0.2.1:3128")}, "not a loopback address"},
	}
	for _, tt := range tests {
		_, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: tt.mechanism, Proxy: &tt.proxy})
		if _, ok := errors.AsType[*sandbox.UnavailableError](err); ok {
			continue // the mechanism is not here; TestNetworkThroughProxy fails for that
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%s, %+v) = %v, want %q", tt.mechanism, tt.proxy, err, tt.want)
		}
	}
}

// TestProxySocketInAHiddenDirectory puts the proxy's socket in a
// directory the sandbox hides: the command still reaches the proxy, and
// the rest of the hidden directory stays hidden.
func TestProxySocketInAHiddenDirectory(t *testing.T) {
	secret := t.TempDir()
	if err := os.WriteFile(filepath.Join(secret, "token"), []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(secret, "proxy"), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	p, err := egress.New(t.Context(), egress.Config{Allow: []string{"allowed.test:" + u.Port()},
		Socket:   filepath.Join(secret, "proxy", "proxy.sock"),
		Resolver: hostsResolver{"allowed.test": "127.0.0.1"}, AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ran := 0
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: m, Hide: []string{secret},
			Proxy: &sandbox.Proxy{Socket: p.Socket(), Addr: p.Addr()}})
		if err != nil {
			continue
		}
		ran++
		t.Run(string(m), func(t *testing.T) {
			res := run(t, sb, &sandbox.Command{Args: []string{"curl", "-sS", "--max-time", "20", "http://allowed.test:" + u.Port() + "/"}})
			if res.ExitCode != 0 || string(res.Stdout) != "reached" {
				t.Errorf("curl: exit %d, stdout %q, stderr %q; want 0, \"reached\"", res.ExitCode, res.Stdout, res.Stderr)
			}
			res = run(t, sb, &sandbox.Command{Args: []string{"cat", filepath.Join(secret, "token")}})
			if res.ExitCode == 0 || strings.Contains(string(res.Stdout), "SECRET") {
				t.Errorf("cat token: exit %d, stdout %q; want it hidden", res.ExitCode, res.Stdout)
			}
		})
	}
	if ran == 0 {
		t.Fatal("no sandbox mechanism works on this machine")
	}
}

// TestWrapThroughProxy starts a command from Wrap's command line, as the
// shell tool does, and checks it reaches an allowed host through the
// proxy and no other.
func TestWrapThroughProxy(t *testing.T) {
	sbs, pp, _ := proxied(t)
	for _, sb := range sbs {
		t.Run(string(sb.Capabilities().Mechanism), func(t *testing.T) {
			for _, tt := range []struct{ host, want string }{
				{"allowed.test", "hello from allowed.test:" + pp + "/w"},
				{"evil.test", "host evil.test is not in the sandbox's network allow list"},
			} {
				w, err := sb.Wrap(&sandbox.Command{Args: []string{"curl", "-sS", "--max-time", "20", "http://" + tt.host + ":" + pp + "/w"}})
				if err != nil {
					t.Fatal(err)
				}
				cmd := exec.CommandContext(t.Context(), w.Args[0], w.Args[1:]...)
				cmd.Env = w.Env
				out, err := cmd.CombinedOutput()
				w.Cleanup()
				if err != nil || !strings.Contains(string(out), tt.want) {
					t.Errorf("wrapped curl %s: %v, output %q; want %q", tt.host, err, out, tt.want)
				}
			}
		})
	}
}

// BenchmarkStartWithProxy measures running true in a sandbox with a
// proxy, and without, as BenchmarkStart does: under bubblewrap the
// helper starts twice more (the forwarder inside, then the one that sets
// the limits). The helper is the test binary, or the program
// WIELD_SANDBOX_HELPER names.
func BenchmarkStartWithProxy(b *testing.B) {
	h, truePath := benchHelper(b)
	p, err := egress.New(b.Context(), egress.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		for _, proxy := range []*sandbox.Proxy{nil, {Socket: p.Socket(), Addr: p.Addr()}} {
			name := string(m) + "/no-proxy"
			if proxy != nil {
				name = string(m) + "/proxy"
			}
			b.Run(name, func(b *testing.B) {
				benchTrue(b, sandbox.Config{Helper: h, Mechanism: m, Proxy: proxy}, truePath)
			})
		}
	}
}
