// Command mcptap records the JSON-RPC frames of MCP sessions and checks
// them against the protocol's JSON Schemas, for wield's interop tests.
//
// Usage:
//
//	mcptap stdio -o FILE -- COMMAND [ARG...]
//	mcptap proxy -o FILE -listen 127.0.0.1:PORT -target http://127.0.0.1:PORT
//	mcptap check -schemas DIR FILE...
//
// stdio runs COMMAND as a stdio MCP server between its own standard input
// and output and records every line each way; it exits with the
// command's status. proxy forwards streamable HTTP to target and records
// request bodies and JSON or SSE answers; it serves until SIGTERM or
// SIGINT. Both append records to FILE, one JSON object per line:
//
//	{"dir":"send"|"recv","session":"...","exchange":N,"rev":"...","frame":...}
//
// where send is client to server. check validates every recorded frame
// against the schema of its protocol revision in DIR/<revision>/schema.json
// (selected as DIR/README.md of the shared conformance data describes),
// prints what it found and exits 1 if any frame is invalid.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "stdio":
		err = runStdio(os.Args[2:])
	case "proxy":
		err = runProxy(os.Args[2:])
	case "check":
		err = runCheck(os.Args[2:], os.Stdout)
	default:
		usage()
	}
	if err != nil {
		if e, ok := err.(exitCode); ok {
			os.Exit(int(e))
		}
		fmt.Fprintln(os.Stderr, "mcptap:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  mcptap stdio -o FILE -- COMMAND [ARG...]
  mcptap proxy -o FILE -listen 127.0.0.1:PORT -target URL
  mcptap check -schemas DIR FILE...
`)
	os.Exit(2)
}

// exitCode is an error that only carries a process exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// A record is one frame as it crossed the wire.
type record struct {
	// Dir is "send" for client to server, "recv" for server to client.
	Dir string `json:"dir"`
	// Session is the HTTP session id, empty for stdio.
	Session string `json:"session,omitempty"`
	// Exchange numbers the HTTP request the frame travelled in (its body
	// or its answer); 0 for stdio and for streams opened by GET.
	Exchange int64 `json:"exchange,omitempty"`
	// Rev is the MCP-Protocol-Version header of that request, if any.
	Rev string `json:"rev,omitempty"`
	// Frame is the JSON-RPC message (or batch) as sent.
	Frame json.RawMessage `json:"frame,omitempty"`
	// Raw holds a line or body that was not JSON at all.
	Raw string `json:"raw,omitempty"`
}

// A recorder appends records to a file; it is safe for concurrent use.
type recorder struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (r *recorder) add(rec record, data []byte) {
	if json.Valid(data) {
		rec.Frame = append(json.RawMessage(nil), data...)
	} else {
		rec.Raw = string(data)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		b = fmt.Appendf(nil, `{"dir":%q,"raw":%q}`, rec.Dir, data)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.w.Write(append(b, '\n')); err != nil && r.err == nil {
		r.err = err
	}
}

func openRecord(path string) (*os.File, *recorder, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return f, &recorder{w: f}, nil
}
