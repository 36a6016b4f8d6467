package gemini_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/gemini"
	"github.com/wieldhq/wield/llm/gemini/geminitest"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// TestImageInFunctionResponse runs two rounds in which the first calls a
// tool that returns a picture: the second request carries it inside the
// function response, as an inline data part. (The conformance suite
// checks that the server reads the picture back.)
func TestImageInFunctionResponse(t *testing.T) {
	srv := geminitest.NewServer(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{{ID: "call-1", Name: "desktop", Arguments: json.RawMessage(`{"action":"screenshot"}`)}}},
		{Round: 2, Text: "A terminal."},
	}, nil)
	c := &llmtest.Conversation{Provider: newProvider(t, srv.URL, gemini.Config{}), Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "What is on the screen?"}},
		Tools:    []llm.ToolDef{{Name: "desktop", Description: "The screen."}},
	}}
	c.Round(t, llmtest.Screenshots)
	c.Round(t, nil)
	var body struct {
		Contents []struct {
			Parts []any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := `[{"functionResponse": {
		"id": "call-1", "name": "desktop", "response": {"output": "screenshot 2x1"},
		"parts": [{"inlineData": {"mimeType": "image/png", "data": "` + base64.StdEncoding.EncodeToString([]byte(llmtest.Screenshot)) + `"}}]
	}}]`
	if diff := llmtest.JSONDiff(t, want, body.Contents[2].Parts); diff != "" {
		t.Errorf("the result's parts (-want +got):\n%s", diff)
	}
}
