package otel_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
)

// Example traces a scripted run that calls one tool: the spans arrive as
// they end, the children before their parent.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tel, err := otel.New(otel.Config{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
		ProviderName:   "openai",
	})
	if err != nil {
		log.Fatal(err)
	}
	upper := tool.New(tool.Spec{Name: "upper", Description: "Upper-case a text."},
		func(_ context.Context, _ *tool.Call, in struct {
			Text string `json:"text"`
		}) (tool.Result, error) {
			return tool.Result{Success: true, Output: strings.ToUpper(in.Text)}, nil
		})
	reg, _ := tool.NewRegistry(upper)
	script, _ := replay.Parse([]byte(`{"round": 1, "tool_calls": [{"id": "c1", "name": "upper", "arguments": {"text": "hi"}}]}
{"round": 2, "text": "HI"}`))
	model, _ := replay.New(script)
	a, _ := agent.New(agent.Config{Provider: model, Model: "gpt-5", Tools: reg, Name: "demo", Telemetry: tel})
	if _, err := a.Run(context.Background(), agent.NewMemorySession("s1"), "shout hi"); err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.Ended() {
		fmt.Println(s.Name())
	}
	// Output:
	// chat gpt-5
	// execute_tool upper
	// chat gpt-5
	// invoke_agent demo
}
