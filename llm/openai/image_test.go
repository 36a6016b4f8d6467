package openai_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/openai"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

// TestImagesInToolResults runs two rounds in each API: round 1 calls
// desktop twice (in parallel), each call's result carries a picture (the
// second with no text), and round 2 answers. Chat completions takes no
// picture in a tool message, so the pictures of a round's results follow
// them in one user message, each after a line naming its call; the
// Responses API takes a list of input_text and input_image items as a
// function call's output. (The conformance suite checks that the server
// reads the pictures back.)
func TestImagesInToolResults(t *testing.T) {
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(llmtest.Screenshot))
	tests := []struct {
		api   openai.API
		field string // the body's list that ends in the results
		from  int    // where the results begin in it; negative counts from the end
		want  string
	}{
		{openai.ChatCompletions, "messages", 3, `[
			{"role": "tool", "tool_call_id": "call_1", "content": "screenshot 2x1"},
			{"role": "tool", "tool_call_id": "call_2", "content": ""},
			{"role": "user", "content": [
				{"type": "text", "text": "[the image below is the result of call call_1 (desktop): 2x1 png]"},
				{"type": "image_url", "image_url": {"url": "` + url + `"}},
				{"type": "text", "text": "[the image below is the result of call call_2 (desktop): 2x1 png]"},
				{"type": "image_url", "image_url": {"url": "` + url + `"}}
			]}
		]`},
		{openai.Responses, "input", -2, `[
			{"type": "function_call_output", "call_id": "call_1", "output": [
				{"type": "input_text", "text": "screenshot 2x1"},
				{"type": "input_image", "image_url": "` + url + `"}
			]},
			{"type": "function_call_output", "call_id": "call_2", "output": [
				{"type": "input_image", "image_url": "` + url + `"}
			]}
		]`},
	}
	for _, tt := range tests {
		t.Run(tt.api.String(), func(t *testing.T) {
			srv := openaitest.NewServer(t, []replay.Entry{
				{Round: 1, ToolCalls: []llm.ToolCall{
					{ID: "call_1", Name: "desktop", Arguments: json.RawMessage(`{"action":"screenshot"}`)},
					{ID: "call_2", Name: "desktop", Arguments: json.RawMessage(`{"action":"zoom"}`)}}},
				{Round: 2, Text: "A terminal."},
			})
			c := &llmtest.Conversation{Provider: newProvider(t, srv.URL, openai.Config{API: tt.api}), Request: llm.Request{
				Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: "What is on the screen?"}},
				Tools:    []llm.ToolDef{{Name: "desktop", Description: "The screen."}},
			}}
			c.Round(t, llmtest.Screenshots)
			c.Round(t, nil)
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[1].Round != 2 {
				t.Fatalf("%d requests, the last at round %d; want 2, the last at round 2", len(reqs), reqs[len(reqs)-1].Round)
			}
			var body map[string]json.RawMessage
			var items []any
			if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(body[tt.field], &items); err != nil {
				t.Fatal(err)
			}
			from := tt.from
			if from < 0 {
				from += len(items)
			}
			if diff := llmtest.JSONDiff(t, tt.want, items[from:]); diff != "" {
				t.Errorf("the %s after the calls (-want +got):\n%s", tt.field, diff)
			}
		})
	}
	if note := openai.ImageNote("c", "t", llm.Image{}); !strings.HasPrefix(note, openaitest.ImageNotePrefix) {
		t.Errorf("ImageNote = %q, want it to start with openaitest.ImageNotePrefix", note)
	}
}
