package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// dialTimeout bounds looking up and connecting to a server.
const dialTimeout = 30 * time.Second

// connect serves a CONNECT request: it checks the target, connects to
// it through the guard, and then carries bytes both ways until either
// side closes, the tunnel is idle for the idle timeout, or the proxy
// closes.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, ps, err := net.SplitHostPort(r.Host)
	port, perr := strconv.Atoi(ps)
	if err != nil || perr != nil || port < 1 || port > 65535 {
		p.refuse(w, r, r.Host, &refusal{http.StatusBadRequest, "http_request_error",
			"wield sandbox: CONNECT wants a host and port (host:443), not " + strconv.Quote(r.Host)})
		return
	}
	h, f := p.check(host, port)
	if f != nil {
		p.refuse(w, r, r.Host, f)
		return
	}
	address := net.JoinHostPort(h, ps)
	ctx, cancel := context.WithTimeout(r.Context(), dialTimeout)
	server, err := p.dial.DialContext(ctx, "tcp", address)
	cancel()
	if err != nil {
		p.refuse(w, r, r.Host, dialFailed(address, err))
		return
	}
	defer server.Close()
	client, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "wield sandbox: CONNECT needs an HTTP/1 connection", http.StatusHTTPVersionNotSupported)
		return
	}
	defer client.Close()
	p.log.Debug("egress tunnel", "target", address, "remote", server.RemoteAddr())
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// What the client sent after the request, before the reply (a TLS
	// ClientHello, eagerly), is in buf already.
	if n := buf.Reader.Buffered(); n > 0 {
		b, _ := buf.Peek(n)
		if _, err := server.Write(b); err != nil {
			return
		}
	}
	p.pipe(r.Context(), client, server)
}

// pipe copies between a and b in both directions until both directions
// end, ctx ends, or neither direction moves for the idle timeout. Each
// side's end of input is passed on as a half close, so that a client
// that shuts down its writes still reads the whole reply.
func (p *Proxy) pipe(ctx context.Context, a, b net.Conn) {
	stop := context.AfterFunc(ctx, func() { a.Close(); b.Close() })
	defer stop()
	extend := func() {
		d := time.Now().Add(p.idle)
		a.SetDeadline(d)
		b.SetDeadline(d)
	}
	extend()
	copyTo := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				extend()
				if _, werr := dst.Write(buf[:n]); werr != nil {
					a.Close()
					b.Close()
					return
				}
			}
			if errors.Is(err, io.EOF) {
				closeWrite(dst)
				return
			}
			if err != nil {
				a.Close()
				b.Close()
				return
			}
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { copyTo(b, a) })
	wg.Go(func() { copyTo(a, b) })
	wg.Wait()
}

// closeWrite shuts down the writing side of c, or closes it when it has
// none.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
