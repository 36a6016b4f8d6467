package schema_test

import (
	"fmt"

	"github.com/wieldhq/wield/schema"
)

func ExampleSchema_Validate() {
	s := schema.MustCompile([]byte(`{"type":"object",
		"properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1}},
		"required":["path"],"additionalProperties":false}`))
	fmt.Println(s.Validate([]byte(`{"limit":0,"pth":"a.go"}`)))
	// Output:
	// invalid arguments (3 problems):
	// - at the top level: missing property 'path'
	// - at the top level: unknown properties "pth" (not in the schema; remove them or check their spelling)
	// - at /limit: must be at least 1, got 0
}

func ExampleNames() {
	var names schema.Names
	wire, _ := names.Add("math.factorial")
	orig, _ := names.Original(wire)
	fmt.Println(wire, orig)
	// Output: math_factorial math.factorial
}
