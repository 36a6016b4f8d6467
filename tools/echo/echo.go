// Package echo provides the echo tool, which returns its input. It lets
// anyone check a client connection to wield end to end.
package echo

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/tool"
)

//go:embed echo.md
var description string

// Input is the echo tool's argument object.
type Input struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

// Output is the Data of the echo tool's results.
type Output struct {
	Text string `json:"text"`
}

// New returns the echo tool. It is read-only and parallel-safe.
func New() *tool.Tool {
	return tool.New(tool.Spec{
		Name:         "echo",
		Effect:       tool.EffectRead,
		Description:  description,
		OutputSchema: tool.SchemaOf[Output](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, echo)
}

func echo(_ context.Context, _ *tool.Call, in Input) (tool.Result, error) {
	return tool.Result{Success: true, Output: in.Text, Data: Output(in)}, nil
}
