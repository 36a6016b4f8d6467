// Command genkit is the loop benchmark's driver for Firebase Genkit (Go):
// genkit.Generate with a tool and the compat_oai plugin's OpenAI-compatible
// model against the scripted server.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
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

	oai := &compat_oai.OpenAICompatible{Provider: "loop", APIKey: "none", BaseURL: *url}
	g := genkit.Init(ctx, genkit.WithPlugins(oai))
	model := oai.DefineModel("loop", fmt.Sprintf("loop-%d", *rounds), ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true}})
	add := genkit.DefineTool(g, "add", "Add two integers.", func(_ *ai.ToolContext, in AddInput) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	})
	start := time.Now()
	out, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithTools(add),
		ai.WithPrompt("Add numbers until told to stop."), ai.WithMaxTurns(*rounds+1))
	if err != nil {
		log.Fatal(err)
	}
	if out.Text() != "done" {
		log.Fatalf("the run ended with %q, want \"done\"", out.Text())
	}
	fmt.Printf("rounds=%d seconds=%.6f\n", *rounds, time.Since(start).Seconds())
}
