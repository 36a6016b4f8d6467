package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic/anthropictest"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// TestImageInToolResult runs two rounds in which the first calls a tool
// that returns a picture: the second request carries it as an image block
// inside the call's tool_result, after the text. (The conformance suite
// checks that the server reads the picture back.)
func TestImageInToolResult(t *testing.T) {
	srv := anthropictest.NewServer(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{{Name: "desktop", Arguments: json.RawMessage(`{"action":"screenshot"}`)}}},
		{Round: 2, Text: "A terminal."},
	}, &anthropictest.Options{Key: testKey})
	p := newTestProvider(t, Config{BaseURL: srv.URL, Model: "claude-test-1"})
	c := newConversation(p, "What is on the screen?")
	c.Request.Tools = append(c.Request.Tools, llm.ToolDef{Name: "desktop", Description: "The screen."})
	c.Round(t, llmtest.Screenshots)
	c.Round(t, nil)

	msgs := srv.Requests()[1].Messages
	result := msgs[len(msgs)-1].Content[0]
	b64 := base64.StdEncoding.EncodeToString([]byte(llmtest.Screenshot))
	want := `[
		{"type": "text", "text": "screenshot 2x1"},
		{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "` + b64 + `"}}
	]`
	if diff := llmtest.JSONDiff(t, want, result.Content); diff != "" {
		t.Errorf("tool_result content (-want +got):\n%s", diff)
	}
}
