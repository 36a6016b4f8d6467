// Command gosdk is the echo MCP server built with go-sdk's generic AddTool
// and its stock stdio and streamable HTTP transports, for wield's MCP bench.
// It serves stdio, or streamable HTTP with -http ADDR (printing "serving
// MCP on http://ADDR" on standard error).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoInput struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this loopback `address` instead of stdio")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-echo", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "serving MCP on http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
}
