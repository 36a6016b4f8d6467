package agent_test

import (
	"fmt"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
)

// A prompt keeps the newest pictures; older ones become a note that names
// their call.
func ExampleKeepImages() {
	shot := llm.Image{MIMEType: "image/png", Width: 1280, Height: 800, Data: []byte("...")}
	msgs := []llm.Message{
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "desktop", Content: "clicked", Images: []llm.Image{shot}},
		{Role: llm.RoleTool, ToolCallID: "c2", ToolName: "desktop", Content: "typed", Images: []llm.Image{shot}},
	}
	for _, m := range agent.KeepImages(msgs, 1) {
		fmt.Printf("%s: %d image(s)\n%s\n", m.ToolCallID, len(m.Images), m.Content)
	}
	// Output:
	// c1: 0 image(s)
	// clicked
	// [image from call c1 omitted: 1280x800 png; call desktop again to see it]
	// c2: 1 image(s)
	// typed
}
