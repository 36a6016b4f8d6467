package tooltest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

type input struct {
	Text string `json:"text"`
}

func TestCheck(t *testing.T) {
	good := tool.New(tool.Spec{Name: "good", Description: "Say text.", Annotations: tool.Annotations{ReadOnly: true}},
		func(_ context.Context, _ *tool.Call, in input) (tool.Result, error) {
			return tool.Text(strings.Repeat(in.Text, 10_000)), nil
		})
	if err := Check(t.Context(), good, Cases{Valid: []string{`{"text":"a"}`}, Invalid: []string{`{}`}, Run: true}); err != nil {
		t.Errorf("Check(good) = %v, want nil", err)
	}

	bad, err := tool.NewRaw(tool.Spec{Name: "bad", Description: "lower case", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: tool.Annotations{ReadOnly: true, Destructive: true}},
		tool.HandlerFunc(func(context.Context, *tool.Call, json.RawMessage) (tool.Result, error) { return tool.Result{}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	err = Check(t.Context(), bad, Cases{Valid: []string{`{}`}, Invalid: []string{`{"x":1}`}, Run: true})
	for _, want := range []string{"should start with a capital letter", "both read-only and destructive", `invalid case {"x":1} accepted`, "failed without saying why"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(bad) = %v\nwant it to report %q", err, want)
		}
	}

	// Data must match the declared output schema.
	type out struct {
		Items []string `json:"items"`
	}
	declared := tool.New(tool.Spec{Name: "declared", Description: "Lists items.", OutputSchema: tool.SchemaOf[out]()},
		func(_ context.Context, _ *tool.Call, in input) (tool.Result, error) {
			if in.Text == "" {
				return tool.Result{Success: true, Output: "items", Data: map[string]int{"count": 0}}, nil
			}
			return tool.Result{Success: true, Output: "items", Data: out{Items: []string{in.Text}}}, nil
		})
	err = Check(t.Context(), declared, Cases{Valid: []string{`{"text":"a"}`, `{"text":""}`}, Run: true})
	if err == nil || !strings.Contains(err.Error(), `call {"text":""}: data {"count":0} does not match the output schema`) || strings.Contains(err.Error(), `"a"`) {
		t.Errorf("Check(declared) = %v, want the other data reported", err)
	}
}
