package gemini_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/gemini"
	"github.com/wieldhq/wield/llm/gemini/geminitest"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR a screenshot")

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
	c.Round(t, func(calls []llm.ToolCall) []llm.Message {
		return []llm.Message{{Role: llm.RoleTool, ToolCallID: calls[0].ID, ToolName: calls[0].Name, Content: "screenshot 2x1",
			Images: []llm.Image{{MIMEType: "image/png", Width: 2, Height: 1, Data: pngBytes}}}}
	})
	c.Round(t, nil)
	var body struct {
		Contents []struct {
			Parts []any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(`[{"functionResponse": {
		"id": "call-1", "name": "desktop", "response": {"output": "screenshot 2x1"},
		"parts": [{"inlineData": {"mimeType": "image/png", "data": "`+base64.StdEncoding.EncodeToString(pngBytes)+`"}}]
	}}]`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, body.Contents[2].Parts); diff != "" {
		t.Errorf("the result's parts (-want +got):\n%s", diff)
	}
}
