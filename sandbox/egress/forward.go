package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
)

// forward serves a plain HTTP request with an absolute URL: it checks
// the URL's host and port and passes the request on (through the guard)
// and the response back, without the hop-by-hop headers.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	u := r.URL
	if !u.IsAbs() || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		p.refuse(w, r, u.String(), &refusal{http.StatusBadRequest, "http_request_error",
			"wield sandbox: this is the sandbox's network proxy: it takes CONNECT host:port, or a request for an absolute http:// URL"})
		return
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if ps := u.Port(); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 {
			p.refuse(w, r, u.Host, &refusal{http.StatusBadRequest, "http_request_error",
				"wield sandbox: the port of " + strconv.Quote(u.Host) + " is not a number from 1 to 65535"})
			return
		}
		port = n
	}
	h, f := p.check(u.Hostname(), port)
	if f != nil {
		p.refuse(w, r, u.Host, f)
		return
	}
	// The connection goes to the normalised host, the form the allow
	// list judged; the Host header stays as the client wrote it.
	out := *u
	out.Host = net.JoinHostPort(h, strconv.Itoa(port))
	r = r.WithContext(r.Context())
	r.URL = &out
	p.log.Debug("egress request", "method", r.Method, "url", out.Redacted())
	p.fwd.ServeHTTP(w, r)
}

// forwardFailed is the ReverseProxy's ErrorHandler: a server that could
// not be reached, or did not answer.
func (p *Proxy) forwardFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the client went away, or the proxy is closing
	}
	p.refuse(w, r, r.URL.Host, dialFailed(r.URL.Host, err))
}
