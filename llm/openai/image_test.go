package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/openai"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR a screenshot")

var desktopTool = llm.ToolDef{Name: "desktop", Description: "The screen."}

// imageRounds runs two rounds through srv: round 1 calls desktop twice
// (in parallel), each call's result carries a picture (the second with no
// text), and round 2 answers. It returns the body of the second request.
// (The conformance suite checks that the server reads the pictures back.)
func imageRounds(t *testing.T, srv *openaitest.Server, cfg openai.Config) []byte {
	t.Helper()
	c := &llmtest.Conversation{Provider: newProvider(t, srv.URL, cfg), Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: "What is on the screen?"}},
		Tools:    []llm.ToolDef{desktopTool},
	}}
	c.Round(t, func(calls []llm.ToolCall) []llm.Message {
		var out []llm.Message
		for i, c := range calls {
			text := "screenshot 2x1"
			if i == 1 {
				text = ""
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text,
				Images: []llm.Image{{MIMEType: "image/png", Width: 2, Height: 1, Data: pngBytes}}})
		}
		return out
	})
	c.Round(t, nil)
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Round != 2 {
		t.Fatalf("%d requests, the last at round %d; want 2, the last at round 2", len(reqs), reqs[len(reqs)-1].Round)
	}
	return reqs[1].Body
}

func imageScript() []replay.Entry {
	return []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "desktop", Arguments: json.RawMessage(`{"action":"screenshot"}`)},
			{ID: "call_2", Name: "desktop", Arguments: json.RawMessage(`{"action":"zoom"}`)}}},
		{Round: 2, Text: "A terminal."},
	}
}

func jsonEqual(t *testing.T, what string, want string, got any) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	json.Unmarshal(raw, &g)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// TestChatImagesFollowToolResults: chat completions takes no picture in a
// tool message, so the pictures of a round's results follow them in one
// user message, each after a line naming its call.
func TestChatImagesFollowToolResults(t *testing.T) {
	srv := openaitest.NewServer(t, imageScript())
	body := imageRounds(t, srv, openai.Config{})
	var req struct {
		Messages []any `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	jsonEqual(t, "the messages after the calls", `[
		{"role": "tool", "tool_call_id": "call_1", "content": "screenshot 2x1"},
		{"role": "tool", "tool_call_id": "call_2", "content": ""},
		{"role": "user", "content": [
			{"type": "text", "text": "[the image below is the result of call call_1 (desktop): 2x1 png]"},
			{"type": "image_url", "image_url": {"url": "`+url+`"}},
			{"type": "text", "text": "[the image below is the result of call call_2 (desktop): 2x1 png]"},
			{"type": "image_url", "image_url": {"url": "`+url+`"}}
		]}
	]`, req.Messages[3:])
	if note := openai.ImageNote("c", "t", llm.Image{}); !strings.HasPrefix(note, openaitest.ImageNotePrefix) {
		t.Errorf("ImageNote = %q, want it to start with openaitest.ImageNotePrefix", note)
	}
}

// TestResponsesImagesInFunctionCallOutput: the Responses API takes a list
// of input_text and input_image items as a function call's output.
func TestResponsesImagesInFunctionCallOutput(t *testing.T) {
	srv := openaitest.NewServer(t, imageScript())
	body := imageRounds(t, srv, openai.Config{API: openai.Responses})
	var req struct {
		Input []any `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	jsonEqual(t, "the function call outputs", `[
		{"type": "function_call_output", "call_id": "call_1", "output": [
			{"type": "input_text", "text": "screenshot 2x1"},
			{"type": "input_image", "image_url": "`+url+`"}
		]},
		{"type": "function_call_output", "call_id": "call_2", "output": [
			{"type": "input_image", "image_url": "`+url+`"}
		]}
	]`, req.Input[len(req.Input)-2:])
}
