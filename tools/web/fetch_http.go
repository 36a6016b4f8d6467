package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A response is what one fetch brought back, after redirects.
type response struct {
	url         *url.URL // the final url
	status      int
	contentType string
	body        []byte
	truncated   bool // the body was cut at MaxBytes
}

// A redirectNotice is a redirect web_fetch did not follow: to another
// host, which the model must ask for itself (so that the policy sees it).
type redirectNotice struct {
	from, to *url.URL
	status   int
}

func (r *redirectNotice) Error() string {
	return fmt.Sprintf("%s redirects (%d) to %s, another host; call web_fetch again with that url to follow it", r.from, r.status, r.to)
}

// errTimeout is the cause of a fetch's deadline.
var errTimeout = errors.New("web_fetch timed out")

// httpFetcher makes web_fetch's requests.
type httpFetcher struct {
	client    *http.Client
	userAgent string
	maxBytes  int64
	timeout   time.Duration
	redirects []string
	limit     *hostLimiter
}

func newHTTPFetcher(cfg Config) *httpFetcher {
	d := newDialer(cfg)
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us and bypass the guard
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	return &httpFetcher{
		client: &http.Client{
			Transport: tr,
			// Redirects are followed by hand, hop by hop.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: cfg.UserAgent,
		maxBytes:  cfg.MaxBytes,
		timeout:   cfg.Timeout,
		redirects: cfg.RedirectHosts,
		limit:     newHostLimiter(cfg.HostRate, cfg.Now),
	}
}

// get fetches u, following at most MaxRedirects redirects on the same
// host (or to a host of Config.RedirectHosts). It returns a
// *redirectNotice for a redirect it does not follow, a *rateLimitError
// when the host's rate is used up, and an error that says what happened
// for everything else.
func (f *httpFetcher) get(ctx context.Context, u *url.URL) (*response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, f.timeout, errTimeout)
	defer cancel()
	for hop := 0; ; hop++ {
		if err := checkScheme(u); err != nil {
			return nil, err
		}
		if err := f.limit.take(u.Hostname()); err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, fmt.Errorf("building the request for %s: %w", u, err)
		}
		req.Header.Set("User-Agent", f.userAgent)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,*/*;q=0.5")
		resp, err := f.client.Do(req)
		if err != nil {
			return nil, f.describe(ctx, u, err)
		}
		if loc := resp.Header.Get("Location"); isRedirect(resp.StatusCode) && loc != "" {
			resp.Body.Close()
			next, err := u.Parse(loc)
			if err != nil {
				return nil, fmt.Errorf("%s redirects to %q, which is not a valid url", u, loc)
			}
			if hop == MaxRedirects {
				return nil, fmt.Errorf("%s redirected more than %d times; the last hop went to %s", u, MaxRedirects, next)
			}
			if !sameSite(u, next) && !matchesAnyHost(f.redirects, next.Hostname()) {
				return nil, &redirectNotice{from: u, to: next, status: resp.StatusCode}
			}
			u = next
			continue
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
		if err != nil {
			return nil, f.describe(ctx, u, fmt.Errorf("reading the body: %w", err))
		}
		r := &response{url: u, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body}
		if int64(len(body)) > f.maxBytes {
			r.body, r.truncated = body[:f.maxBytes], true
		}
		return r, nil
	}
}

// describe turns a transport error into one that says what to do.
func (f *httpFetcher) describe(ctx context.Context, u *url.URL, err error) error {
	if b, ok := errors.AsType[*BlockedError](err); ok {
		return fmt.Errorf("%w; ask the user to allow that address range if the page is meant to be read", b)
	}
	slow := errors.Is(context.Cause(ctx), errTimeout)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() && !errors.Is(err, os.ErrDeadlineExceeded) {
		// The transport's wait for the response headers, as long as the
		// call's deadline: whichever fires first, the server was slow.
		slow = true
	}
	if slow {
		return fmt.Errorf("%s did not answer within %s: the server is slow or unreachable; try again later or another source", u.Host, f.timeout)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("fetching %s: %w", u, context.Cause(ctx))
	}
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok && dnsErr.IsNotFound {
		return fmt.Errorf("%s does not exist (no DNS record); check the url for typos", dnsErr.Name)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%s: connection timed out; the host may be down or block this network", u.Host)
	}
	return fmt.Errorf("fetching %s: %w", u, err)
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// checkScheme refuses urls web_fetch does not read: other schemes than
// http and https, and urls without a host.
func checkScheme(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: web_fetch reads only http and https urls", u.Redacted())
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%q has no host", u.Redacted())
	}
	return nil
}

// sameSite reports whether a redirect from a to b stays on the same host:
// the same name (or the name with or without "www."), and no downgrade
// from https to http.
func sameSite(a, b *url.URL) bool {
	if a.Scheme == "https" && b.Scheme != "https" {
		return false
	}
	ha, hb := normalHost(a.Hostname()), normalHost(b.Hostname())
	return ha == hb || "www."+ha == hb || ha == "www."+hb
}

// matchesAnyHost reports whether host is covered by one of patterns, in
// the syntax of domain rules.
func matchesAnyHost(patterns []string, host string) bool {
	h := normalHost(host)
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		switch {
		case p == "*":
			return true
		case strings.HasPrefix(p, "*."):
			if strings.HasSuffix(h, "."+normalHost(p[2:])) {
				return true
			}
		default:
			if d := normalHost(p); h == d || strings.HasSuffix(h, "."+d) {
				return true
			}
		}
	}
	return false
}

// normalHost lower-cases h and drops a trailing dot.
func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// A rateLimitError says a request was not made because of a rate limit.
type rateLimitError struct {
	what  string
	retry time.Duration
}

func (e *rateLimitError) Error() string {
	return fmt.Sprintf("%s; do not retry for %d s", e.what, max(1, int(e.retry.Round(time.Second)/time.Second)))
}

// hostLimiter allows at most rate requests per minute to each host. It is
// safe for concurrent use; it forgets hosts not asked for in a minute.
type hostLimiter struct {
	rate int
	now  func() time.Time
	mu   sync.Mutex
	seen map[string][]time.Time
}

func newHostLimiter(rate int, now func() time.Time) *hostLimiter {
	return &hostLimiter{rate: rate, now: now, seen: map[string][]time.Time{}}
}

// take records a request to host, or returns a *rateLimitError.
func (l *hostLimiter) take(host string) error {
	if l.rate < 0 {
		return nil
	}
	host = normalHost(host)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.seen) > 1024 {
		for h, ts := range l.seen {
			if now.Sub(ts[len(ts)-1]) >= time.Minute {
				delete(l.seen, h)
			}
		}
	}
	ts := l.seen[host]
	for len(ts) > 0 && now.Sub(ts[0]) >= time.Minute {
		ts = ts[1:]
	}
	if len(ts) >= l.rate {
		return &rateLimitError{what: "web_fetch makes at most " + strconv.Itoa(l.rate) + " requests a minute to " + host, retry: time.Minute - now.Sub(ts[0])}
	}
	l.seen[host] = append(ts, now)
	return nil
}
