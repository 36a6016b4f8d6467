package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValidate compiles and validates arbitrary bytes: an error or nil,
// never a panic, and a ValidationError always lists a violation.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(fileSchema), []byte(`{"path":"a"}`))
	f.Add([]byte(`{"$ref":"#/$defs/a","$defs":{"a":{"type":"integer","minimum":3}}}`), []byte(`2`))
	f.Add([]byte(`true`), []byte(`null`))
	f.Add([]byte(`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`), []byte(`{"xa":1}`))
	f.Fuzz(func(t *testing.T, schemaDoc, doc []byte) {
		s, err := Compile(schemaDoc, nil)
		if err != nil {
			return
		}
		err = s.Validate(doc)
		if ve, ok := err.(*ValidationError); ok && (len(ve.Violations) == 0 || ve.Error() == "") {
			t.Fatalf("empty validation error for %q against %q", doc, schemaDoc)
		}
	})
}

// FuzzDialects exports arbitrary schemas: every dialect errors or returns
// valid JSON, and Gemini's output has no $ref.
func FuzzDialects(f *testing.F) {
	f.Add([]byte(fileSchema))
	f.Add([]byte(`{"type":"object","properties":{"r":{"$ref":"#/$defs/r"}},"$defs":{"r":{"type":"object","properties":{"r":{"$ref":"#/$defs/r"}}}}}`))
	f.Add([]byte(`{"type":["object","null"],"allOf":[{"properties":{"a":{"const":1}}}],"anyOf":[{"type":"null"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, strict := range []bool{false, true} {
			if out, _, err := OpenAI(raw, strict); err == nil && !json.Valid(out) {
				t.Fatalf("OpenAI(%q) = invalid JSON %q", raw, out)
			}
		}
		if out, err := Anthropic(raw); err == nil && !json.Valid(out) {
			t.Fatalf("Anthropic invalid JSON")
		}
		if out, err := MCP(raw); err == nil && !json.Valid(out) {
			t.Fatalf("MCP invalid JSON")
		}
		if out, err := Gemini(raw); err == nil {
			if !json.Valid(out) || strings.Contains(string(out), `"$ref":`) {
				t.Fatalf("Gemini(%q) = %q", raw, out)
			}
		}
	})
}
