package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var nopHandler = HandlerFunc(func(context.Context, *Call, json.RawMessage) (Result, error) { return Text(""), nil })

func TestNewRaw_Errors(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	tests := []struct {
		name    string
		spec    Spec
		h       Handler
		wantErr string
	}{
		{"empty name", Spec{InputSchema: obj}, nopHandler, `invalid tool name ""`},
		{"bad characters", Spec{Name: "read file", InputSchema: obj}, nopHandler, `invalid tool name "read file"`},
		{"too long", Spec{Name: strings.Repeat("a", 129), InputSchema: obj}, nopHandler, "invalid tool name"},
		{"nil handler", Spec{Name: "t", InputSchema: obj}, nil, "tool t: nil handler"},
		{"no schema", Spec{Name: "t"}, nopHandler, "tool t: missing input schema"},
		{"not JSON", Spec{Name: "t", InputSchema: json.RawMessage(`{`)}, nopHandler, "tool t: schema is not valid JSON"},
		{"invalid schema", Spec{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"strng"}}}`)}, nopHandler, "tool t: invalid schema"},
		{"not an object schema", Spec{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}, nopHandler, `must have "type": "object"`},
		{"too deep", Spec{Name: "t", InputSchema: json.RawMessage(strings.Repeat(`{"items":`, 40) + `{}` + strings.Repeat(`}`, 40))}, nopHandler, "schema exceeds limits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRaw(tt.spec, tt.h)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NewRaw error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

type inferInput struct {
	Mode    string   `json:"mode" jsonschema:"how to run" enum:"fast,slow" default:"fast"`
	Count   int      `json:"count,omitempty" default:"3" enum:"1,3,5"`
	Tags    []string `json:"tags,omitempty"`
	Nested  *inner   `json:"nested,omitempty"`
	Skipped string   `json:"-"`
}

type inner struct {
	Level string `json:"level" enum:"debug,info"`
}

func TestInferSchema(t *testing.T) {
	raw, err := InferSchema[inferInput]()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	mode := props["mode"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"type": "string", "description": "how to run", "enum": []any{"fast", "slow"}, "default": "fast"}, mode); diff != "" {
		t.Errorf("mode (-want +got):\n%s", diff)
	}
	count := props["count"].(map[string]any)
	if diff := cmp.Diff([]any{1.0, 3.0, 5.0}, count["enum"]); diff != "" || count["default"] != 3.0 {
		t.Errorf("count = %v, want numeric enum and default 3", count)
	}
	if diff := cmp.Diff([]any{"mode"}, got["required"]); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if got["additionalProperties"] != false {
		t.Errorf("additionalProperties = %v, want false", got["additionalProperties"])
	}
	if _, ok := props["Skipped"]; ok {
		t.Errorf(`a json:"-" field is in the schema`)
	}
	level := props["nested"].(map[string]any)["properties"].(map[string]any)["level"].(map[string]any)
	if diff := cmp.Diff([]any{"debug", "info"}, level["enum"]); diff != "" {
		t.Errorf("nested enum (-want +got):\n%s", diff)
	}
	if _, ok := got["$schema"]; ok {
		t.Errorf("inferred schema has $schema; providers reject it")
	}

	tl := New(Spec{Name: "infer", Description: "d"}, func(context.Context, *Call, inferInput) (Result, error) { return Text("ok"), nil })
	if err := tl.Schema().Validate([]byte(`{"mode":"medium"}`)); err == nil || !strings.Contains(err.Error(), "/mode") {
		t.Errorf("enum not enforced: Validate = %v", err)
	}
}

func TestNew_PanicsOnNonObjectInput(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "not a struct") {
			t.Errorf("panic = %v, want one saying the input is not a struct", p)
		}
	}()
	New(Spec{Name: "s", Description: "d"}, func(context.Context, *Call, string) (Result, error) { return Text(""), nil })
}

func TestRegistry(t *testing.T) {
	mk := func(name string, hidden bool) *Tool {
		t, err := NewRaw(Spec{Name: name, Description: name, Hidden: hidden, InputSchema: json.RawMessage(`{"type":"object"}`)}, nopHandler)
		if err != nil {
			panic(err)
		}
		return t
	}
	reg, err := NewRegistry(mk("read_file", false), mk("write_file", false), mk("mcp__gh__issue", false), mk("mcp__gh__pr", false), mk("secret", true))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(mk("read_file", false)); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate Register = %v, want an error", err)
	}
	names := func(ts []*Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name())
		}
		return out
	}
	if diff := cmp.Diff([]string{"mcp__gh__issue", "mcp__gh__pr", "read_file", "write_file"}, names(reg.Visible())); diff != "" {
		t.Errorf("Visible (-want +got):\n%s", diff)
	}
	if len(reg.Tools()) != 5 {
		t.Errorf("Tools has %d, want 5 with the hidden one", len(reg.Tools()))
	}

	lookups := []struct{ name, want string }{
		{"read_fil", "tool read_fil not found; did you mean read_file?"},
		{"Read_File", "tool Read_File not found; did you mean read_file?"},
		{"file", "tool file not found; did you mean read_file or write_file?"},
		{"zzzzzzzz", "tool zzzzzzzz not found"},
	}
	for _, l := range lookups {
		_, err := reg.Lookup(l.name)
		if err == nil || err.Error() != l.want || !errors.Is(err, ErrNotFound) {
			t.Errorf("Lookup(%q) = %v, want %q wrapping ErrNotFound", l.name, err, l.want)
		}
	}

	f, err := reg.Filter([]string{"read_file", "mcp__gh__*"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"mcp__gh__issue", "mcp__gh__pr", "read_file"}, names(f.Tools())); diff != "" {
		t.Errorf("Filter (-want +got):\n%s", diff)
	}
	if _, err := reg.Filter([]string{"read_file", "raed_file"}); err == nil || !strings.Contains(err.Error(), "raed_file not found; did you mean read_file?") {
		t.Errorf("Filter with a typo = %v, want an error naming it", err)
	}
	if diff := cmp.Diff([]string{"read_file", "secret", "write_file"}, names(reg.Exclude([]string{"mcp__*"}).Tools())); diff != "" {
		t.Errorf("Exclude (-want +got):\n%s", diff)
	}
	if len(reg.Tools()) != 5 {
		t.Errorf("Filter or Exclude changed the original registry")
	}
}

func TestRegistry_Resolve(t *testing.T) {
	mk := func(name string, aliases ...string) *Tool {
		t, err := NewRaw(Spec{Name: name, Aliases: aliases, Effect: EffectRead, InputSchema: json.RawMessage(`{"type":"object"}`)}, nopHandler)
		if err != nil {
			panic(err)
		}
		return t
	}
	reg, err := NewRegistry(mk("run_shell_command", "Bash"), mk("replace", "Edit", "MultiEdit"), mk("Edit"), mk("zz_edit", "MultiEdit"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"run_shell_command", "run_shell_command", true},
		{"Bash", "run_shell_command", true},
		{"Edit", "Edit", true},         // a name before an alias
		{"MultiEdit", "replace", true}, // the first tool by name
		{"bash", "", false},            // names are exact
		{"nosuch", "", false},
	}
	for _, tt := range tests {
		got, ok := reg.Resolve(tt.name)
		if ok != tt.ok || ok && got.Name() != tt.want {
			t.Errorf("Resolve(%q) = %v, %v, want %s, %v", tt.name, got, ok, tt.want, tt.ok)
		}
		spec, ok := reg.Spec(tt.name)
		if ok != tt.ok || spec.Name != tt.want {
			t.Errorf("Spec(%q) = %q, %v, want %q, %v", tt.name, spec.Name, ok, tt.want, tt.ok)
		}
	}
}

func TestRegistry_Export(t *testing.T) {
	dotted, err := NewRaw(Spec{Name: "math.factorial", Description: "n!", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Annotations: Annotations{ReadOnly: true}}, nopHandler)
	if err != nil {
		t.Fatal(err)
	}
	reg := mustRegistry(t, dotted)
	tests := []struct {
		format Format
		want   []string
	}{
		{FormatJSON, []string{`"name":"math.factorial"`, `"input_schema":{`, `"readOnly":true`}},
		{"openai", []string{`"type":"function"`, `"name":"math_factorial"`, `"parameters":{`}},
		{"anthropic", []string{`"name":"math_factorial"`, `"input_schema":{`}},
		{"gemini", []string{`[{"functionDeclarations":[{`, `"name":"math_factorial"`, `"parameters":{`}},
		{"mcp", []string{`"name":"math.factorial"`, `"inputSchema":{`, `"readOnlyHint":true`, `"destructiveHint":false`, `"openWorldHint":false`}},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			out, names, err := reg.Export(tt.format, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("export %s = %s\nwant it to contain %s", tt.format, out, w)
				}
			}
			if tt.format == "openai" {
				if orig, ok := names.Original("math_factorial"); !ok || orig != "math.factorial" {
					t.Errorf("Original(math_factorial) = %q, %v; want math.factorial", orig, ok)
				}
			}
		})
	}
	if _, _, err := reg.Export("yaml", nil); err == nil || !strings.Contains(err.Error(), `unknown format "yaml"`) {
		t.Errorf("Export(yaml) = %v, want an unknown-format error", err)
	}
	empty, _, err := (&Registry{}).Export("openai", nil)
	if err != nil || string(empty) != "[]" {
		t.Errorf("empty export = %s, %v; want []", empty, err)
	}
}
