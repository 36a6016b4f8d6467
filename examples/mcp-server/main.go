// Mcp-server serves tools of one's own over MCP, on standard input and
// output, as `wield mcp` serves wield's: word_count, a typed tool
// ([tool.New]) with a structured result, beside wield's own read_file
// and glob. [mcp.NewServer] serves a registry through wield's runner, so
// every call is validated against the tool's schema, bounded and
// recovered from panics, and a failed call reaches the client as a tool
// error it can read.
//
// Its tools work in a workspace, the current directory unless -workspace
// names another: files are read through an [os.Root] of it, so no path
// leads out. To try it with the MCP Inspector:
//
//	npx @modelcontextprotocol/inspector go run ./examples/mcp-server
//
// or mount it in wield, in the workspace's .mcp.json:
//
//	{"mcpServers": {"words": {"command": "go", "args": ["run", "./examples/mcp-server"]}}}
//
// It serves until the client closes its end, or until interrupted.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/tool"
)

// CountInput is what word_count takes.
type CountInput struct {
	Path string `json:"path" jsonschema:"the file to count, relative to the workspace"`
}

// Counts is word_count's structured result: MCP clients get it as the
// call's structuredContent, checked against the tool's output schema.
type Counts struct {
	Lines int `json:"lines"`
	Words int `json:"words"`
	Runes int `json:"runes"`
}

// wordCount counts what is in a file of the workspace. Call.Root is the
// workspace the server was given; every file access goes through it.
func wordCount(_ context.Context, c *tool.Call, in CountInput) (tool.Result, error) {
	data, err := c.Root.ReadFile(in.Path)
	if err != nil {
		return tool.Failure(fmt.Sprintf("cannot read %s: %v; list the files with glob", in.Path, err)), nil
	}
	n := Counts{Lines: bytes.Count(data, []byte("\n")), Words: len(bytes.Fields(data)), Runes: utf8.RuneCount(data)}
	out := fmt.Sprintf("%s: %d lines, %d words, %d characters", in.Path, n.Lines, n.Words, n.Runes)
	return tool.Result{Success: true, Output: out, Data: n}, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		// Standard output carries the protocol: messages go to standard error.
		fmt.Fprintln(os.Stderr, "mcp-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("mcp-server", flag.ContinueOnError)
	dir := flags.String("workspace", ".", "the `folder` the tools work in")
	if err := flags.Parse(args); err != nil {
		return err
	}
	ws, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()

	count := tool.New(tool.Spec{
		Name:         "word_count",
		Description:  "Count the lines, words and characters of a text file.",
		OutputSchema: tool.SchemaOf[Counts](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, wordCount)
	box := &wield.Toolbox{}
	defer box.Close()
	all, err := wield.NewRegistry(ctx, wield.RegistryConfig{Toolbox: box, Tools: wield.ToolsConfig{Workspace: ws}, Extra: []*tool.Tool{count}})
	if err != nil {
		return err
	}
	reg, err := all.Filter([]string{"word_count", "read_file", "glob"})
	if err != nil {
		return err
	}
	srv, err := mcp.NewServer(reg, &mcp.ServerOptions{Name: "words", Version: "1.0.0", Root: root})
	if err != nil {
		return err
	}
	// PollStdin lets the server stop reading when ctx ends, even while
	// the client keeps its end open.
	in := mcp.PollStdin(os.Stdin)
	defer in.Close()
	return srv.ServeStdio(ctx, in, os.Stdout)
}
