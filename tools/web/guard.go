package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// A BlockedError is the error of a connection the guard refused: the
// address is not on the public internet and no [Config.AllowAddrs] range
// allows it.
type BlockedError struct {
	// Host is the name or literal the url gave, when known.
	Host string
	// Addr is the address the connection would have gone to.
	Addr netip.Addr
	// Range names the kind of address ("loopback", "private (RFC 1918)").
	Range string
}

func (e *BlockedError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, a %s address, which web_fetch does not reach", e.Host, e.Addr, e.Range)
	}
	return fmt.Sprintf("%s is a %s address, which web_fetch does not reach", e.Addr, e.Range)
}

// special is one range of addresses that are not on the public internet.
type special struct {
	prefix netip.Prefix
	name   string
}

// specialRanges lists the ranges the guard refuses (IANA's special-purpose
// registries, less the globally reachable entries). IPv6 ranges that
// carry an IPv4 address are handled by [embeddedIPv4] first.
var specialRanges = func() []special {
	var out []special
	for _, r := range []struct{ cidr, name string }{
		{"0.0.0.0/8", "this-network (0.0.0.0/8)"},
		{"10.0.0.0/8", "private (RFC 1918)"},
		{"100.64.0.0/10", "shared (CGNAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local (cloud metadata)"},
		{"172.16.0.0/12", "private (RFC 1918)"},
		{"192.0.0.0/24", "IETF protocol"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "6to4 relay"},
		{"192.168.0.0/16", "private (RFC 1918)"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"100::/64", "discard"},
		{"2001::/23", "IETF protocol"},
		{"2001:db8::/32", "documentation"},
		{"3fff::/20", "documentation"},
		{"5f00::/16", "segment routing"},
		{"fc00::/7", "unique local (ULA)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
		{"64:ff9b:1::/48", "local NAT64"},
	} {
		out = append(out, special{netip.MustParsePrefix(r.cidr), r.name})
	}
	return out
}()

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// embeddedIPv4 returns the IPv4 address an IPv6 address carries, for the
// forms that reach that IPv4 host: IPv4-mapped (::ffff:a.b.c.d),
// IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4
// (2002:AABB:CCDD::).
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap(), true
	case [12]byte(b[:12]) == [12]byte{} && (b[12] != 0 || b[13] != 0 || b[14] != 0 || b[15] > 1):
		return netip.AddrFrom4([4]byte(b[12:])), true // ::a.b.c.d, not :: or ::1
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:])), true
	case b[0] == 0x20 && b[1] == 0x02:
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// classify returns the name of the special range a holds, or "" for a
// public address.
func classify(a netip.Addr) string {
	a = a.WithZone("")
	if v4, ok := embeddedIPv4(a); ok {
		if r := classify(v4); r != "" {
			return r + ", inside an IPv6 address"
		}
		return ""
	}
	for _, s := range specialRanges {
		if s.prefix.Contains(a) {
			return s.name
		}
	}
	if a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return "broadcast"
	}
	return ""
}

// guard decides which addresses web_fetch may connect to.
type guard struct {
	allow []netip.Prefix
}

// check returns a *BlockedError for an address that may not be reached.
func (g guard) check(host string, a netip.Addr) error {
	a = a.WithZone("")
	r := classify(a)
	if r == "" {
		return nil
	}
	for _, p := range g.allow {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return nil
		}
	}
	return &BlockedError{Host: host, Addr: a, Range: r}
}

// control is the net.Dialer Control hook: it runs after the socket is made
// and before it connects, with the address it connects to. This is the
// check that counts; every other check only makes a friendlier message.
func (g guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an IP address and port", address)
	}
	return g.check("", ap.Addr())
}

// hostAddr returns the address a url's host names literally: an IPv6 or
// dotted IPv4 literal, or one of the legacy IPv4 spellings browsers accept
// (decimal "2130706433", hexadecimal "0x7f000001", octal "0177.0.0.1",
// short "127.1"). It reports false for a name to resolve.
func hostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true
	}
	return parseLegacyIPv4(h)
}

// parseLegacyIPv4 reads an IPv4 address in the forms of inet_aton and the
// WHATWG URL standard: one to four parts separated by dots, each decimal,
// octal (leading 0) or hexadecimal (leading 0x), the last part filling the
// bytes that remain.
func parseLegacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	var v uint32
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= uint32(n) << (24 - 8*i)
	}
	v |= uint32(last)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true // "0x" is zero, as browsers read it
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" || strings.ContainsAny(p, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}

// dialer connects web_fetch's requests: it resolves the host itself (so
// that legacy IPv4 spellings are read as addresses), then connects to each
// address in turn through a net.Dialer whose Control hook is the guard.
type dialer struct {
	guard    guard
	resolver Resolver
	net      net.Dialer
}

func newDialer(cfg Config) *dialer {
	g := guard{allow: cfg.AllowAddrs}
	d := &dialer{guard: g, resolver: cfg.Resolver, net: *cfg.Dialer}
	user := cfg.Dialer.Control
	d.net.Control = func(network, address string, c syscall.RawConn) error {
		if err := g.control(network, address, c); err != nil {
			return err
		}
		if user != nil {
			return user(network, address, c)
		}
		return nil
	}
	d.net.ControlContext = nil // Control is the hook; a ControlContext would replace it
	d.net.Resolver = nil
	return d
}

// DialContext connects to address, a host:port from a request.
func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, ok := hostAddr(host); ok {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("looking up %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("looking up %s: no addresses", host)
		}
	}
	var errs []error
	for _, a := range addrs {
		c, err := d.net.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		if b, ok := errors.AsType[*BlockedError](err); ok && b.Host == "" {
			b.Host = host
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}
