package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/wieldhq/wield/internal/netguard/netguardtest"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr, want string
	}{
		{"127.0.0.1", "loopback"},
		{"169.254.169.254", "link-local (cloud metadata)"},
		{"10.1.2.3", "private (RFC 1918)"},
		{"100.64.0.1", "shared (CGNAT)"},
		{"::ffff:10.0.0.1", "private (RFC 1918), inside an IPv6 address"},
		{"64:ff9b::a9fe:a9fe", "link-local (cloud metadata), inside an IPv6 address"},
		{"fd00::1", "unique local (ULA)"},
		{"fe80::1%lo", "link-local"},
		{"255.255.255.255", "reserved"},
		{"8.8.8.8", ""},
		{"100.63.255.255", ""},
		{"2606:4700:4700::1111", ""},
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::2", "this-network (0.0.0.0/8), inside an IPv6 address"},
	}
	for _, tt := range tests {
		if got := Classify(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Classify(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

func TestGuard_Check(t *testing.T) {
	tests := []struct {
		name  string
		guard Guard
		host  string
		addr  string
		want  string // "" for allowed
	}{
		{"public", Guard{}, "", "93.184.216.34", ""},
		{"loopback", Guard{}, "", "127.0.0.1", "127.0.0.1 is a loopback address, which wield does not reach"},
		{"named", Guard{By: "web_fetch"}, "intranet.corp", "10.1.2.3",
			"intranet.corp resolves to 10.1.2.3, a private (RFC 1918) address, which web_fetch does not reach"},
		{"allowed range", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}, "", "127.0.0.2", ""},
		{"allowed range, mapped", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}, "", "::ffff:127.0.0.2", ""},
		{"outside the allowed range", Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}, "", "127.0.0.1",
			"127.0.0.1 is a loopback address, which wield does not reach"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.guard.Check(tt.host, netip.MustParseAddr(tt.addr))
			got := ""
			if err != nil {
				got = err.Error()
				if _, ok := errors.AsType[*BlockedError](err); !ok {
					t.Errorf("Check(%s) = %T, want *BlockedError", tt.addr, err)
				}
			}
			if got != tt.want {
				t.Errorf("Check(%q, %s) = %q, want %q", tt.host, tt.addr, got, tt.want)
			}
		})
	}
}

func TestParseLegacyIPv4(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for not an address
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"256.0.0.1", ""},
		{"1.2.3.4.5", ""},
		{"08.0.0.1", ""},
		{"example.com", ""},
		{"1.2.3.", ""},
		{"", ""},
		{"+1.2.3.4", ""},
	}
	for _, tt := range tests {
		a, ok := parseLegacyIPv4(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("parseLegacyIPv4(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHostAddr(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for a name
	}{
		{"[::1]", "::1"},
		{"::1", "::1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"[fe80::1%lo]", "fe80::1%lo"},
		{"example.com", ""},
		{"example.com.", ""},
	}
	for _, tt := range tests {
		a, ok := HostAddr(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("HostAddr(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseLegacyIPv4 checks the reading of IPv4 spellings against the
// standard parser: a dotted quad of plain decimals reads as net/netip
// reads it, and whatever reads as an address reads back from its
// canonical form.
func FuzzParseLegacyIPv4(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "1.2.3.4.5", "0x", "08", "4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := parseLegacyIPv4(s)
		if std, err := netip.ParseAddr(s); err == nil && std.Is4() {
			if !ok || a != std {
				t.Fatalf("parseLegacyIPv4(%q) = %v, %v; netip reads %v", s, a, ok, std)
			}
		}
		if ok {
			if !a.Is4() {
				t.Fatalf("parseLegacyIPv4(%q) = %v, not IPv4", s, a)
			}
			if back, ok2 := parseLegacyIPv4(a.String()); !ok2 || back != a {
				t.Fatalf("%v does not read back", a)
			}
		}
	})
}

// TestDialer_DialContext dials names and literals that lead inside and
// checks each is refused with the name and address in the error, without
// a connection being attempted.
func TestDialer_DialContext(t *testing.T) {
	res := netguardtest.NewResolver(map[string][]string{
		"localtest.me":             {"127.0.0.1"},
		"metadata.google.internal": {"169.254.169.254"},
		"intranet.corp":            {"10.1.2.3"},
		"v6.internal":              {"fd12:3456::1"},
		"many.test":                {"10.0.0.1,192.168.1.1,127.0.0.1"},
	})
	var attempted []string
	d := NewDialer(Guard{By: "the test"}, res, &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		attempted = append(attempted, address)
		return errors.New("the test connects nowhere")
	}})
	tests := []struct{ address, want string }{
		{"localtest.me:80", "localtest.me resolves to 127.0.0.1, a loopback address, which the test does not reach"},
		{"metadata.google.internal:80", "link-local (cloud metadata)"},
		{"intranet.corp:443", "private (RFC 1918)"},
		{"v6.internal:443", "unique local (ULA)"},
		{"many.test:80", "loopback"},
		{"[::1]:80", "::1 is a loopback address"},
		{"0x7f.1:80", "0x7f.1 resolves to 127.0.0.1, a loopback address"},
		{"[::ffff:169.254.169.254]:80", "169.254.169.254, a link-local (cloud metadata) address"},
	}
	for _, tt := range tests {
		_, err := d.DialContext(t.Context(), "tcp", tt.address)
		if _, ok := errors.AsType[*BlockedError](err); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("DialContext(%s) = %v, want a *BlockedError saying %q", tt.address, err, tt.want)
		}
	}
	if len(attempted) != 0 {
		t.Errorf("connections were attempted to %v", attempted)
	}
}

// TestDialerConnectsToTheAddressItChecked is DNS rebinding: the name
// resolves to an allowed address first and to a refused one after. The
// dialer looks the name up once per dial and connects to the address of
// that answer, so the first dial reaches the allowed server and the
// second is refused.
func TestDialerConnectsToTheAddressItChecked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	res := netguardtest.NewResolver(map[string][]string{"rebind.test": {"127.0.0.1", "169.254.169.254"}})
	var connected []string
	d := NewDialer(Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, res,
		&net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
			connected = append(connected, address)
			return nil
		}})
	address := fmt.Sprintf("rebind.test:%d", port)
	c, err := d.DialContext(t.Context(), "tcp", address)
	if err != nil {
		t.Fatalf("first DialContext(%s) = %v", address, err)
	}
	c.Close()
	if want := fmt.Sprintf("127.0.0.1:%d", port); len(connected) != 1 || connected[0] != want {
		t.Errorf("connected to %v, want [%s]", connected, want)
	}
	if n := res.Lookups("rebind.test"); n != 1 {
		t.Errorf("%d lookups for one dial, want 1", n)
	}
	_, err = d.DialContext(t.Context(), "tcp", address)
	if b, ok := errors.AsType[*BlockedError](err); !ok || b.Addr != netip.MustParseAddr("169.254.169.254") || b.Host != "rebind.test" {
		t.Fatalf("second DialContext(%s) = %v, want a *BlockedError for 169.254.169.254", address, err)
	}
	if len(connected) != 1 {
		t.Errorf("the refused address reached the user's hook: %v", connected)
	}
}

// TestDialerControl checks that public addresses pass the hook that
// guards every connect, and that a Control hook of the net.Dialer runs
// only for addresses the guard allowed.
func TestDialerControl(t *testing.T) {
	var seen []string
	d := NewDialer(Guard{}, nil, &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
		seen = append(seen, address)
		return nil
	}})
	public := []string{"93.184.216.34:80", "8.8.8.8:443", "1.1.1.1:443", "[2606:4700:4700::1111]:443",
		"[2a00:1450:4001:80b::200e]:443", "[64:ff9b::808:808]:443", "[2002:808:808::1]:80", "[::ffff:8.8.4.4]:80",
		"100.63.255.255:80", "100.128.0.0:80"}
	for _, addr := range public {
		if err := d.net.Control("tcp", addr, nil); err != nil {
			t.Errorf("Control(%s) = %v, want nil for a public address", addr, err)
		}
	}
	if err := d.net.Control("tcp", "127.0.0.1:80", nil); err == nil {
		t.Error("Control(127.0.0.1:80) = nil, want a refusal")
	}
	if err := d.net.Control("tcp", "localhost:80", nil); err == nil {
		t.Error("Control(localhost:80) = nil, want a refusal: not an address")
	}
	if len(seen) != len(public) {
		t.Errorf("the user's hook saw %v, want only the public addresses", seen)
	}
}
