package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/schema"
)

func TestInputSchema(t *testing.T) {
	// bomb doubles at each level: inlined, it would pass every limit.
	bomb := `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`
	for i := range 30 {
		if i > 0 {
			bomb += ","
		}
		bomb += `"d` + itoa(i) + `":{"type":"array","items":[{"$ref":"#/$defs/d` + itoa(i+1) + `"},{"$ref":"#/$defs/d` + itoa(i+1) + `"}]}`
	}
	bomb += `,"d30":{"type":"string"}}}`
	tests := []struct {
		name, in, want, err string
	}{
		{name: "plain", in: `{"type":"object","properties":{"a":{"type":"string"}}}`, want: `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{name: "null", in: `null`, want: `{"type":"object"}`},
		{name: "missing type", in: `{"properties":{"a":{}}}`, want: `{"properties":{"a":{}},"type":"object"}`},
		{name: "definitions inlined, siblings win",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/definitions/s","description":"mine"}},"definitions":{"s":{"type":"string","description":"theirs"}}}`,
			want: `{"properties":{"a":{"description":"mine","type":"string"}},"type":"object"}`},
		{name: "nested references",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"array","items":{"$ref":"#/$defs/B"}},"B":{"enum":[{"$ref":"#/not/a/schema"}]}}}`,
			want: `{"properties":{"a":{"items":{"enum":[{"$ref":"#/not/a/schema"}]},"type":"array"}},"type":"object"}`},
		{name: "boolean target", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/t"}},"$defs":{"t":true}}`, want: `{"properties":{"a":true},"type":"object"}`},
		{name: "pointer escapes", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b~0c"}},"$defs":{"a/b~c":{"type":"integer"}}}`, want: `{"properties":{"a":{"type":"integer"}},"type":"object"}`},
		{name: "recursion keeps its references",
			in:   `{"type":"object","properties":{"l":{"$ref":"#/$defs/list"}},"$defs":{"list":{"type":"object","properties":{"next":{"$ref":"#/$defs/list"}}}}}`,
			want: `{"$defs":{"list":{"properties":{"next":{"$ref":"#/$defs/list"}},"type":"object"}},"properties":{"l":{"properties":{"next":{"$ref":"#/$defs/list"}},"type":"object"}},"type":"object"}`},
		{name: "root recursion", in: `{"type":"object","properties":{"self":{"$ref":"#"}}}`, want: `{"properties":{"self":{"$ref":"#"}},"type":"object"}`},
		{name: "draft-07 tuple", in: `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"string"}]}}}`,
			want: `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"items":[{"type":"string"}],"type":"array"}},"type":"object"}`},
		{name: "a reference bomb keeps its references", in: bomb, want: ""},
		{name: "not an object", in: `[1]`, err: "input schema is not a JSON object"},
		{name: "not an object schema", in: `{"type":["object","null"]}`, err: `must have "type": "object"`},
		{name: "remote reference", in: `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, err: "not local to the schema"},
		{name: "dangling reference", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/x/y"}}}`, err: `$ref "#/$defs/x/y" does not resolve`},
		{name: "reference to a value", in: `{"type":"object","properties":{"a":{"$ref":"#/type"}}}`, err: "does not point to a schema"},
		{name: "invalid keyword value", in: `{"type":"object","properties":{"a":{"minLength":-1}}}`, err: "invalid schema"},
		{name: "too deep", in: `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, 40) + `{}` + strings.Repeat(`}`, 40) + `}}`, err: "nested"},
		{name: "too large", in: `{"type":"object","description":"` + strings.Repeat("x", schema.DefaultMaxBytes) + `"}`, err: "schema exceeds limits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
				t.Fatal(err)
			}
			got, err := inputSchema(v)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("inputSchema error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("inputSchema: %v", err)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("inputSchema =\n%s\nwant\n%s", got, tt.want)
			}
			if len(got) > schema.DefaultMaxBytes {
				t.Errorf("inputSchema returned %d bytes, over the limit", len(got))
			}
			if _, err := schema.Compile(got, nil); err != nil {
				t.Errorf("the result does not compile: %v", err)
			}
		})
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func FuzzInputSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"b":{"$ref":"#/$defs/c"},"c":{"type":"string"}}}`)
	f.Add(`{"properties":{"x":{"$ref":"#"}},"$defs":{"y":{"$ref":"#/$defs/y"}}}`)
	f.Add(`{"type":"object","allOf":[{"$ref":"#/definitions/a"}],"definitions":{"a":false}}`)
	f.Add(`{"type":"object","properties":{"t":{"items":[{"$ref":"#/properties/t"}]}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		out, err := inputSchema(v)
		if err != nil {
			return
		}
		if _, err := schema.Compile(out, nil); err != nil {
			t.Errorf("inputSchema(%s) = %s, which does not compile: %v", in, out, err)
		}
		var top map[string]any
		if err := json.Unmarshal(out, &top); err != nil || top["type"] != "object" {
			t.Errorf("inputSchema(%s) = %s, not an object schema", in, out)
		}
	})
}
