package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/wieldhq/wield/tool"
)

type AddInput struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

func add(_ context.Context, _ *tool.Call, in AddInput) (tool.Result, error) {
	return tool.Text(strconv.Itoa(in.A + in.B)), nil
}

func ExampleNew() {
	adder := tool.New(tool.Spec{Name: "add", Description: "Add two integers."}, add)
	reg, _ := tool.NewRegistry(adder)
	runner := tool.NewRunner(reg, nil)
	res, _ := runner.Call(context.Background(), tool.Call{}, tool.Request{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	fmt.Println(res.Success, res.Output)
	// Output: true 5
}

func ExampleRunner_Run() {
	adder := tool.New(tool.Spec{Name: "add", Description: "Add two integers."}, add)
	reg, _ := tool.NewRegistry(adder)
	results, _ := tool.NewRunner(reg, nil).Run(context.Background(), tool.Call{}, []tool.Request{
		{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)},
		{Name: "add", Arguments: json.RawMessage(`{"a":"one"}`)},
		{Name: "ad", Arguments: json.RawMessage(`{}`)},
	})
	for _, r := range results {
		fmt.Println(r.ForModel())
	}
	// Output:
	// 3
	// Error: invalid arguments (2 problems):
	// - at the top level: missing property 'b'
	// - at /a: got string, want integer
	// Fix the arguments to match the tool's input schema and call it again.
	// Error: tool ad not found; did you mean add?
}

func ExampleRegistry_Export() {
	adder := tool.New(tool.Spec{Name: "math.add", Description: "Add two integers."}, add)
	reg, _ := tool.NewRegistry(adder)
	out, names, _ := reg.Export("openai", nil)
	fmt.Println(string(out))
	orig, _ := names.Original("math_add")
	fmt.Println(orig)
	// Output:
	// [{"function":{"name":"math_add","description":"Add two integers.","parameters":{"additionalProperties":false,"properties":{"a":{"description":"the first addend","type":"integer"},"b":{"description":"the second addend","type":"integer"}},"required":["a","b"],"type":"object"}},"type":"function"}]
	// math.add
}

func Example_declaredTool() {
	dir, _ := os.MkdirTemp("", "declared")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "tools.json")
	_ = os.WriteFile(file, []byte(`{"name": "shout", "description": "Upper-case the text.",
	  "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
	  "command": ["sh", "-c", "tr a-z A-Z"]}`), 0o644)
	tools, err := tool.LoadDeclared(file)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, _ := tool.NewRegistry(tools...)
	res, _ := tool.NewRunner(reg, nil).Call(context.Background(), tool.Call{}, tool.Request{Name: "shout", Arguments: json.RawMessage(`{"text":"hi"}`)})
	fmt.Println(res.Output)
	// Output: {"TEXT":"HI"}
}
