package mcp

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configures [Server.HTTPHandler]. The zero value serves
// streamable HTTP with sessions and SSE answers, for loopback clients.
type HTTPOptions struct {
	// Token, if set, is the bearer token every request must carry in its
	// Authorization header.
	Token string
	// Stateless serves without MCP sessions: each request stands alone.
	Stateless bool
	// JSONResponse answers requests with plain JSON instead of an SSE
	// stream, which is faster for clients that need no streaming.
	JSONResponse bool
	// AllowRemoteHosts turns off the check that the Host header names the
	// loopback interface (the protection against DNS rebinding). Set it
	// only for a server bound to a non-loopback address.
	AllowRemoteHosts bool
}

// HTTPHandler returns the server as a streamable HTTP handler.
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Stateless:                  o.Stateless,
		JSONResponse:               o.JSONResponse,
		Logger:                     s.log,
		DisableLocalhostProtection: o.AllowRemoteHosts,
	})
	h = &httpFastPath{srv: s, next: h, stateless: o.Stateless, jsonResponse: o.JSONResponse, anyHost: o.AllowRemoteHosts}
	h = s.whenReady(h)
	// Browsers name the page that sent a request in Origin and
	// Sec-Fetch-Site: refuse pages of other origins, which the Host check
	// alone lets through when they address 127.0.0.1 directly.
	h = http.NewCrossOriginProtection().Handler(h)
	if o.Token == "" {
		return h
	}
	want := []byte("Bearer " + o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="wield"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// whenReady holds each request until the server's tools are in place, and
// answers 503 Service Unavailable when they failed to be.
func (s *Server) whenReady(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.Ready(r.Context()); err != nil {
			if r.Context().Err() == nil {
				http.Error(w, "wield: the server's tools are unavailable: "+err.Error(), http.StatusServiceUnavailable)
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ErrNotLoopback is returned (wrapped) by [CheckListenAddr] for an address
// that is not a loopback address when remote access is not allowed.
var ErrNotLoopback = errors.New("not a loopback address")

// ErrNoToken is returned (wrapped) by [CheckListenAddr] for a non-loopback
// address whose remote access is allowed but no bearer token protects.
var ErrNoToken = errors.New("remote access without a bearer token")

// CheckListenAddr refuses to serve HTTP on a non-loopback address unless
// remote access is allowed explicitly and protected by a token. It returns
// nil for an address it accepts, an error wrapping [ErrNotLoopback] or
// [ErrNoToken] for one it refuses, and another error for an address that
// is not HOST:PORT.
func CheckListenAddr(addr string, allowRemote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (use HOST:PORT, e.g. 127.0.0.1:8080)", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	switch {
	case !allowRemote:
		return fmt.Errorf("refusing to listen on %s: %w", addr, ErrNotLoopback)
	case token == "":
		return fmt.Errorf("refusing to listen on %s: %w", addr, ErrNoToken)
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
