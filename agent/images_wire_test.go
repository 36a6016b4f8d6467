package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"log/slog"
	"testing"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic"
	"github.com/wieldhq/wield/llm/anthropic/anthropictest"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// TestImagesFromTheJournalReachTheWire runs two tasks against a scripted
// Anthropic server in a journaled session: the first takes a screenshot,
// and the request of the second, built from the journal, carries the
// picture read back from the blob store as an image block of the call's
// tool_result.
func TestImagesFromTheJournalReachTheWire(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	pic := buf.Bytes()
	shot := tool.New(tool.Spec{Name: "shot", Description: "takes a screenshot"}, func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
		return tool.Result{Success: true, Output: "the screen", Images: []tool.Image{{MIMEType: "image/png", Width: 8, Height: 6, Data: pic}}}, nil
	})
	reg, err := tool.NewRegistry(shot)
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-ant-test-0123456789abcdef"
	srv := anthropictest.NewServer(t, []replay.Entry{
		{Turn: 1, Round: 1, ToolCalls: []llm.ToolCall{{Name: "shot", Arguments: json.RawMessage(`{}`)}}},
		{Turn: 1, Round: 2, Text: "I see a black screen."},
		{Turn: 2, Round: 1, Text: "Still black."},
	}, &anthropictest.Options{Key: key})
	p, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: key, Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	store := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(t.Context(), session.Header{ID: "wire"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, task := range []string{"look", "look again"} {
		if _, err := a.Run(t.Context(), s, task); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var found bool
	for _, m := range last.Messages {
		for _, b := range m.Content {
			for _, img := range b.ResultImages() {
				found = found || img.MIMEType == "image/png" && bytes.Equal(img.Data, pic)
			}
		}
	}
	if !found {
		t.Errorf("the second task's request carries no image block of the picture:\n%s", last.Body)
	}
}
