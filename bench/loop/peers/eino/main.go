// Command eino is the loop benchmark's driver for CloudWeGo Eino: its ReAct
// agent (flow/agent/react) with the OpenAI chat model of eino-ext against
// the scripted server and one small tool.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// AddInput is the benchmark tool's input.
type AddInput struct {
	A int `json:"a" jsonschema:"description=the first addend"`
	B int `json:"b" jsonschema:"description=the second addend"`
}

func main() {
	url := flag.String("url", "", "the scripted server's base URL")
	rounds := flag.Int("rounds", 10, "tool rounds in the run")
	flag.Parse()
	ctx := context.Background()

	add, err := utils.InferTool("add", "Add two integers.", func(_ context.Context, in AddInput) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	model, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: *url, APIKey: "none", Model: fmt.Sprintf("loop-%d", *rounds)})
	if err != nil {
		log.Fatal(err)
	}
	// A ReAct round is two graph steps (model, tools), plus the last model
	// call and the graph's own start and end.
	steps := 2*(*rounds) + 10
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: model,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{add}},
		MaxStep:          steps,
	})
	if err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	out, err := a.Generate(ctx, []*schema.Message{schema.UserMessage("Add numbers until told to stop.")},
		agent.WithComposeOptions(compose.WithRuntimeMaxSteps(steps)))
	if err != nil {
		log.Fatal(err)
	}
	if out.Content != "done" {
		log.Fatalf("the run ended with %q, want \"done\"", out.Content)
	}
	fmt.Printf("rounds=%d seconds=%.6f\n", *rounds, time.Since(start).Seconds())
}
