package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/schema"
)

var quickSchemas = []string{
	`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100},"force":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`,
	`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]},"tags":{"type":"array","items":{"type":"string","minLength":1},"maxItems":3},"n":{"type":["number","null"]}}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":{"type":"string"}}},"required":["o"]}`,
}

// FuzzQuickValidator checks the quick path against the full validator: it
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
	full := make([]*schema.Schema, len(quickSchemas))
	for i, s := range quickSchemas {
		if quick[i] = newQuickValidator([]byte(s)); quick[i] == nil {
			f.Fatalf("schema %d is outside the quick subset", i)
		}
		full[i] = schema.MustCompile([]byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte) {
		i := int(which) % len(quickSchemas)
		if quick[i].valid(doc) {
			if err := full[i].Validate(doc); err != nil {
				t.Fatalf("quick path accepted %q for schema %d, full validator says: %v", doc, i, err)
			}
		}
	})
}

// FuzzRunnerArguments feeds arbitrary arguments through validation and
// decoding: the runner must always return one result and never panic.
func FuzzRunnerArguments(f *testing.F) {
	for _, d := range []string{`{"path":"a"}`, `{}`, ``, `null`, `{"path":1}`, `[`, `{"path":"a","limit":99999999999999999999}`} {
		f.Add([]byte(d))
	}
	got := New(Spec{Name: "read", Description: "d"}, func(_ context.Context, _ *Call, in pathInput) (Result, error) { return Text(in.Path), nil })
	reg, _ := NewRegistry(got)
	r := NewRunner(reg, &RunnerOptions{Inline: true})
	f.Fuzz(func(t *testing.T, args []byte) {
		res, err := r.Call(context.Background(), Call{}, Request{Name: "read", Arguments: args})
		if err != nil {
			t.Fatalf("fault for %q: %v", args, err)
		}
		if !res.Success && res.Error == "" {
			t.Fatalf("failed result without a message for %q", args)
		}
		if res.Success {
			var in pathInput
			if json.Unmarshal(args, &in) != nil || res.Output != in.Path {
				t.Fatalf("accepted %q but output %q", args, res.Output)
			}
		}
	})
}

// FuzzLoadDeclared parses arbitrary declared-tool files: an error or tools,
// never a panic, and every returned tool has a compiled schema.
func FuzzLoadDeclared(f *testing.F) {
	f.Add([]byte(wordCount))
	f.Add([]byte(`[` + wordCount + `,{}]`))
	f.Add([]byte(`{"name":"x","input_schema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}},"command":["true"]}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "tools.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tools, _ := LoadDeclared(p)
		for _, tl := range tools {
			if tl.Schema() == nil || tl.Name() == "" {
				t.Fatalf("tool %q without schema", tl.Name())
			}
		}
	})
}
