package netguard

import (
	"fmt"
	"net/netip"
	"syscall"
)

// A BlockedError is the error of a connection a [Guard] refused: the
// address is not on the public internet and no [Guard.Allow] range
// allows it.
type BlockedError struct {
	// Host is the name or literal the connection was asked for, when
	// known.
	Host string
	// Addr is the address the connection would have gone to.
	Addr netip.Addr
	// Range names the kind of address ("loopback", "private (RFC 1918)").
	Range string
	// By names what refused it, as [Guard.By] gives it.
	By string
}

func (e *BlockedError) Error() string {
	by := e.By
	if by == "" {
		by = defaultBy
	}
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, a %s address, which %s does not reach", e.Host, e.Addr, e.Range, by)
	}
	return fmt.Sprintf("%s is a %s address, which %s does not reach", e.Addr, e.Range, by)
}

const defaultBy = "wield"

// A Guard decides which addresses may be reached: public addresses, and
// those of the Allow ranges. The zero Guard allows public addresses only.
// A Guard is safe for concurrent use; it must not be changed once in use.
type Guard struct {
	// Allow lists ranges that may be reached although they are not
	// public: a local documentation server, an intranet, or in tests the
	// loopback address of a test server. Nil means none.
	Allow []netip.Prefix
	// By names what is refused in a [BlockedError]'s message
	// ("web_fetch"); empty means "wield".
	By string
}

// Check returns a [*BlockedError] when a may not be reached, and nil
// when it may. host is the name the address was found for, for the
// error's message; it may be empty.
func (g *Guard) Check(host string, a netip.Addr) error {
	a = a.WithZone("")
	r := Classify(a)
	if r == "" {
		return nil
	}
	for _, p := range g.Allow {
		if p.Contains(a) || p.Contains(a.Unmap()) {
			return nil
		}
	}
	return &BlockedError{Host: host, Addr: a, Range: r, By: g.By}
}

// Control is a [net.Dialer] Control hook: it runs after the socket is
// made and before it connects, with the address it connects to, and
// refuses what [Guard.Check] refuses. This is the check that counts;
// every other check only makes a friendlier message.
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: not an IP address and port", address)
	}
	return g.Check("", ap.Addr())
}

// special is one range of addresses that are not on the public internet.
type special struct {
	prefix netip.Prefix
	name   string
}

// specialRanges lists the ranges the guard refuses (IANA's special-purpose
// registries, less the globally reachable entries). IPv6 ranges that
// carry an IPv4 address are handled by [embeddedIPv4] first. It is never
// changed after it is built.
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

// Classify returns the name of the special range a is in ("loopback",
// "private (RFC 1918)", "link-local (cloud metadata)"), or "" for a
// public address. An IPv6 address that carries an IPv4 address is
// classified by that address, with ", inside an IPv6 address" added.
func Classify(a netip.Addr) string {
	a = a.WithZone("")
	if v4, ok := embeddedIPv4(a); ok {
		if r := Classify(v4); r != "" {
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
