package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkStdioCall measures one tools/call round trip through ServeStdio
// (the fast path) over in-process pipes: decode, validate, run echo,
// encode, write.
func BenchmarkStdioCall(b *testing.B) {
	srv, err := NewServer(testTools(&testing.T{}, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.ServeStdio(ctx, sr, sw)
	in := bufio.NewReader(cr)
	send := func(s string) {
		if _, err := io.WriteString(cw, s+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	if _, err := in.ReadString('\n'); err != nil {
		b.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`, i))
		if _, err := in.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
	}
	cw.Close()
}
