package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/wieldhq/wield/internal/netguard"
)

// A refusal is a request the proxy does not carry out: the status, the
// Proxy-Status error type (RFC 9209) and the message, which the client
// gets as both the reason phrase and the body.
type refusal struct {
	status int
	kind   string
	msg    string
}

// check decides whether the proxy may connect to port of host: it
// returns host normalised, or a refusal.
func (p *Proxy) check(host string, port int) (string, *refusal) {
	h, ok := p.allow.match(host, port)
	switch {
	case ok:
		return h, nil
	case h == "":
		return "", &refusal{http.StatusBadRequest, "destination_not_found",
			fmt.Sprintf("wield sandbox: %q is not a host name or address the proxy can connect to", host)}
	case p.allow.hostListed(h):
		return "", &refusal{http.StatusForbidden, "http_request_denied", fmt.Sprintf(
			"wield sandbox: port %d of %s is not in the sandbox's network allow list, where a host without a port allows ports 80 and 443 only; %s must be listed to reach it (%s)",
			port, h, net.JoinHostPort(h, strconv.Itoa(port)), p.hint)}
	}
	return "", &refusal{http.StatusForbidden, "http_request_denied",
		fmt.Sprintf("wield sandbox: host %s is not in the sandbox's network allow list (%s)", h, p.hint)}
}

// dialFailed describes a failure to connect to a server that the allow
// list allowed.
func dialFailed(address string, err error) *refusal {
	if b, ok := errors.AsType[*netguard.BlockedError](err); ok {
		return &refusal{http.StatusForbidden, "destination_ip_prohibited", "wield sandbox: " + b.Error()}
	}
	if _, ok := errors.AsType[*net.DNSError](err); ok || strings.HasPrefix(err.Error(), "looking up ") {
		return &refusal{http.StatusBadGateway, "dns_error", "wield sandbox: " + oneLine(err.Error())}
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return &refusal{http.StatusGatewayTimeout, "connection_timeout",
			"wield sandbox: connecting to " + address + " timed out: " + oneLine(err.Error())}
	}
	return &refusal{http.StatusBadGateway, "destination_unavailable",
		"wield sandbox: connecting to " + address + ": " + oneLine(err.Error())}
}

func isTimeout(err error) bool {
	ne, ok := errors.AsType[net.Error](err)
	return ok && ne.Timeout()
}

// oneLine joins the lines of s (errors.Join's) with "; ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// refuse answers r with f and closes the connection. The message is the
// reason phrase as well as the body, because a client that fails a
// CONNECT shows the status line only ("Tunnel connection failed: 403
// wield sandbox: host …").
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, target string, f *refusal) {
	p.log.Info("egress refused", "method", r.Method, "target", target, "status", f.status, "reason", f.msg)
	reason := phrase(f.msg)
	body := f.msg + "\n"
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not an HTTP/1 connection: the standard reason phrase, then.
		w.Header().Set("Proxy-Status", "wield; error="+f.kind)
		w.Header().Set("Connection", "close")
		http.Error(w, f.msg, f.status)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nProxy-Status: wield; error=%s\r\n\r\n%s",
		f.status, reason, len(body), f.kind, body)
	buf.Flush()
}

// phrase makes s safe as a reason phrase: printable ASCII only.
func phrase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c >= 0x7f {
			b[i] = '?'
		}
	}
	return string(b)
}
