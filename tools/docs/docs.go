// Package docs provides the tools that let a model answer from the
// user's own documents, on a [retrieval.Library]: index_documents,
// search_documents, list_documents and get_document. Search results
// carry the source path and line (or PDF page) range of each passage,
// so the model can cite them, and get_document shows the lines around.
//
// The tools are built with what they work on: [Tools](Config{Library:
// lib}). A nil Library gives tools that fail, saying retrieval is not set
// up. Documents are read through the call's workspace root
// ([tool.Call.Root]), so no path leads out of the workspace; the index
// lives where the library keeps it (the workspace's .wield/index).
//
// index_documents writes only the index, never the user's files; it is
// not read-only, so a policy that asks before writes asks before it.
package docs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/tool"
)

// Config configures the document tools. The zero Config gives tools
// that fail, saying retrieval is not set up.
type Config struct {
	// Library holds the collections the tools index and search.
	Library *retrieval.Library
	// OutputBudget caps the bytes of text one call returns; zero means
	// DefaultOutputBudget.
	OutputBudget int
}

// DefaultOutputBudget is the default of [Config.OutputBudget]: just under
// the runner's output limit, so that nothing is cut in the middle.
const DefaultOutputBudget = tool.DefaultOutputLimit - 2_000

func (c Config) budget() int {
	if c.OutputBudget <= 0 {
		return DefaultOutputBudget
	}
	return c.OutputBudget
}

// Tools returns the document tools built from cfg, in the order a model
// should see them: search_documents, get_document, list_documents,
// index_documents.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{NewSearch(cfg), NewGet(cfg), NewList(cfg), NewIndex(cfg)}
}

var (
	errNoLibrary   = errors.New("document retrieval is not set up in this host: no index to use")
	errNoWorkspace = errors.New("no workspace: the document tools need a workspace root, and this call has none")
)

// location says where a chunk is: "lines 5-7" or "page 3, lines 5-7".
func location(c *retrieval.Chunk) string {
	lines := fmt.Sprintf("lines %d-%d", c.StartLine, c.EndLine)
	if c.StartLine == c.EndLine {
		lines = fmt.Sprintf("line %d", c.StartLine)
	}
	switch {
	case c.StartPage == 0:
		return lines
	case c.StartPage == c.EndPage:
		return fmt.Sprintf("page %d, %s", c.StartPage, lines)
	}
	return fmt.Sprintf("pages %d-%d, %s", c.StartPage, c.EndPage, lines)
}

// collectionOrDefault returns the collection named, or the default.
func collectionOrDefault(name string) string {
	if name = strings.TrimSpace(name); name == "" {
		return retrieval.DefaultCollection
	}
	return name
}

// count says "1 chunk" or "2 chunks".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
