package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestSchemaOfRemembered checks that SchemaOf, which remembers what it
// inferred for each type, hands every caller a copy of its own.
func TestSchemaOfRemembered(t *testing.T) {
	first := SchemaOf[outputOf]()
	want := bytes.Clone(first)
	clear(first) // a caller that writes into its copy
	if again := SchemaOf[outputOf](); !bytes.Equal(again, want) {
		t.Errorf("SchemaOf after a caller changed its copy = %s, want %s", again, want)
	}
}

// TestNewOutputSchemaRemembered checks that tool.New still refuses an
// invalid output schema the second time it sees it, when the verdict
// comes from what it remembered.
func TestNewOutputSchemaRemembered(t *testing.T) {
	type in struct{}
	fn := func(context.Context, *Call, in) (Result, error) { return Text(""), nil }
	bad := json.RawMessage(`{"type":"object","properties":{"x":{"type":"remembered-nonsense"}}}`)
	for i := range 2 {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, "output schema") {
					t.Errorf("New with an invalid output schema, time %d: panic %v, want one about the output schema", i+1, r)
				}
			}()
			New(Spec{Name: "t", OutputSchema: bad}, fn)
		}()
	}
	for i := range 2 {
		if tl := New(Spec{Name: "t", OutputSchema: SchemaOf[outputOf]()}, fn); tl == nil {
			t.Fatalf("New with a valid output schema, time %d: nil tool", i+1)
		}
	}
}
