package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectHTTP connects to an HTTP server: over streamable HTTP first and,
// when that fails, over the older HTTP+SSE transport, as the MCP spec
// advises clients that talk to servers of either age. Type "sse" tries only
// the older transport. wrap wraps the transports whose connections may be
// wrapped. The returned function must be called when the session has
// ended.
func (s *server) connectHTTP(ctx context.Context, client *sdk.Client, wrap func(sdk.Transport) sdk.Transport) (*sdk.ClientSession, func(), error) {
	hc := s.httpClient()
	where := redactURL(s.cfg.URL)
	if s.cfg.Type == "sse" {
		cs, stop, err := connectSSE(ctx, client, s.cfg.URL, hc, wrap)
		if err != nil {
			return nil, nil, s.startError(ctx, fmt.Errorf("HTTP+SSE at %s: %w", where, err))
		}
		return cs, stop, nil
	}
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}, nil)
	if err == nil {
		return cs, func() {}, nil
	}
	if ctx.Err() != nil {
		return nil, nil, s.startError(ctx, err)
	}
	cs, stop, sseErr := connectSSE(ctx, client, s.cfg.URL, hc, wrap)
	if sseErr == nil {
		return cs, stop, nil
	}
	if ctx.Err() != nil {
		return nil, nil, s.startError(ctx, sseErr)
	}
	return nil, nil, fmt.Errorf("cannot connect to mcp server %q at %s: streamable HTTP: %v; HTTP+SSE: %v", s.name, where, err, sseErr)
}

// connectSSE connects over HTTP+SSE. The SDK's SSE client ties its event
// stream to the context given to Connect, which here is bounded by the
// startup timeout; so the stream gets a context of its own, cancelled if
// the start fails in time, else by the returned function.
func connectSSE(ctx context.Context, client *sdk.Client, endpoint string, hc *http.Client, wrap func(sdk.Transport) sdk.Transport) (*sdk.ClientSession, func(), error) {
	life, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	t := transportFunc(func(context.Context) (sdk.Connection, error) {
		return (&sdk.SSEClientTransport{Endpoint: endpoint, HTTPClient: hc}).Connect(life)
	})
	cs, err := client.Connect(ctx, wrap(t), nil)
	if err != nil || !stop() {
		cancel(nil)
		if err == nil {
			cs.Close()
			err = context.Cause(ctx)
		}
		return nil, nil, err
	}
	return cs, func() { cancel(nil) }, nil
}

// transportFunc adapts a function to an [sdk.Transport].
type transportFunc func(context.Context) (sdk.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (sdk.Connection, error) { return f(ctx) }

// httpClient returns the manager's HTTP client, sending the server's
// headers with every request.
func (s *server) httpClient() *http.Client {
	base := s.m.opts.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	if len(s.cfg.Headers) == 0 {
		return base
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = headerTransport{headers: s.cfg.Headers, base: rt}
	return &hc
}

// headerTransport adds configured headers to each request, leaving those
// the SDK set itself.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		if r.Header.Get(k) == "" {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

// redactURL returns u without its query and user information, which may
// hold secrets, for messages.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User = nil
	if p.RawQuery != "" {
		p.RawQuery = "..."
	}
	p.Fragment = ""
	return p.String()
}
