package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wieldhq/wield/internal/netguard/netguardtest"
)

// BenchmarkProxy measures one request through the proxy to a local
// server: "forward" reuses one connection to the proxy for plain HTTP
// requests; "connect" opens a tunnel per request (a new connection, a
// lookup, a connect), as a client does for each HTTPS host.
func BenchmarkProxy(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, err := New(b.Context(), Config{Allow: []string{"bench.test:" + port}, AllowAddrs: loopback,
		Resolver: netguardtest.NewResolver(map[string][]string{"bench.test": {"127.0.0.1"}})})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	target := "bench.test:" + port
	b.Run("forward", func(b *testing.B) {
		c, err := net.Dial("unix", p.Socket())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		b.ReportAllocs()
		for b.Loop() {
			fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatal(resp.Status)
			}
		}
	})
	b.Run("connect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := net.Dial("unix", p.Socket())
			if err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReader(c)
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
			resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(resp, err)
			}
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
			inner, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, inner.Body)
			c.Close()
		}
	})
}
