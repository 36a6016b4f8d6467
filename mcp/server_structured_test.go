package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/schema"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/echo"
)

// TestStructuredContent checks what a tools/call result carries besides
// its text: a tool that declares an output schema lists it, and its
// successes carry structured content that the schema accepts, repeated as
// JSON text; its failures carry none. A tool without a schema never sends
// structured content on success, and on failure sends the violations of
// invalid arguments.
func TestStructuredContent(t *testing.T) {
	plain := tool.New(tool.Spec{Name: "plain", Description: "returns data without declaring it"},
		func(context.Context, *tool.Call, struct {
			Fail bool `json:"fail,omitempty"`
		}) (tool.Result, error) {
			return tool.Result{Success: true, Output: "plain", Data: map[string]int{"n": 1}}, nil
		})
	fails := tool.New(tool.Spec{Name: "fails", Description: "declares its data and fails", OutputSchema: tool.SchemaOf[echo.Output]()},
		func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
			return tool.Result{Error: "broken", Data: map[string]int{"code": 3}}, nil
		})
	reg, err := tool.NewRegistry(echo.New(), plain, fails)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(reg, &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*schema.Schema{}
	for _, lt := range list.Tools {
		if lt.OutputSchema == nil {
			continue
		}
		raw, _ := json.Marshal(lt.OutputSchema)
		if schemas[lt.Name], err = schema.Compile(raw, nil); err != nil {
			t.Fatalf("%s: output schema %s: %v", lt.Name, raw, err)
		}
	}
	if schemas["echo"] == nil || schemas["fails"] == nil || schemas["plain"] != nil {
		t.Fatalf("output schemas listed for %v, want echo and fails", schemas)
	}
	tests := []struct {
		name, tool string
		args       any
		isError    bool
		structured string // the structured content, as JSON; empty means none
	}{
		{"declared success", "echo", map[string]any{"text": "hi"}, false, `{"text":"hi"}`},
		{"declared, invalid arguments", "echo", map[string]any{"text": 1}, true, ""},
		{"declared failure", "fails", map[string]any{}, true, ""},
		{"undeclared success", "plain", map[string]any{}, false, ""},
		{"undeclared, invalid arguments", "plain", map[string]any{"fail": "yes"}, true, `violations`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError {
				t.Fatalf("isError = %v: %s", res.IsError, textOf(res))
			}
			got, _ := json.Marshal(res.StructuredContent)
			switch {
			case tt.structured == "":
				if res.StructuredContent != nil {
					t.Errorf("structuredContent = %s, want none", got)
				}
				if len(res.Content) != 1 {
					t.Errorf("content has %d blocks, want the text only", len(res.Content))
				}
			case tt.structured == "violations":
				var v struct {
					Violations []any `json:"violations"`
				}
				if json.Unmarshal(got, &v) != nil || len(v.Violations) == 0 {
					t.Errorf("structuredContent = %s, want the violations", got)
				}
			default:
				if string(got) != tt.structured {
					t.Errorf("structuredContent = %s, want %s", got, tt.structured)
				}
				if err := schemas[tt.tool].Validate(got); err != nil {
					t.Errorf("structuredContent %s does not match the output schema: %v", got, err)
				}
				if len(res.Content) != 2 {
					t.Fatalf("content has %d blocks, want the text and the JSON", len(res.Content))
				}
				if tc, ok := res.Content[1].(*sdk.TextContent); !ok || tc.Text != string(got) {
					t.Errorf("second content = %#v, want the structured content as JSON text", res.Content[1])
				}
			}
		})
	}
}
