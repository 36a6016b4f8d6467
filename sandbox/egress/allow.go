package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/wieldhq/wield/internal/netguard"
)

// defaultPorts are the ports a pattern without a port allows: HTTP's and
// HTTPS's.
var defaultPorts = [...]int{80, 443}

// An AllowList is a parsed list of host patterns, which decides the hosts
// and ports the proxy connects to. A pattern is one of:
//
//   - a host name, "api.example.com": that host only, not its
//     subdomains. Names are compared case-insensitively, with a trailing
//     dot dropped and internationalised names in their ASCII (punycode)
//     form, so "Bücher.example." and "xn--bcher-kva.example" are one.
//   - "*." and a domain, "*.github.com": every subdomain of github.com, at
//     any depth ("api.github.com", "a.b.github.com"), but not github.com
//     itself, which needs a pattern of its own.
//   - an IP address, "203.0.113.7" or "2001:db8::1" (brackets allowed): a
//     request for that literal address. A name that resolves to it is not
//     matched by it.
//   - "*": every host. The address checks still apply: the proxy reaches
//     only public addresses.
//
// Any of them may end in ":PORT" ("api.example.com:8443", "[2001:db8::1]:22",
// "*.github.com:22"), and then allows that port only; without a port a
// pattern allows ports 80 and 443. The zero AllowList allows nothing.
// An AllowList is safe for concurrent use.
type AllowList struct {
	rules []rule
}

// rule is one parsed pattern.
type rule struct {
	any  bool   // "*"
	sub  bool   // "*.domain": subdomains of host
	host string // normalised (see normalHost); "" when any
	port int    // 0 for the default ports
}

// ParseAllowList parses patterns, as [AllowList] describes them. It
// returns an error naming every pattern it cannot read; empty strings
// are errors too. It does not keep the slice.
func ParseAllowList(patterns []string) (*AllowList, error) {
	l := &AllowList{}
	var errs []error
	for _, p := range patterns {
		r, err := parseRule(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		l.rules = append(l.rules, r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return l, nil
}

func parseRule(p string) (rule, error) {
	bad := func(why string) (rule, error) {
		return rule{}, fmt.Errorf("network allow list: pattern %q: %s", p, why)
	}
	s := strings.TrimSpace(p)
	if s == "" {
		return bad("empty")
	}
	if strings.Contains(s, "/") {
		return bad(`want a host name ("api.example.com"), not a URL or a path`)
	}
	host, port, err := splitPort(s)
	if err != nil {
		return bad(err.Error())
	}
	r := rule{port: port}
	switch {
	case host == "*":
		r.any = true
		return r, nil
	case strings.HasPrefix(host, "*."):
		r.sub = true
		host = host[2:]
	}
	if strings.Contains(host, "*") {
		return bad(`a wildcard is allowed only as "*" or at the start, as in "*.example.com"`)
	}
	h, err := normalHost(host)
	if err != nil {
		return bad(err.Error())
	}
	if _, err := netip.ParseAddr(h); err == nil && r.sub {
		return bad("an IP address has no subdomains")
	}
	r.host = h
	return r, nil
}

// splitPort splits "host:port", "[v6]:port", "[v6]", a bare IPv6 address
// or a host into the host and the port (0 when none is given).
func splitPort(s string) (string, int, error) {
	if _, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return s, 0, nil // an address, IPv6 with its colons, without a port
	}
	if !strings.Contains(s, ":") {
		return s, 0, nil
	}
	host, ps, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, errors.New(`want a host, "*.domain", an IP address or "*", with an optional ":PORT"`)
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("port %q is not a number from 1 to 65535", ps)
	}
	return host, port, nil
}

// normalHost returns the form of a host that patterns and requests are
// compared in: an IP address (in any spelling [netguard.HostAddr] reads)
// as its canonical text, without brackets or zone; a name in lower case
// without a trailing dot, an internationalised one in its ASCII form. It
// returns an error for what is neither.
func normalHost(h string) (string, error) {
	if a, ok := netguard.HostAddr(h); ok {
		return a.Unmap().WithZone("").String(), nil
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", errors.New("empty host name")
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		// Plain names are checked by hand rather than by IDNA, which
		// rejects the underscores some real host names have.
		h = strings.ToLower(h)
		for label := range strings.SplitSeq(h, ".") {
			if label == "" || len(label) > 63 {
				return "", fmt.Errorf("host name %q has an empty or overlong label", h)
			}
			for i := 0; i < len(label); i++ {
				c := label[i]
				if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
					return "", fmt.Errorf("host name %q has the character %q", h, c)
				}
			}
		}
		if len(h) > 253 {
			return "", fmt.Errorf("host name of %d characters, more than 253", len(h))
		}
		return h, nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host name %q: %w", h, err)
	}
	return normalHost(a) // checks the ASCII form as any other
}

// Allows reports whether the list allows connecting to port of host. host
// is a name or an IP address, in any form [AllowList] says patterns are
// compared in; a host that is neither is not allowed.
func (l *AllowList) Allows(host string, port int) bool {
	_, ok := l.match(host, port)
	return ok
}

// match returns the normalised host and whether a rule allows it.
func (l *AllowList) match(host string, port int) (string, bool) {
	h, err := normalHost(host)
	if err != nil {
		return "", false
	}
	for _, r := range l.rules {
		if r.matches(h, port) {
			return h, true
		}
	}
	return h, false
}

// hostListed reports whether some rule names host (normalised), whatever
// its port: a refusal then says the port is what is missing.
func (l *AllowList) hostListed(h string) bool {
	for _, r := range l.rules {
		if r.hostMatches(h) {
			return true
		}
	}
	return false
}

func (r rule) matches(h string, port int) bool {
	return r.portMatches(port) && r.hostMatches(h)
}

func (r rule) portMatches(port int) bool {
	if r.port == 0 {
		return port == defaultPorts[0] || port == defaultPorts[1]
	}
	return port == r.port
}

func (r rule) hostMatches(h string) bool {
	switch {
	case r.any:
		return true
	case r.sub:
		return strings.HasSuffix(h, "."+r.host)
	}
	return h == r.host
}

// String returns the pattern in its normalised form, which parses back
// to the same rule.
func (r rule) String() string {
	h := r.host
	switch {
	case r.any:
		h = "*"
	case r.sub:
		h = "*." + h
	case strings.Contains(h, ":"):
		if r.port != 0 {
			h = "[" + h + "]"
		}
	}
	if r.port != 0 {
		h += ":" + strconv.Itoa(r.port)
	}
	return h
}

// String returns the list's patterns in their normalised form, separated
// by ", ".
func (l *AllowList) String() string {
	s := make([]string, len(l.rules))
	for i, r := range l.rules {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}
