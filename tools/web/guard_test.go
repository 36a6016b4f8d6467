package web

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/wieldhq/wield/internal/netguard"
	"github.com/wieldhq/wield/internal/netguard/netguardtest"
)

// ssrfServers starts the servers the SSRF table aims at: secret, on
// 127.0.0.1, which must never be reached, and origin, on 127.0.0.2, an
// allowed site that redirects wherever its "to" parameter says.
func ssrfServers(t *testing.T) (secret, origin *httptest.Server) {
	t.Helper()
	secret = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("SECRET internal data"))
	}))
	t.Cleanup(secret.Close)
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listening on 127.0.0.2 (the loopback range): %v", err)
	}
	origin = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("to") != "":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case r.URL.Path == "/hop":
			http.Redirect(w, r, "/next", http.StatusMovedPermanently)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("public page"))
		}
	}))
	origin.Listener.Close()
	origin.Listener = l
	origin.Start()
	t.Cleanup(origin.Close)
	return secret, origin
}

// TestFetchRefusesInternalAddresses is the SSRF table: every attempt to
// reach an address off the public internet fails, however the url
// spells it, through names, redirects and rebinding. The secret server
// listens on 127.0.0.1, so an attempt the guard let through would read it.
func TestFetchRefusesInternalAddresses(t *testing.T) {
	secret, origin := ssrfServers(t)
	port := secret.URL[strings.LastIndexByte(secret.URL, ':')+1:]
	o := origin.URL // http://127.0.0.2:PORT, allowed below
	oport := o[strings.LastIndexByte(o, ':')+1:]
	to := func(target string) string { return o + "/?to=" + url.QueryEscape(target) }
	p := func(host string) string { return "http://" + host + ":" + port + "/" }
	tests := []struct{ name, url string }{
		// IPv4, in every spelling.
		{"loopback", p("127.0.0.1")},
		{"loopback, other", p("127.255.255.254")},
		{"loopback, short form", p("127.1")},
		{"loopback, decimal", p("2130706433")},
		{"loopback, hexadecimal", p("0x7f000001")},
		{"loopback, hexadecimal parts", p("0x7f.0x0.0x0.0x1")},
		{"loopback, octal", p("0177.0.0.1")},
		{"loopback, octal whole", p("017700000001")},
		{"loopback, trailing dot", p("127.0.0.1.")},
		{"this network, 0.0.0.0", p("0.0.0.0")},
		{"this network, 0", p("0")},
		{"private 10/8", p("10.0.0.1")},
		{"private 172.16/12", p("172.16.5.4")},
		{"private 192.168/16", p("192.168.0.1")},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/"},
		{"cloud metadata, hexadecimal", "http://0xa9fea9fe/latest/meta-data/"},
		{"cloud metadata, octal", "http://0251.0376.0251.0376/"},
		{"cloud metadata, decimal", "http://2852039166/"},
		{"CGNAT", p("100.64.0.1")},
		{"benchmarking", p("198.18.0.1")},
		{"documentation", p("192.0.2.10")},
		{"multicast", p("224.0.0.1")},
		{"broadcast", p("255.255.255.255")},
		// IPv6 forms.
		{"IPv6 loopback", p("[::1]")},
		{"IPv6 loopback, long", p("[0:0:0:0:0:0:0:1]")},
		{"IPv6 unspecified", p("[::]")},
		{"IPv4-mapped loopback", p("[::ffff:127.0.0.1]")},
		{"IPv4-mapped loopback, hex", p("[::ffff:7f00:1]")},
		{"IPv4-mapped metadata", "http://[::ffff:169.254.169.254]/"},
		{"IPv4-compatible loopback", p("[::127.0.0.1]")},
		{"NAT64 of metadata", "http://[64:ff9b::a9fe:a9fe]/"},
		{"6to4 of loopback", p("[2002:7f00:1::1]")},
		{"ULA fd00::/8", p("[fd00::1]")},
		{"ULA fc00::/8", p("[fc00::1]")},
		{"link-local with zone", p("[fe80::1%25lo]")},
		{"IPv6 multicast", p("[ff02::1]")},
		// Names that resolve inside.
		{"localhost", p("localhost")},
		{"name to loopback", p("localtest.me")},
		{"name to metadata", "http://metadata.google.internal/computeMetadata/v1/"},
		{"name to private", p("intranet.corp")},
		{"name to ULA", p("v6.internal")},
		{"name to mapped private", p("mapped.test")},
		{"name to several inside", p("many.test")},
		{"name with userinfo", "http://user:pw@localtest.me:" + port + "/"},
		// Redirects from an allowed site.
		{"redirect to loopback", to(p("127.0.0.1"))},
		{"redirect to IPv6 loopback", to(p("[::1]"))},
		{"redirect to metadata", to("http://169.254.169.254/latest/meta-data/")},
		{"redirect to decimal loopback", to(p("2130706433"))},
		{"redirect to a name inside", to(p("localtest.me"))},
		{"redirect to mapped IPv6", to(p("[::ffff:127.0.0.1]"))},
		{"same-host redirect after rebinding", "http://rebind.test:" + oport + "/hop"},
		// Other schemes.
		{"file scheme", "file:///etc/passwd"},
		{"gopher scheme", "gopher://127.0.0.1:" + port + "/_GET"},
		{"redirect to file scheme", to("file:///etc/passwd")},
	}
	if len(tests) < 30 {
		t.Fatalf("the table has %d attempts; the issue asks for at least 30", len(tests))
	}
	res := netguardtest.NewResolver(map[string][]string{
		"localhost":                {"127.0.0.1,::1"},
		"localtest.me":             {"127.0.0.1"},
		"metadata.google.internal": {"169.254.169.254"},
		"intranet.corp":            {"10.1.2.3"},
		"v6.internal":              {"fd12:3456::1"},
		"mapped.test":              {"::ffff:10.0.0.1"},
		"many.test":                {"10.0.0.1,192.168.1.1,127.0.0.1"},
		"rebind.test":              {"127.0.0.2", "127.0.0.1"}, // the allowed origin first, then the secret
	})
	cfg := Config{Resolver: res, AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, RedirectHosts: []string{"*"}, HostRate: -1}
	_, fetch := tools(t, cfg)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, fetch, map[string]any{"url": tt.url}, nil)
			if r.Success || strings.Contains(r.Output, "SECRET") {
				t.Fatalf("web_fetch(%s) succeeded: %s", tt.url, r.Output)
			}
			if !strings.Contains(r.Error, "does not reach") && !strings.Contains(r.Error, "only http and https") {
				t.Errorf("web_fetch(%s) failed for another reason: %s", tt.url, r.Error)
			}
		})
	}
	t.Logf("%d attempts, all refused", len(tests))
}

// TestFetchRebindingBetweenCheckAndConnect is DNS rebinding: the name
// resolves to a public address when it is checked and to loopback when
// the connection is made. The guard checks the address of the connect
// itself, so the second answer is the one judged.
func TestFetchRebindingBetweenCheckAndConnect(t *testing.T) {
	secret, _ := ssrfServers(t)
	port := secret.URL[strings.LastIndexByte(secret.URL, ':')+1:]
	res := netguardtest.NewResolver(map[string][]string{"rebind.example": {"93.184.216.34", "127.0.0.1"}})
	var g netguard.Guard
	// The check: what an earlier validation of the name would see.
	addrs, _ := res.LookupNetIP(t.Context(), "ip", "rebind.example")
	if err := g.Check("rebind.example", addrs[0]); err != nil {
		t.Fatalf("the first answer %v should pass: %v", addrs[0], err)
	}
	// The connect.
	_, fetch := tools(t, Config{Resolver: res, HostRate: -1})
	r := call(t, fetch, map[string]any{"url": "http://rebind.example:" + port + "/"}, nil)
	if r.Success || !strings.Contains(r.Error, "127.0.0.1") || !strings.Contains(r.Error, "loopback") {
		t.Fatalf("web_fetch after rebinding = %+v, want a refusal naming 127.0.0.1 as loopback", r)
	}
	if n := res.Lookups("rebind.example"); n != 2 {
		t.Errorf("the name was looked up %d times, want 2 (the check, then the connect)", n)
	}
}

// TestFetchAllowedAddresses checks that an explicitly allowed range is
// reached through a name. (The guard's own tests, in internal/netguard,
// check that public addresses pass.)
func TestFetchAllowedAddresses(t *testing.T) {
	_, origin := ssrfServers(t)
	oport := origin.URL[strings.LastIndexByte(origin.URL, ':')+1:]
	res := netguardtest.NewResolver(map[string][]string{"docs.test": {"127.0.0.2"}})
	_, fetch := tools(t, Config{Resolver: res, AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, HostRate: -1})
	r := call(t, fetch, map[string]any{"url": "http://docs.test:" + oport + "/"}, nil)
	if !r.Success || !strings.Contains(r.Output, "public page") {
		t.Fatalf("web_fetch of an allowed address = %+v", r)
	}
}

// TestFetchReportsCrossHostRedirect checks that a redirect to another
// host is reported with its target, not followed.
func TestFetchReportsCrossHostRedirect(t *testing.T) {
	_, origin := ssrfServers(t)
	_, fetch := tools(t, Config{AllowAddrs: loopback(), HostRate: -1})
	r := call(t, fetch, map[string]any{"url": origin.URL + "/?to=" + url.QueryEscape("https://example.com/moved")}, nil)
	if r.Success || !strings.Contains(r.Error, "https://example.com/moved") || !strings.Contains(r.Error, "call web_fetch again") {
		t.Fatalf("cross-host redirect = %+v, want it reported", r)
	}
	r = call(t, fetch, map[string]any{"url": origin.URL + "/hop"}, nil)
	if !r.Success || !strings.Contains(r.Output, "/next") {
		t.Fatalf("same-host redirect = %+v, want it followed to /next", r)
	}
}
