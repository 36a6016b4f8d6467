package schema

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func TestOpenAI(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		strict     bool
		wantStrict bool
		want       string
	}{
		{"non-strict drops $schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`, false, false,
			`{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"strict makes optional nullable", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"string","enum":["x","y"]}},"required":["a"]}`, true, true,
			`{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"c":{"enum":["x","y",null],"type":["string","null"]}},"required":["a","b","c"],"type":"object"}`},
		{"strict nested and arrays", `{"type":"object","properties":{"o":{"type":"object","properties":{"d":{"type":"boolean"}}},"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}},"required":["o","l"]}`, true, true,
			`{"additionalProperties":false,"properties":{"l":{"items":{"additionalProperties":false,"properties":{"x":{"type":"number"}},"required":["x"],"type":"object"},"type":"array"},"o":{"additionalProperties":false,"properties":{"d":{"type":["boolean","null"]}},"required":["d"],"type":"object"}},"required":["l","o"],"type":"object"}`},
		{"strict ref becomes anyOf with null", `{"type":"object","properties":{"r":{"$ref":"#/$defs/R"}},"$defs":{"R":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}}}`, true, true,
			`{"$defs":{"R":{"additionalProperties":false,"properties":{"v":{"type":"string"}},"required":["v"],"type":"object"}},"additionalProperties":false,"properties":{"r":{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}]}},"required":["r"],"type":"object"}`},
		{"open map falls back", `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`, true, false,
			`{"properties":{"env":{"additionalProperties":{"type":"string"},"type":"object"}},"type":"object"}`},
		{"oneOf falls back", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, true, false,
			`{"properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, strict, err := OpenAI(json.RawMessage(tt.in), tt.strict)
			if err != nil {
				t.Fatal(err)
			}
			if strict != tt.wantStrict {
				t.Errorf("isStrict = %v, want %v", strict, tt.wantStrict)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, out)); diff != "" {
				t.Errorf("OpenAI (-want +got):\n%s", diff)
			}
		})
	}
	orig := `{"type":"object","properties":{"a":{"type":"string"}}}`
	in := json.RawMessage(orig)
	if _, _, err := OpenAI(in, true); err != nil || string(in) != orig {
		t.Errorf("OpenAI changed its input")
	}
}

func TestGemini(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"refs inlined, keywords dropped",
			`{"$schema":"x","type":"object","additionalProperties":false,"properties":{"p":{"$ref":"#/$defs/P","description":"the point"}},"required":["p","ghost"],"$defs":{"P":{"type":"object","properties":{"x":{"type":"number","exclusiveMinimum":0}},"required":["x"]}}}`,
			`{"type":"object","properties":{"p":{"type":"object","description":"the point","properties":{"x":{"type":"number"}},"required":["x"]}},"required":["p"]}`},
		{"type lists and const",
			`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":["string","integer"]},"c":{"const":"only"},"d":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"a":{"type":"string","nullable":true},"b":{"anyOf":[{"type":"string"},{"type":"integer"}]},"c":{"enum":["only"]},"d":{"type":"string","nullable":true}}}`},
		{"numeric enum moves to the description, formats filtered",
			`{"type":"object","properties":{"n":{"type":"integer","enum":[1,3],"description":"count"},"u":{"type":"string","format":"uri"},"t":{"type":"string","format":"date-time"}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","description":"count (one of [1,3])"},"u":{"type":"string"},"t":{"type":"string","format":"date-time"}}}`},
		{"allOf merged, oneOf to anyOf",
			`{"type":"object","properties":{"m":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"string"}}}]},"o":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`{"type":"object","properties":{"m":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]},"o":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`},
		{"recursion is cut",
			`{"type":"object","properties":{"tree":{"$ref":"#/definitions/node"}},"definitions":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/definitions/node"}}}}}}`,
			`{"type":"object","properties":{"tree":{"type":"object","properties":{"kids":{"type":"array","items":{"type":"object","properties":{"kids":{"type":"array","items":{"type":"object","properties":{"kids":{"type":"array","items":{"type":"object","description":"(recursive structure, cut here: #/definitions/node)"}}}}}}}}}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Gemini(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, out)); diff != "" {
				t.Errorf("Gemini (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{`{"type":"object","properties":{"a":{"$ref":"https://x/y.json"}}}`, `{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`} {
		if _, err := Gemini(json.RawMessage(bad)); err == nil {
			t.Errorf("Gemini(%s) succeeded, want an error", bad)
		}
	}
}

func TestAnthropicAndMCP(t *testing.T) {
	in := json.RawMessage(`{"$schema":"x","type":"object","properties":{"a":{"type":"string"}}}`)
	a, err := Anthropic(in)
	if err != nil || strings.Contains(string(a), "$schema") {
		t.Errorf("Anthropic = %s, %v", a, err)
	}
	m, err := MCP(in)
	if err != nil || !strings.Contains(string(m), `"type":"object"`) {
		t.Errorf("MCP = %s, %v", m, err)
	}
	for _, f := range []func(json.RawMessage) (json.RawMessage, error){Anthropic, MCP} {
		if _, err := f(json.RawMessage(`{"type":"string"}`)); err == nil {
			t.Errorf("a non-object schema was accepted")
		}
		if _, err := f(json.RawMessage(`null`)); err == nil {
			t.Errorf("null was accepted")
		}
	}
}

// shape summarises what every dialect must keep: property names, required
// sets, types, enums and nested items, as path → description.
func shape(t *testing.T, s any, path string, out map[string]string) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	var types []string
	switch ty := m["type"].(type) {
	case string:
		types = []string{ty}
	case []any:
		for _, x := range ty {
			if x != "null" {
				types = append(types, x.(string))
			}
		}
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && am["type"] != nil && am["type"] != "null" {
				types = append(types, am["type"].(string))
			}
		}
	}
	sort.Strings(types)
	desc := "type=" + strings.Join(types, "|")
	if e, ok := m["enum"].([]any); ok {
		var vals []string
		for _, v := range e {
			if v != nil {
				vals = append(vals, v.(string))
			}
		}
		desc += " enum=" + strings.Join(vals, ",")
	}
	out[path] = desc
	if props, ok := m["properties"].(map[string]any); ok {
		var names []string
		for n, p := range props {
			names = append(names, n)
			shape(t, p, path+"/"+n, out)
		}
		sort.Strings(names)
		out[path+"#props"] = strings.Join(names, ",")
	}
	if req, ok := m["required"].([]any); ok {
		var names []string
		for _, r := range req {
			names = append(names, r.(string))
		}
		sort.Strings(names)
		out[path+"#required"] = strings.Join(names, ",")
	}
	if items, ok := m["items"]; ok {
		shape(t, items, path+"[]", out)
	}
}

func TestDialects_RoundTrip(t *testing.T) {
	// A representative schema without $ref (references are inlined by
	// Gemini and kept by the others; shape compares the inlined form).
	in := `{"type":"object","properties":{
	  "path":{"type":"string","description":"file"},
	  "mode":{"type":"string","enum":["a","b"]},
	  "count":{"type":"integer"},
	  "items":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"number"}},"required":["k"]}},
	  "nested":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"]}},
	 "required":["path","items"]}`
	want := map[string]string{}
	shape(t, decode(t, []byte(in)), "", want)
	exports := map[string]func() (json.RawMessage, error){
		"openai":    func() (json.RawMessage, error) { o, _, err := OpenAI(json.RawMessage(in), false); return o, err },
		"anthropic": func() (json.RawMessage, error) { return Anthropic(json.RawMessage(in)) },
		"gemini":    func() (json.RawMessage, error) { return Gemini(json.RawMessage(in)) },
		"mcp":       func() (json.RawMessage, error) { return MCP(json.RawMessage(in)) },
	}
	for name, export := range exports {
		out, err := export()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := Compile(out, nil); err != nil {
			t.Errorf("%s export does not compile again: %v", name, err)
		}
		got := map[string]string{}
		shape(t, decode(t, out), "", got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s round trip lost structure (-want +got):\n%s", name, diff)
		}
	}
	// Strict mode keeps names, types, enums and items; it requires every
	// property, so only the required sets differ.
	out, strict, err := OpenAI(json.RawMessage(in), true)
	if err != nil || !strict {
		t.Fatalf("strict: %v %v", strict, err)
	}
	got := map[string]string{}
	shape(t, decode(t, out), "", got)
	for k, v := range want {
		if strings.HasSuffix(k, "#required") {
			continue
		}
		if got[k] != v {
			t.Errorf("strict: %s = %q, want %q", k, got[k], v)
		}
	}
	if got["#required"] != "count,items,mode,nested,path" {
		t.Errorf("strict required = %q", got["#required"])
	}
	s := MustCompile(out)
	if err := s.Validate([]byte(`{"path":"a","mode":null,"count":null,"items":[],"nested":null}`)); err != nil {
		t.Errorf("strict schema rejects nulls for optional fields: %v", err)
	}
}
