package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// A Resolver looks up the addresses of a host name. [*net.Resolver]
// implements it; implementations must be safe for concurrent use.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DefaultDialTimeout bounds a connect when [NewDialer] is given no
// net.Dialer.
const DefaultDialTimeout = 10 * time.Second

// A Dialer connects only where its [Guard] allows. It resolves a host
// name itself, once per dial (so that legacy IPv4 spellings are read as
// addresses), then connects to each address in turn through a
// [net.Dialer] whose Control hook is the guard's, so the address judged
// is the address connected to. A Dialer is safe for concurrent use.
type Dialer struct {
	resolver Resolver
	net      net.Dialer
}

// NewDialer returns a Dialer for g. r resolves host names; nil means
// [net.DefaultResolver]. nd gives the timeouts and keep-alive of the
// connections; nil means a connect timeout of [DefaultDialTimeout]. nd's
// Control hook, if any, runs after the guard's, for the addresses the
// guard allowed; its ControlContext and Resolver are not used. NewDialer
// copies g and nd.
func NewDialer(g Guard, r Resolver, nd *net.Dialer) *Dialer {
	if r == nil {
		r = net.DefaultResolver
	}
	if nd == nil {
		nd = &net.Dialer{Timeout: DefaultDialTimeout}
	}
	g.Allow = append([]netip.Prefix(nil), g.Allow...)
	d := &Dialer{resolver: r, net: *nd}
	user := nd.Control
	d.net.Control = func(network, address string, c syscall.RawConn) error {
		if err := g.Control(network, address, c); err != nil {
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

// DialContext connects to address, a host:port. It returns an error
// holding a [*BlockedError], with Host set, for each address the guard
// refused.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, ok := HostAddr(host); ok {
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
