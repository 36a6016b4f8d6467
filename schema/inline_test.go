package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestInlineRefs(t *testing.T) {
	// bomb doubles at each level: inlined, it would visit 2^30 schemas.
	bomb := `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`
	for i := range 30 {
		if i > 0 {
			bomb += ","
		}
		next := strconv.Itoa(i + 1)
		bomb += `"d` + strconv.Itoa(i) + `":{"type":"array","items":[{"$ref":"#/$defs/d` + next + `"},{"$ref":"#/$defs/d` + next + `"}]}`
	}
	bomb += `,"d30":{"type":"string"}}}`
	tests := []struct {
		name, in, want, err string
	}{
		{name: "no references", in: `{"type":"object","properties":{"a":{"type":"string"}}}`, want: `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{name: "definitions inlined, siblings win",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/definitions/s","description":"mine"}},"definitions":{"s":{"type":"string","description":"theirs"}}}`,
			want: `{"properties":{"a":{"description":"mine","type":"string"}},"type":"object"}`},
		{name: "nested references, data left alone",
			in:   `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"array","items":{"$ref":"#/$defs/B"}},"B":{"enum":[{"$ref":"#/not/a/schema"}]}}}`,
			want: `{"properties":{"a":{"items":{"enum":[{"$ref":"#/not/a/schema"}]},"type":"array"}},"type":"object"}`},
		{name: "boolean target", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/t"}},"$defs":{"t":true}}`, want: `{"properties":{"a":true},"type":"object"}`},
		{name: "boolean target with siblings", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/f","description":"never"}},"$defs":{"f":false}}`,
			want: `{"properties":{"a":{"allOf":[false],"description":"never"}},"type":"object"}`},
		{name: "pointer escapes", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b~0c"}},"$defs":{"a/b~c":{"type":"integer"}}}`, want: `{"properties":{"a":{"type":"integer"}},"type":"object"}`},
		{name: "numbers keep their text", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number","maximum":1.50,"minimum":-1e400}}}`,
			want: `{"properties":{"a":{"maximum":1.50,"minimum":-1e400,"type":"number"}},"type":"object"}`},
		{name: "recursion keeps its references",
			in:   `{"type":"object","properties":{"l":{"$ref":"#/$defs/list"}},"$defs":{"list":{"type":"object","properties":{"next":{"$ref":"#/$defs/list"}}}}}`,
			want: `{"$defs":{"list":{"properties":{"next":{"$ref":"#/$defs/list"}},"type":"object"}},"properties":{"l":{"properties":{"next":{"$ref":"#/$defs/list"}},"type":"object"}},"type":"object"}`},
		{name: "root recursion", in: `{"type":"object","properties":{"self":{"$ref":"#"}}}`, want: `{"properties":{"self":{"$ref":"#"}},"type":"object"}`},
		{name: "anchors stay, with the definitions",
			in:   `{"type":"object","properties":{"a":{"$ref":"#s"}},"$defs":{"s":{"$anchor":"s","type":"string"}}}`,
			want: `{"$defs":{"s":{"$anchor":"s","type":"string"}},"properties":{"a":{"$ref":"#s"}},"type":"object"}`},
		{name: "property names are not keywords",
			in:   `{"type":"object","properties":{"enum":{"$ref":"#/$defs/s"},"$ref":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
			want: `{"properties":{"$ref":{"type":"string"},"enum":{"type":"string"}},"type":"object"}`},
		{name: "a reference bomb is returned unchanged", in: bomb, want: bomb},
		{name: "not JSON", in: `{"type":`, err: "inline references: unexpected EOF"},
		{name: "not an object", in: `[1]`, err: "the schema is not a JSON object"},
		{name: "remote reference", in: `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`, err: `$ref "other.json#/x" is not local to the schema`},
		{name: "dangling reference", in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/x/y"}}}`, err: `$ref "#/$defs/x/y" does not resolve`},
		{name: "reference to a value", in: `{"type":"object","properties":{"a":{"$ref":"#/type"}}}`, err: `$ref "#/type" does not point to a schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InlineRefs(json.RawMessage(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("InlineRefs(%.60s) error = %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("InlineRefs(%.60s): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("InlineRefs(%.60s) =\n%.300s\nwant\n%.300s", tt.in, got, tt.want)
			}
			if _, err := Compile(got, nil); err != nil && !strings.Contains(tt.name, "bomb") {
				t.Errorf("the result does not compile: %v", err)
			}
		})
	}
}

// FuzzInlineRefs checks InlineRefs against the compiler's own reference
// resolution: for a schema whose meaning does not depend on where a
// subschema sits (no "$id", anchors or dynamic references, and nothing but
// annotations beside a "$ref"), the inlined schema accepts exactly the
// instances the original accepts. It also checks that a result with no
// reference left is a fixed point.
func FuzzInlineRefs(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"b":{"$ref":"#/$defs/c"},"c":{"type":"string"}}}`, `{"a":"x"}`)
	f.Add(`{"properties":{"x":{"$ref":"#"}},"$defs":{"y":{"$ref":"#/$defs/y"}}}`, `{"x":{"x":1}}`)
	f.Add(`{"type":"object","allOf":[{"$ref":"#/definitions/a"}],"definitions":{"a":false}}`, `{}`)
	f.Add(`{"type":"object","properties":{"t":{"prefixItems":[{"$ref":"#/properties/t"}]}}}`, `{"t":[[[]]]}`)
	f.Add(`{"properties":{"l":{"$ref":"#/$defs/list"}},"$defs":{"list":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/list"}},"required":["v"]}}}`, `{"l":{"v":1,"next":{"next":{}}}}`)
	f.Add(`{"properties":{"enum":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`, `{"enum":3}`)
	f.Add(`{"anyOf":[{"$ref":"#/$defs/a","description":"d"},{"type":"null"}],"$defs":{"a":{"type":"number","minimum":2}}}`, `1`)
	f.Fuzz(func(t *testing.T, in, instance string) {
		out, err := InlineRefs(json.RawMessage(in))
		if err != nil {
			return
		}
		var top map[string]any
		if err := json.Unmarshal(out, &top); err != nil {
			t.Fatalf("InlineRefs(%s) = %s, not a JSON object: %v", in, out, err)
		}
		if !strings.Contains(string(out), `"$ref"`) {
			again, err := InlineRefs(out)
			if err != nil || string(again) != string(out) {
				t.Errorf("InlineRefs(%s) = %s, but InlineRefs of that = %s, %v", in, out, again, err)
			}
		}
		var v any
		if json.Unmarshal([]byte(in), &v) != nil || !positionFree(v) {
			return
		}
		orig, err := Compile([]byte(in), nil)
		if err != nil {
			return
		}
		inlined, err := Compile(out, nil)
		if err != nil {
			t.Fatalf("InlineRefs(%s) = %s, which does not compile: %v", in, out, err)
		}
		if !json.Valid([]byte(instance)) {
			return
		}
		want, got := orig.Validate([]byte(instance)), inlined.Validate([]byte(instance))
		if (want == nil) != (got == nil) {
			t.Errorf("instance %s: the schema %s says %v, inlined as %s it says %v", instance, in, want, out, got)
		}
	})
}

// positionFree reports whether the meaning of the schema v does not depend
// on where its subschemas sit, so that moving one (inlining) keeps it.
func positionFree(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch k {
			case "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$schema", "$vocabulary", "id":
				return false
			}
			if _, ok := v["$ref"]; ok {
				switch k {
				case "$ref", "description", "title", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly":
				default:
					return false
				}
			}
			if !positionFree(x) {
				return false
			}
		}
	case []any:
		for _, x := range v {
			if !positionFree(x) {
				return false
			}
		}
	}
	return true
}
