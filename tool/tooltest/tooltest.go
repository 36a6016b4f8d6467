// Package tooltest checks that a tool keeps the [tool] contract, as
// testing/slogtest checks a slog.Handler. Tool authors call [Check] from a
// test:
//
//	func TestContract(t *testing.T) {
//		if err := tooltest.Check(t.Context(), fs.NewRead(cfg), tooltest.Cases{
//			Valid:   []string{`{"path":"go.mod"}`},
//			Invalid: []string{`{}`, `{"path":3}`},
//		}); err != nil {
//			t.Error(err)
//		}
//	}
package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/wieldhq/wield/schema"
	"github.com/wieldhq/wield/tool"
)

// Cases are example arguments for [Check].
type Cases struct {
	// Valid arguments must pass validation. They are run when Run is set.
	Valid []string
	// Invalid arguments must fail validation with a message.
	Invalid []string
	// Run runs the valid cases through a runner and checks their results.
	Run bool
	// Root is the workspace root for runs; nil means a temporary directory.
	Root *os.Root
}

// Check reports every way in which t breaks the tool contract, joined, or
// nil. It checks the spec (name, description, annotations), that the input
// schema is an object schema every provider dialect accepts, that valid
// cases validate and invalid ones do not, and, with Cases.Run, that each
// valid call returns one result that marshals to the documented JSON form
// and stays within the output budget, and, when the tool declares an
// output schema, that a successful result's Data is an object the schema
// accepts.
func Check(ctx context.Context, t *tool.Tool, cases Cases) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(t.Name()+": "+format, args...)) }
	s := t.Spec()
	if strings.TrimSpace(s.Description) == "" {
		fail("description is empty: the model needs to know what the tool does")
	} else if r := []rune(s.Description); !unicode.IsUpper(r[0]) {
		fail("description should start with a capital letter: %q", firstLine(s.Description))
	}
	if s.Annotations.ReadOnly && s.Annotations.Destructive {
		fail("annotations say both read-only and destructive")
	}
	var top map[string]any
	if err := json.Unmarshal(s.InputSchema, &top); err != nil {
		fail("input schema is not a JSON object: %v", err)
	} else if top["type"] != "object" {
		fail(`input schema must have "type": "object"`)
	}
	if _, _, err := schema.OpenAI(s.InputSchema, false); err != nil {
		fail("OpenAI export: %v", err)
	}
	if _, _, err := schema.OpenAI(s.InputSchema, true); err != nil {
		fail("OpenAI strict export: %v", err)
	}
	if _, err := schema.Anthropic(s.InputSchema); err != nil {
		fail("Anthropic export: %v", err)
	}
	if g, err := schema.Gemini(s.InputSchema); err != nil {
		fail("Gemini export: %v", err)
	} else if strings.Contains(string(g), `"$ref"`) {
		fail("Gemini export still has a $ref")
	}
	if _, err := schema.MCP(s.InputSchema); err != nil {
		fail("MCP export: %v", err)
	}
	for _, c := range cases.Valid {
		if err := t.Schema().Validate([]byte(c)); err != nil {
			fail("valid case %s rejected: %v", c, err)
		}
	}
	for _, c := range cases.Invalid {
		err := t.Schema().Validate([]byte(c))
		var ve *schema.ValidationError
		switch {
		case err == nil:
			fail("invalid case %s accepted", c)
		case !errors.As(err, &ve) || len(ve.Violations) == 0:
			fail("invalid case %s: error %v lists no violations", c, err)
		}
	}
	if cases.Run && len(cases.Valid) > 0 {
		errs = append(errs, run(ctx, t, cases)...)
	}
	return errors.Join(errs...)
}

func run(ctx context.Context, t *tool.Tool, cases Cases) []error {
	var errs []error
	root := cases.Root
	if root == nil {
		dir, err := os.MkdirTemp("", "tooltest")
		if err != nil {
			return []error{err}
		}
		defer os.RemoveAll(dir)
		if root, err = os.OpenRoot(dir); err != nil {
			return []error{err}
		}
		defer root.Close()
	}
	reg, err := tool.NewRegistry(t)
	if err != nil {
		return []error{err}
	}
	var out *schema.Schema
	if raw := t.Spec().OutputSchema; len(raw) != 0 {
		if out, err = schema.Compile(raw, nil); err != nil {
			return []error{fmt.Errorf("%s: output schema: %w", t.Name(), err)}
		}
	}
	const limit = 4096
	r := tool.NewRunner(reg, &tool.RunnerOptions{OutputLimit: limit})
	for _, c := range cases.Valid {
		res, err := r.Call(ctx, tool.Call{Root: root, SessionID: "tooltest"}, tool.Request{Name: t.Name(), Arguments: json.RawMessage(c)})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: call %s: fault: %w", t.Name(), c, err))
			continue
		}
		if !res.Success && res.Error == "" {
			errs = append(errs, fmt.Errorf("%s: call %s failed without saying why", t.Name(), c))
		}
		if len(res.Output) > limit+512 {
			errs = append(errs, fmt.Errorf("%s: call %s: output of %d bytes escaped the budget", t.Name(), c, len(res.Output)))
		}
		if _, err := json.Marshal(res); err != nil {
			errs = append(errs, fmt.Errorf("%s: call %s: result does not marshal: %w", t.Name(), c, err))
		}
		if out != nil && res.Success {
			data, err := json.Marshal(res.Data)
			if err == nil {
				err = out.Validate(data)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: call %s: data %s does not match the output schema: %w", t.Name(), c, data, err))
			}
		}
	}
	return errs
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
