package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/wieldhq/wield/schema"
)

// maxInlineNodes bounds the schema objects that inlining references may
// produce; past it the schema keeps its references (see inputSchema).
const maxInlineNodes = 10_000

// draft7URL is the "$schema" a draft-07 schema is marked with.
const draft7URL = "http://json-schema.org/draft-07/schema#"

// inputSchema turns the input schema a server advertised into one wield
// accepts, or says why it cannot. Server schemas are untrusted: the schema
// must be an object schema within [schema.Limits]; a missing "type" of a
// schema with properties (or of an empty one) is taken to be "object";
// local references ("#/$defs/X", "#/definitions/X") are inlined so that
// every provider sees a self-contained schema, except recursive ones,
// which keep their references and the definitions they need, and except
// when inlining would blow the schema up past the limits; a schema that
// only compiles as draft-07 (tuple "items", say) is marked as draft-07.
// Remote references are an error: wield never fetches schemas.
func inputSchema(advertised any) (json.RawMessage, error) {
	raw, err := json.Marshal(advertised)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if advertised == nil || string(raw) == "null" {
		raw = []byte(`{"type":"object"}`)
	}
	if len(raw) > schema.DefaultMaxBytes {
		return nil, fmt.Errorf("input schema: %w: %d bytes, at most %d allowed", schema.ErrTooLarge, len(raw), schema.DefaultMaxBytes)
	}
	if _, err := schema.Compile(raw, nil); errors.Is(err, schema.ErrTooLarge) {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("input schema is not a JSON object: %.100s", raw)
	}
	switch t := top["type"]; {
	case t == nil:
		top["type"] = "object"
	case t != "object":
		return nil, fmt.Errorf(`input schema must have "type": "object", got %v`, t)
	}
	out, err := inlineRefs(top)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	raw, err = json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if len(raw) > schema.DefaultMaxBytes {
		// Inlining blew it up: keep the references.
		if raw, err = json.Marshal(top); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	_, err = schema.Compile(raw, nil)
	if err != nil && top["$schema"] == nil {
		if _, err7 := schema.Compile(raw, &schema.CompileOptions{Draft: schema.Draft7}); err7 == nil {
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil {
				m["$schema"] = draft7URL
				raw, err = json.Marshal(m)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// errInlineBudget stops an inlining that grows too large.
var errInlineBudget = errors.New("inlining budget exhausted")

// inlineRefs returns a copy of the schema root with local references
// inlined; see inputSchema. A reference that does not resolve is an error.
func inlineRefs(root map[string]any) (map[string]any, error) {
	in := &inliner{root: root, budget: maxInlineNodes, stack: []string{"#"}}
	v, err := in.walk(root, true)
	if errors.Is(err, errInlineBudget) {
		return root, nil
	}
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

func (in *inliner) walk(v any, top bool) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if in.budget--; in.budget < 0 {
			return nil, errInlineBudget
		}
		if ref, ok := v["$ref"].(string); ok {
			return in.ref(v, ref)
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if top && (k == "$defs" || k == "definitions") {
				continue
			}
			if dataKeywords[k] {
				out[k] = x
				continue
			}
			w, err := in.walk(x, false)
			if err != nil {
				return nil, err
			}
			out[k] = w
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
	for k, x := range v {
		if k == "$ref" {
			continue
		}
		// Siblings of $ref (a description, a default) win.
		if dataKeywords[k] {
			out[k] = x
			continue
		}
		w, err := in.walk(x, false)
		if err != nil {
			return nil, err
		}
		out[k] = w
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
