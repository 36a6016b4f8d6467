// Package netguardtest gives the tests of netguard and of its users
// (tools/web, sandbox/egress) a name resolver that answers from a table,
// so that they can point names at any address, and change the answer
// between lookups as DNS rebinding does, without a DNS server:
//
//	res := netguardtest.NewResolver(map[string][]string{
//		"rebind.test": {"93.184.216.34", "127.0.0.1"},
//		"many.test":   {"10.0.0.1,127.0.0.1"},
//	})
//	d := netguard.NewDialer(netguard.Guard{}, res, nil)
//
// It uses the standard library only.
package netguardtest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
)

// A Resolver answers lookups from a table: each host has a list of
// answers, given in turn, the last one repeated. It counts lookups. It is
// safe for concurrent use.
type Resolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

// NewResolver returns a Resolver for answers, which maps a host to its
// answers in turn, each a comma-separated list of addresses
// ("10.0.0.1,::1"). It panics on an address that does not parse.
func NewResolver(answers map[string][]string) *Resolver {
	r := &Resolver{answers: map[string][][]netip.Addr{}, calls: map[string]int{}}
	for host, seq := range answers {
		for _, a := range seq {
			var addrs []netip.Addr
			for s := range strings.SplitSeq(a, ",") {
				addrs = append(addrs, netip.MustParseAddr(s))
			}
			r.answers[host] = append(r.answers[host], addrs)
		}
	}
	return r
}

// LookupNetIP returns host's next answer, or, for a host not in the
// table, a [*net.DNSError] that says it is not found, as
// [net.Resolver.LookupNetIP] does. The network is ignored.
func (r *Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := r.calls[host]
	r.calls[host]++
	return seq[min(n, len(seq)-1)], nil
}

// Lookups returns how many answers have been given for host; a lookup
// of a host not in the table is not counted.
func (r *Resolver) Lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}
