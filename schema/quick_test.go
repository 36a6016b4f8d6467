package schema

import (
	"testing"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
)

var quickSchemas = []string{
	`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},"force":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`,
	`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]},"tags":{"type":"array","items":{"type":"string","minLength":1},"maxItems":3},"n":{"type":["number","null"]}}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":{"type":"string"}}},"required":["o"]}`,
}

// FuzzQuickValidator checks the quick path against santhosh-tekuri/jsonschema: it
// may only accept documents the full validator accepts.
func FuzzQuickValidator(f *testing.F) {
	docs := []string{`{"path":"a"}`, `{"path":"a","limit":5,"force":true}`, `{"path":"a","limit":0}`, `{"path":"a","limit":1.0}`,
		`{"path":"a","path":"b"}`, `{"path":"\u0041"}`, `{"mode":"a","tags":["x","y"],"n":null}`, `{"tags":["x","y","z","w"]}`,
		`{"o":{"x":1,"y":"s"}}`, `{"o":{"x":1,"y":2}}`, ` {"path":"a"} `, `{"path":"a"}x`, `{"limit":1e2,"path":""}`, `{"tags":[""]}`}
	for i := range quickSchemas {
		for _, d := range docs {
			f.Add(uint8(i), []byte(d))
		}
	}
	quick := make([]*quickValidator, len(quickSchemas))
	full := make([]*jsonschema.Schema, len(quickSchemas))
	for i, s := range quickSchemas {
		if quick[i] = newQuickValidator([]byte(s)); quick[i] == nil {
			f.Fatalf("schema %d is outside the quick subset", i)
		}
		c := jsonschema.NewCompiler()
		doc, _ := decodeValue([]byte(s))
		if err := c.AddResource("q.json", doc); err != nil {
			f.Fatal(err)
		}
		var err error
		if full[i], err = c.Compile("q.json"); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		i := int(which) % len(quickSchemas)
		if quick[i].valid(doc) {
			v, err := decodeValue(doc)
			if err == nil {
				err = full[i].Validate(v)
			}
			if err != nil {
				t.Fatalf("quick path accepted %q for schema %d, full validator says: %v", doc, i, err)
			}
		}
	})
}
