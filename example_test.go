package wield_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
)

// The agent the wield command runs, on a scripted model, offering only
// read_file. A real program passes a provider of package llm/anthropic,
// llm/gemini or llm/openai instead.
func ExampleNew() {
	ws, err := os.MkdirTemp("", "wield-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(ws)
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	model, err := replay.New([]replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path": "notes.txt"}`)}}},
		{Round: 2, Text: "The notes say 42."},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	a, err := wield.New(ctx, wield.Options{Workspace: ws, Provider: model, Model: "scripted", Tools: []string{"read_file"}})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	s, err := a.Store.Create(ctx, session.Header{Agent: "example"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	out, err := a.Run(ctx, s, "What do the notes say?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Text, "after", out.ToolCalls, "tool call")
	// Output: The notes say 42. after 1 tool call
}
