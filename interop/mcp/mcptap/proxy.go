package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// runProxy forwards streamable HTTP to a server and records its frames.
func runProxy(args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ExitOnError)
	out := fs.String("o", "", "append the records to this `file`")
	listen := fs.String("listen", "127.0.0.1:0", "serve on this loopback `address`")
	target := fs.String("target", "", "the server's base `URL`, such as http://127.0.0.1:8080")
	fs.Parse(args)
	if *out == "" || *target == "" {
		return errors.New("proxy needs -o FILE and -target URL")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %s: only loopback addresses", *listen)
	}
	u, err := url.Parse(*target)
	if err != nil {
		return err
	}
	f, rec, err := openRecord(*out)
	if err != nil {
		return err
	}
	defer f.Close()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mcptap: proxying http://%s to %s\n", ln.Addr(), u)
	hs := &http.Server{Handler: newProxy(u, rec), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		hs.Close()
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return rec.err
}

// newProxy returns a reverse proxy to target that records the frames of
// every request body and answer. It keeps the client's Host header, so
// the server's own Host checks see what the client sent.
func newProxy(target *url.URL, rec *recorder) http.Handler {
	var exchanges atomic.Int64
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			req := resp.Request
			ex, _ := req.Context().Value(exchangeKey{}).(int64)
			session := resp.Header.Get("Mcp-Session-Id")
			if session == "" {
				session = req.Header.Get("Mcp-Session-Id")
			}
			base := record{Dir: "recv", Session: session, Exchange: ex, Rev: req.Header.Get("Mcp-Protocol-Version")}
			ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			switch {
			case resp.StatusCode >= 300:
				// Refusals (a bad Host, a wrong session) answer in
				// plain text or JSON errors; not frames of a session.
			case ct == "text/event-stream":
				resp.Body = &sseTap{rc: resp.Body, each: func(data []byte) { rec.add(base, data) }}
			case ct == "application/json":
				resp.Body = &bodyTap{rc: resp.Body, done: func(b []byte) {
					if len(bytes.TrimSpace(b)) > 0 {
						rec.add(base, b)
					}
				}}
			}
			return nil
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ex int64
		if r.Method == http.MethodPost {
			ex = exchanges.Add(1)
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if len(bytes.TrimSpace(body)) > 0 {
				rec.add(record{Dir: "send", Session: r.Header.Get("Mcp-Session-Id"), Exchange: ex, Rev: r.Header.Get("Mcp-Protocol-Version")}, body)
			}
		}
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	})
}

type exchangeKey struct{}

// bodyTap hands the whole body to done when it has been read to the end.
type bodyTap struct {
	rc   io.ReadCloser
	buf  bytes.Buffer
	done func([]byte)
	sent bool
}

func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.buf.Write(p[:n])
	if err == io.EOF && !t.sent {
		t.sent = true
		t.done(t.buf.Bytes())
	}
	return n, err
}

func (t *bodyTap) Close() error { return t.rc.Close() }

// sseTap hands the data of every server-sent event to each as it passes.
type sseTap struct {
	rc   io.ReadCloser
	p    sseParser
	each func([]byte)
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.p.feed(p[:n], t.each)
	return n, err
}

func (t *sseTap) Close() error { return t.rc.Close() }

// sseParser splits a text/event-stream into the data of its events. Events
// with no data (priming events, comments, retry hints) are dropped.
type sseParser struct {
	line []byte // the incomplete line so far
	data []byte // the data lines of the event so far
	has  bool   // whether the event so far has a data line
	cr   bool   // the last byte fed was \r
}

// feed parses b, calling each with the data of every completed event.
func (p *sseParser) feed(b []byte, each func([]byte)) {
	for _, c := range b {
		if p.cr && c == '\n' { // \r\n: the line already ended at \r
			p.cr = false
			continue
		}
		p.cr = c == '\r'
		if c != '\n' && c != '\r' {
			p.line = append(p.line, c)
			continue
		}
		p.endLine(each)
	}
}

func (p *sseParser) endLine(each func([]byte)) {
	line := p.line
	p.line = p.line[:0]
	if len(line) == 0 { // a blank line ends the event
		if p.has && len(bytes.TrimSpace(p.data)) > 0 {
			each(bytes.Clone(p.data))
		}
		p.data, p.has = p.data[:0], false
		return
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	if string(field) != "data" {
		return
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	if p.has {
		p.data = append(p.data, '\n')
	}
	p.data = append(p.data, value...)
	p.has = true
}
