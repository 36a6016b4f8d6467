package agent_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/tool"
)

// UpperInput is the argument of the example's tool.
type UpperInput struct {
	Text string `json:"text" jsonschema:"the text to upper-case"`
}

// Example runs the loop with a scripted model: the model calls a tool in
// round 1 and answers with its result in round 2. The session is an
// in-memory one; session.Store journals a run the same way on disk.
func Example() {
	upper := tool.New(tool.Spec{Name: "upper", Description: "Upper-case a text."},
		func(_ context.Context, _ *tool.Call, in UpperInput) (tool.Result, error) {
			return tool.Result{Success: true, Output: strings.ToUpper(in.Text)}, nil
		})
	reg, err := tool.NewRegistry(upper)
	if err != nil {
		log.Fatal(err)
	}
	script, err := replay.Parse([]byte(`{"round": 1, "tool_calls": [{"id": "c1", "name": "upper", "arguments": {"text": "hello"}}]}
{"round": 2, "text": "The tool says HELLO."}
`))
	if err != nil {
		log.Fatal(err)
	}
	model, err := replay.New(script)
	if err != nil {
		log.Fatal(err)
	}
	a, err := agent.New(agent.Config{
		Provider: model,
		Tools:    reg,
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventToolFinished {
				fmt.Printf("tool %s: %s\n", e.Call.Tool, e.Call.Result.Output)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	out, err := a.Run(context.Background(), agent.NewMemorySession("demo"), "shout hello")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Reason, out.Text)
	// Output:
	// tool upper: HELLO
	// answer The tool says HELLO.
}
