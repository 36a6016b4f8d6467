package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// MaxInlineNodes bounds the schema objects [InlineRefs] may visit and
// produce; past it the schema keeps its references.
const MaxInlineNodes = 10_000

// InlineRefs returns a copy of the schema raw, a JSON object, with its
// local references ("#/$defs/X", "#/definitions/X", any "#/..." JSON
// pointer) replaced by the schemas they point to, so that a consumer that
// cannot follow references (a provider, say) sees a self-contained schema.
//
// The keywords beside a "$ref" win over those of its target, so a local
// "description" or "default" survives. Values of "enum", "const", "default"
// and "examples" are data and are never rewritten. The top-level "$defs"
// and "definitions" are dropped once nothing refers to them; a recursive
// reference, or one to an anchor ("#name"), is left in place, and then
// both are kept so that it still resolves. When inlining would visit more
// than [MaxInlineNodes] schema objects (a reference bomb), raw is
// returned unchanged. Numbers keep their text.
//
// A reference that is not local is an error: wield never fetches schemas.
// So is one that does not resolve, or that points to something that is not
// a schema (an object or a boolean). InlineRefs does not compile the
// result; callers that need a valid schema still call [Compile]. The
// result is freshly allocated and owned by the caller.
func InlineRefs(raw json.RawMessage) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("inline references: %w", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("inline references: the schema is not a JSON object: %.100s", raw)
	}
	out, err := inlineRefs(root)
	if errors.Is(err, errInlineBudget) {
		return bytes.Clone(raw), nil
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// errInlineBudget stops an inlining that grows too large.
var errInlineBudget = errors.New("inlining budget exhausted")

// inlineRefs returns a copy of the schema root with local references
// inlined; see InlineRefs.
func inlineRefs(root map[string]any) (map[string]any, error) {
	in := &inliner{root: root, budget: MaxInlineNodes, stack: []string{"#"}}
	v, err := in.walk(root, true)
	if err != nil {
		return nil, err
	}
	out := v.(map[string]any)
	if in.recursive {
		for _, k := range []string{"$defs", "definitions"} {
			if d, ok := root[k]; ok {
				out[k] = d
			}
		}
	}
	return out, nil
}

type inliner struct {
	root      map[string]any
	budget    int
	stack     []string // references being expanded
	recursive bool
}

// dataKeywords hold values, not schemas: references in them are data.
var dataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// namedSchemas are the keywords whose value maps names to schemas: the
// names are data (a property may be called "enum" or "$ref").
var namedSchemas = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
	"dependentSchemas": true, "dependencies": true,
}

// keyword returns the value x of a schema's keyword k with references
// inlined.
func (in *inliner) keyword(k string, x any) (any, error) {
	switch {
	case dataKeywords[k]:
		return x, nil
	case namedSchemas[k]:
		m, ok := x.(map[string]any)
		if !ok {
			return in.walk(x, false)
		}
		out := make(map[string]any, len(m))
		for name, s := range m {
			w, err := in.walk(s, false)
			if err != nil {
				return nil, err
			}
			out[name] = w
		}
		return out, nil
	}
	return in.walk(x, false)
}

// keywords puts every keyword of schema v but those named in skip into
// out, with references inlined.
func (in *inliner) keywords(out, v map[string]any, skip ...string) error {
	for k, x := range v {
		if slices.Contains(skip, k) {
			continue
		}
		w, err := in.keyword(k, x)
		if err != nil {
			return err
		}
		out[k] = w
	}
	return nil
}

func (in *inliner) walk(v any, top bool) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if in.budget--; in.budget < 0 {
			return nil, errInlineBudget
		}
		if ref, ok := v["$ref"].(string); ok {
			return in.ref(v, ref)
		}
		var skip []string
		if top {
			skip = []string{"$defs", "definitions"}
		}
		out := make(map[string]any, len(v))
		if err := in.keywords(out, v, skip...); err != nil {
			return nil, err
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			w, err := in.walk(x, false)
			if err != nil {
				return nil, err
			}
			out[i] = w
		}
		return out, nil
	default:
		return v, nil
	}
}

// ref expands the schema v, which refers to ref.
func (in *inliner) ref(v map[string]any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("$ref %q is not local to the schema, and wield never fetches schemas", ref)
	}
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		// An anchor ("#name"): the compiler resolves it in place.
		in.recursive = true
		return maps.Clone(v), nil
	}
	for _, r := range in.stack {
		if r == ref {
			in.recursive = true
			return maps.Clone(v), nil
		}
	}
	target, err := resolvePointer(in.root, ref)
	if err != nil {
		return nil, err
	}
	in.stack = append(in.stack, ref)
	expanded, err := in.walk(target, false)
	in.stack = in.stack[:len(in.stack)-1]
	if err != nil {
		return nil, err
	}
	out, ok := expanded.(map[string]any)
	if !ok {
		// A boolean schema: true or false.
		if len(v) == 1 {
			return expanded, nil
		}
		out = map[string]any{"allOf": []any{expanded}}
	}
	// Siblings of $ref (a description, a default) win.
	if err := in.keywords(out, v, "$ref"); err != nil {
		return nil, err
	}
	return out, nil
}

// resolvePointer resolves a "#/a/b" JSON pointer in root.
func resolvePointer(root map[string]any, ref string) (any, error) {
	var cur any = root
	ptr := strings.TrimPrefix(ref, "#")
	if ptr == "" {
		return root, nil
	}
	for tok := range strings.SplitSeq(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	switch cur.(type) {
	case map[string]any, bool:
		return cur, nil
	}
	return nil, fmt.Errorf("$ref %q does not point to a schema", ref)
}
