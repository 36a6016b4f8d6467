package tool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/schema"
)

type outputOf struct {
	Path  string `json:"path"`
	Lines int    `json:"lines,omitempty"`
}

type outputItem struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags"`
}

type outputList struct {
	Items []outputItem `json:"items"`
	Count *int         `json:"count"`
}

func TestOutputSchema(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	tests := []struct {
		name   string
		output json.RawMessage
		err    string // empty: valid
	}{
		{name: "none"},
		{name: "inferred", output: SchemaOf[outputOf]()},
		{name: "not an object", output: json.RawMessage(`{"type":"string"}`), err: `output schema must have "type": "object"`},
		{name: "no type", output: json.RawMessage(`{"properties":{}}`), err: `output schema must have "type": "object"`},
		{name: "invalid", output: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`), err: "output schema"},
		{name: "not JSON", output: json.RawMessage(`{`), err: "output schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRaw(Spec{Name: "t", InputSchema: obj, OutputSchema: tt.output}, nopHandler)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("NewRaw = %v, want error %q", err, tt.err)
			}
		})
	}
}

func TestSchemaOf(t *testing.T) {
	var s struct {
		Type                 string         `json:"type"`
		Properties           map[string]any `json:"properties"`
		Required             []string       `json:"required"`
		AdditionalProperties any            `json:"additionalProperties"`
	}
	if err := json.Unmarshal(SchemaOf[outputOf](), &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || len(s.Properties) != 2 || len(s.Required) != 1 || s.Required[0] != "path" {
		t.Errorf("SchemaOf = %+v, want an object with path required and lines optional", s)
	}
}

// TestSchemaOfAcceptsWhatJSONWrites validates what encoding/json writes for
// values of a type against SchemaOf the type: nil slices and maps are null.
func TestSchemaOfAcceptsWhatJSONWrites(t *testing.T) {
	s, err := schema.Compile(SchemaOf[outputList](), nil)
	if err != nil {
		t.Fatal(err)
	}
	two := 2
	tests := []struct {
		name  string
		value any
		valid bool
	}{
		{"zero", outputList{}, true},
		{"full", outputList{Items: []outputItem{{Name: "a", Tags: map[string]string{"k": "v"}}, {Name: "b"}}, Count: &two}, true},
		{"empty slice", outputList{Items: []outputItem{}}, true},
		{"wrong type", map[string]any{"items": "x", "count": nil}, false},
		{"unknown property", map[string]any{"items": nil, "count": nil, "extra": 1}, false},
		{"missing property", map[string]any{"items": nil}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(b); (err == nil) != tt.valid {
				t.Errorf("Validate(%s) = %v, want valid %v", b, err, tt.valid)
			}
		})
	}
}

func TestRegistry_ExportOutputSchema(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	with, err := NewRaw(Spec{Name: "with", InputSchema: obj, OutputSchema: SchemaOf[outputOf]()}, nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	without, err := NewRaw(Spec{Name: "without", InputSchema: obj}, nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := NewRegistry(with, without)
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err := reg.Export("mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || !strings.Contains(string(tools[0].OutputSchema), `"path"`) || tools[1].OutputSchema != nil {
		t.Errorf("exported = %s, want an outputSchema for with only", raw)
	}
}

// withRaw has a field of any JSON, as ask_model's answer and a subagent's
// report data do.
type withRaw struct {
	Name string          `json:"name"`
	Data json.RawMessage `json:"data,omitempty"`
}

// TestRawMessageIsAnyJSON: a json.RawMessage field's schema, in inputs
// and outputs, accepts every JSON value it can hold, where jsonschema-go
// alone says "array of integers" (its bytes): a model then sends bytes,
// and a client that checks results against the output schema refuses
// them.
func TestRawMessageIsAnyJSON(t *testing.T) {
	in, err := InferSchema[withRaw]()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []struct {
		name string
		raw  json.RawMessage
	}{{"output", SchemaOf[withRaw]()}, {"input", in}} {
		s, err := schema.Compile(sc.raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range []string{`{"sentiment":"positive"}`, `[1,"two"]`, `42`, `"text"`, `true`, `null`} {
			b, err := json.Marshal(withRaw{Name: "n", Data: json.RawMessage(data)})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(b); err != nil {
				t.Errorf("%s schema %s refuses %s: %v", sc.name, sc.raw, b, err)
			}
		}
		if err := s.Validate([]byte(`{"data":{}}`)); err == nil {
			t.Errorf("%s schema accepts an object without its required name", sc.name)
		}
		// MCP wants every property's schema to be an object: an empty
		// schema would be written as true.
		var doc struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(sc.raw, &doc); err != nil || !strings.HasPrefix(string(doc.Properties["data"]), "{") {
			t.Errorf("%s schema's data property is %s, want a JSON object (%v)", sc.name, doc.Properties["data"], err)
		}
	}
}
