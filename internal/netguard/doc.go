// Package netguard keeps outgoing connections on the public internet: it
// refuses loopback, private, link-local, shared (CGNAT), cloud metadata
// and the other special-purpose addresses, and it judges the address a
// socket connects to, after name resolution, so that a name which
// resolves one way when checked and another when dialled (DNS rebinding)
// cannot pass. It is the one home of these checks for web_fetch
// (tools/web) and the sandbox's egress proxy (sandbox/egress).
//
//	d := netguard.NewDialer(netguard.Guard{By: "web_fetch"}, nil, nil)
//	conn, err := d.DialContext(ctx, "tcp", "example.com:443")
//	if b, ok := errors.AsType[*netguard.BlockedError](err); ok {
//		// b.Addr is not on the public internet
//	}
//
// # What is checked
//
// [Classify] names the special range an address is in: IANA's
// special-purpose registries, less the globally reachable entries. IPv6
// forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are
// judged by that address. [HostAddr] reads the spellings of an IPv4
// address that browsers and inet_aton accept ("2130706433", "0x7f.1",
// "0177.0.0.1"), so that a host name which is really an address is
// judged as one.
//
// # What is not guaranteed
//
// The guard decides which addresses may be reached, not which public
// sites: that is for a permission policy or an allow list. A public
// address that forwards to a private network (a proxy, a VPN endpoint
// on the public internet) is not recognised as such. Connections made
// without a [Dialer] (another net.Dialer, a proxy from the environment)
// are not checked.
package netguard
