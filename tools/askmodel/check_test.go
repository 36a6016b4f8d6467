package askmodel

import (
	"encoding/json"
	"testing"

	"github.com/wieldhq/wield/schema"
)

// FuzzCheck checks that whatever a model answers, check either returns
// compact JSON valid against the schema or says what is wrong.
func FuzzCheck(f *testing.F) {
	sch := schema.MustCompile([]byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`))
	for _, s := range []string{`{"n": 1}`, "```json\n{\"n\": 2}\n```", "```\n{\"n\":3}```", `{"n": "x"}`, "", "```", "no", `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc, problem := check(sch, text)
		if (doc == nil) == (problem == "") {
			t.Fatalf("check(%q) = %q, %q; want exactly one of them", text, doc, problem)
		}
		if doc != nil && (!json.Valid(doc) || sch.Validate(doc) != nil) {
			t.Fatalf("check(%q) = %q, which is not valid", text, doc)
		}
	})
}
