// Command mcpgo is the echo MCP server built with github.com/mark3labs/mcp-go,
// the reference point of wield's MCP bench. It serves stdio, or streamable
// HTTP with -http ADDR (printing "serving MCP on http://ADDR" on standard
// error).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this loopback `address` instead of stdio")
	flag.Parse()
	s := server.NewMCPServer("mcp-go-echo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Returns its text unchanged."),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text to return"))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	if *addr == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "serving MCP on http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, server.NewStreamableHTTPServer(s)))
}
