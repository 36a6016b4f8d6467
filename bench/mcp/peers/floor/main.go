// Command floor is the least an MCP server over stdio can do before its
// initialize answer: it imports no MCP library, reads lines and answers
// initialize with a constant, then anything else with an empty result,
// until its input ends. bench/mcp/startup.sh measures it beside the real
// servers, as the machine's floor for "exec to initialize answer": the
// cost of starting a Go process at all.
package main

import (
	"bufio"
	"bytes"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		id := idOf(line)
		if id == nil {
			continue // a notification
		}
		if bytes.Contains(line, []byte(`"initialize"`)) {
			os.Stdout.Write(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...),
				`,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}}`+"\n"...))
			continue
		}
		os.Stdout.Write(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":{}}`+"\n"...))
	}
}

// idOf returns the raw id of a request line, or nil. It takes a number or
// a string without escapes, which is all the driver sends.
func idOf(line []byte) []byte {
	_, rest, ok := bytes.Cut(line, []byte(`"id":`))
	if !ok {
		return nil
	}
	end := bytes.IndexAny(rest, ",}")
	if end <= 0 {
		return nil
	}
	return bytes.TrimSpace(rest[:end])
}
