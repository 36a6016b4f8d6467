package web

import "github.com/wieldhq/wield/internal/netguard"

// A BlockedError is the error of a connection the guard refused: the
// address is not on the public internet and no [Config.AllowAddrs] range
// allows it. Its By field is "web_fetch".
type BlockedError = netguard.BlockedError

// newDialer returns the dialer of web_fetch's requests: it resolves the
// host itself, then connects to each address in turn through the guard
// (package internal/netguard, shared with the sandbox's egress proxy).
func newDialer(cfg Config) *netguard.Dialer {
	return netguard.NewDialer(netguard.Guard{Allow: cfg.AllowAddrs, By: "web_fetch"}, cfg.Resolver, cfg.Dialer)
}
