package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const fileSchema = `{"type":"object","properties":{
  "path":{"type":"string","minLength":1},
  "limit":{"type":"integer","minimum":1,"maximum":2000},
  "mode":{"type":"string","enum":["fast","slow"]},
  "tags":{"type":"array","items":{"type":"string"},"maxItems":2},
  "opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"],"additionalProperties":false}},
 "required":["path"],"additionalProperties":false}`

func TestValidate_Messages(t *testing.T) {
	s := MustCompile([]byte(fileSchema))
	tests := []struct {
		name string
		doc  string
		want []Violation
	}{
		{"valid", `{"path":"a","limit":5,"mode":"fast","tags":["x"],"opts":{"deep":true}}`, nil},
		{"missing required", `{}`, []Violation{{"", "missing property 'path'"}}},
		{"wrong type", `{"path":3}`, []Violation{{"/path", "got number, want string"}}},
		{"unknown property", `{"path":"a","pth":1}`, []Violation{{"", `unknown properties "pth" (not in the schema; remove them or check their spelling)`}}},
		{"enum", `{"path":"a","mode":"medium"}`, []Violation{{"/mode", "value must be one of 'fast', 'slow'"}}},
		{"bounds", `{"path":"","limit":0}`, []Violation{{"/limit", "must be at least 1, got 0"}, {"/path", "must be at least 1 characters long, got 0"}}},
		{"nested", `{"path":"a","tags":["x",1,"z"],"opts":{}}`, []Violation{
			{"/opts", "missing property 'deep'"}, {"/tags", "must have at most 2 items, got 3"}, {"/tags/1", "got number, want string"}}},
		{"not JSON", `{"path":`, []Violation{{"", "arguments are not valid JSON: unexpected EOF"}}},
		{"trailing data", `{"path":"a"} {}`, []Violation{{"", "arguments are not valid JSON: unexpected data after the JSON value"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkViolations(t, s, tt.doc, tt.want)
		})
	}
	err := s.Validate([]byte(`{"path":3,"extra":1}`))
	want := "invalid arguments (2 problems):\n- at the top level: unknown properties \"extra\" (not in the schema; remove them or check their spelling)\n- at /path: got number, want string"
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

func TestCompile_Errors(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 40) + `{}` + strings.Repeat(`}`, 40)
	tricky := `{"description":"` + strings.Repeat(`[{\"`, 50) + `","type":"object"}`
	tests := []struct {
		name, schema string
		opts         *CompileOptions
		want         string
	}{
		{"not JSON", `{"type":`, nil, "schema is not valid JSON"},
		{"bad keyword value", `{"type":"strng"}`, nil, "invalid schema"},
		{"remote ref", `{"$ref":"https://example.com/s.json"}`, nil, "wield never fetches schemas"},
		{"too deep", deep, nil, "nested 41 levels deep, at most 32 allowed"},
		{"too large", `{"description":"` + strings.Repeat("x", 300<<10) + `"}`, nil, "at most 262144 allowed"},
		{"custom limit", `{"properties":{"a":{"type":"string"}}}`, &CompileOptions{Limits: Limits{MaxDepth: 1}}, "nested 3 levels deep, at most 1 allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]byte(tt.schema), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := Compile([]byte(tricky), nil); err != nil {
		t.Errorf("brackets inside strings count as nesting: %v", err)
	}
	if _, err := Compile([]byte(deep), nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too deep: %v does not wrap ErrTooLarge", err)
	}
}

func TestNames(t *testing.T) {
	var n Names
	long := strings.Repeat("mcp__server__", 6) + "tool"
	long2 := strings.Repeat("mcp__server__", 6) + "tool2"
	tests := []struct{ name, want string }{
		{"read_file", "read_file"},
		{"math.factorial", "math_factorial"},
		{"mcp/github:issue", "mcp_github_issue"},
	}
	for _, tt := range tests {
		got, err := n.Add(tt.name)
		if err != nil || got != tt.want {
			t.Errorf("Add(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
		if orig, ok := n.Original(got); !ok || orig != tt.name {
			t.Errorf("Original(%q) = %q, %v; want %q", got, orig, ok, tt.name)
		}
	}
	w1, _ := n.Add(long)
	w2, _ := n.Add(long2)
	if len(w1) != MaxNameLength || len(w2) != MaxNameLength || w1 == w2 {
		t.Errorf("long names %q and %q: want distinct names of %d characters", w1, w2, MaxNameLength)
	}
	if again, _ := n.Add(long); again != w1 {
		t.Errorf("Add is not stable: %q then %q", w1, again)
	}
	if _, err := n.Add("math_factorial"); err == nil || !strings.Contains(err.Error(), `"math.factorial" and "math_factorial" both become "math_factorial"`) {
		t.Errorf("collision: %v", err)
	}
	if _, ok := n.Original("nope"); ok {
		t.Errorf("Original of an unknown name reported true")
	}
}

// TestValidate_ExactNumbers checks that bounds and values are written
// exactly in messages (they used to be rounded to six decimals, so 1e-400
// read "0.000000"), and that a number math/big cannot read is a violation
// rather than a panic inside the validator.
func TestValidate_ExactNumbers(t *testing.T) {
	tests := []struct {
		name, schema, doc string
		want              []Violation
	}{
		{"tiny minimum", `{"minimum":1e-400}`, `1e-401`, []Violation{{"", "must be at least 1e-400, got 1e-401"}}},
		{"past 2^53", `{"maximum":9007199254740992}`, `9007199254740993`, []Violation{{"", "must be at most 9007199254740992, got 9007199254740993"}}},
		{"odd integer past 2^53", `{"minimum":9007199254740993}`, `9007199254740992`, []Violation{{"", "must be at least 9007199254740993, got 9007199254740992"}}},
		{"decimal", `{"minimum":0.1}`, `0.09999999`, []Violation{{"", "must be at least 0.1, got 0.09999999"}}},
		{"exclusive", `{"exclusiveMinimum":0.3}`, `0.3`, []Violation{{"", "must be greater than 0.3, got 0.3"}}},
		{"exclusive maximum", `{"exclusiveMaximum":-2.5e-8}`, `0`, []Violation{{"", "must be less than -2.5e-8, got 0"}}},
		{"multipleOf", `{"multipleOf":0.01}`, `0.001`, []Violation{{"", "must be a multiple of 0.01, got 0.001"}}},
		{"large", `{"maximum":1.5e300}`, `1e301`, []Violation{{"", "must be at most 1.5e300, got 1e301"}}},
		{"plain and scientific", `{"minimum":0.000001}`, `1e-7`, []Violation{{"", "must be at least 0.000001, got 1e-7"}}},
		{"large integer", `{"maximum":100000000000000000000}`, `1e21`, []Violation{{"", "must be at most 100000000000000000000, got 1e21"}}},
		{"unreadable exponent", `{"type":"object","properties":{"n":{"minimum":1}}}`, `{"n":1e1000001}`,
			[]Violation{{"/n", "number 1e1000001 is out of range (its exponent is beyond what can be compared)"}}},
		{"unreadable negative exponent", `{"type":"object","properties":{"n":{"maximum":1}}}`, `{"n":-1e-1000001}`,
			[]Violation{{"/n", "number -1e-1000001 is out of range (its exponent is beyond what can be compared)"}}},
		{"unreadable in uniqueItems", `{"uniqueItems":true}`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,1e9999999]`,
			[]Violation{{"/21", "number 1e9999999 is out of range (its exponent is beyond what can be compared)"}}},
		{"unreadable long fraction", `{"maximum":1}`, "0." + strings.Repeat("0", 1_000_001) + "1",
			[]Violation{{"", "number 0.000000000000000000…0000000001 is out of range (its exponent is beyond what can be compared)"}}},
		{"unreadable but unconstrained", `{"type":"number"}`, `1e1000001`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustCompile([]byte(tt.schema))
			checkViolations(t, s, tt.doc, tt.want)
		})
	}
}

// checkViolations checks that s accepts doc when want is nil, and else
// rejects it with exactly the violations want.
func checkViolations(t *testing.T, s *Schema, doc string, want []Violation) {
	t.Helper()
	err := s.Validate([]byte(doc))
	if want == nil {
		if err != nil {
			t.Fatalf("Validate(%s) = %v, want nil", doc, err)
		}
		return
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate(%s) = %v, want a *ValidationError", doc, err)
	}
	if diff := cmp.Diff(want, ve.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}
