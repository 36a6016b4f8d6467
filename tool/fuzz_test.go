package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

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
