package askmodel_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askmodel"
)

func ExampleNew() {
	// A scripted model stands in for a provider that --model would build.
	small, _ := replay.New([]replay.Entry{{Round: 1, Text: `{"sentiment": "positive"}`, Usage: llm.Usage{InputTokens: 20, OutputTokens: 6}}})
	t := askmodel.New(askmodel.Config{
		Models: func(model string) (llm.Provider, string, error) { return small, model, nil },
		Model:  "ollama:qwen3",
	})
	args := json.RawMessage(`{"prompt": "Classify: I love it.", "json_schema": {"type": "object", "required": ["sentiment"]}}`)
	res, _ := t.Handler().Handle(context.Background(), &tool.Call{}, args)
	a := res.Data.(askmodel.Answer)
	fmt.Println(res.Success, string(a.JSON), a.Usage.InputTokens+a.Usage.OutputTokens)
	// Output: true {"sentiment":"positive"} 26
}
