// Package egress is the network proxy of wield's sandbox: an HTTP proxy
// that connects only to the hosts of an allow list, and of those only to
// addresses on the public internet. A sandboxed command that may not use
// the network otherwise reaches it through this proxy (see package
// sandbox, "Network through a proxy").
//
//	p, err := egress.New(ctx, egress.Config{Allow: []string{"api.example.com", "*.github.com"}})
//	if err != nil {
//		return err // a pattern it cannot read, or no socket to listen on
//	}
//	defer p.Close()
//	sb, err := sandbox.New(ctx, sandbox.Config{Helper: helper,
//		Proxy: &sandbox.Proxy{Socket: p.Socket(), Addr: p.Addr()}})
//
// # What it serves
//
// The proxy listens on a Unix socket and on a port of 127.0.0.1. It takes
// CONNECT host:port, for HTTPS or any other protocol over TCP, and plain
// HTTP requests with an absolute URL (GET http://host/path), which it
// passes on without the hop-by-hop headers and adds none of its own. A
// request is refused with a status, a reason phrase and a body that say
// why, in words the model that started the command can act on:
//
//	HTTP/1.1 403 wield sandbox: host evil.example is not in the sandbox's network allow list (…)
//
// 403 is for a host or port the allow list does not hold and for an
// address that is not public, 400 for what is not a proxy request, 502
// and 504 for a server that cannot be looked up or reached. Each carries
// a Proxy-Status header (RFC 9209).
//
// # The allow list
//
// [AllowList] says how patterns match: "api.example.com" is that host
// only, "*.github.com" its subdomains and not github.com itself, "*"
// every host; without ":PORT" a pattern allows ports 80 and 443. Names
// are compared case-insensitively, without a trailing dot, in their
// ASCII form. The exactness is deliberate: unlike a permission rule for
// web_fetch, where "go.dev" covers its subdomains, a sandbox's allow
// list names what a command may reach and nothing more.
//
// # Addresses
//
// The proxy resolves names itself, once per connection, and connects to
// the addresses of that answer through the guard of web_fetch (package
// internal/netguard): loopback, private, link-local (with the cloud
// metadata address), shared (CGNAT) and the other special ranges are
// refused however the host is spelled, and the address judged is the
// address connected to, so a name that resolves to a public address and
// then to a private one (DNS rebinding) gets no further.
// [Config.AllowAddrs] opens ranges beyond the public ones.
//
// # Limits
//
// A request's header must arrive within [HeaderTimeout] and fit in
// [MaxHeaderBytes]; looking up and connecting to a server takes at most
// 30 seconds; a tunnel or a connection to a server that carries nothing
// for [Config.IdleTimeout] is closed. [Proxy.Close] closes every
// connection and waits until every request has ended.
//
// # What is not guaranteed
//
// The proxy decides where connections go, not what they carry: a host
// on the list can receive anything a command sends it, and a tunnel is
// opaque. Any process of the calling user can use the socket, and any
// local process the port; both reach only what the allow list allows. A
// public address that forwards elsewhere (another proxy, a VPN) is not
// recognised as such.
package egress
