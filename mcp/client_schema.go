package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wieldhq/wield/schema"
)

// draft7URL is the "$schema" a draft-07 schema is marked with.
const draft7URL = "http://json-schema.org/draft-07/schema#"

// inputSchema turns the input schema a server advertised into one wield
// accepts, or says why it cannot. Server schemas are untrusted: the schema
// must be an object schema within [schema.Limits]; a missing "type" of a
// schema with properties (or of an empty one) is taken to be "object";
// local references are inlined by [schema.InlineRefs] so that every
// provider sees a self-contained schema (recursive ones keep their
// references and the definitions they need), except when inlining would
// blow the schema up past the limits; a schema that only compiles as
// draft-07 (tuple "items", say) is marked as draft-07.
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
	if raw, err = json.Marshal(top); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	inlined, err := schema.InlineRefs(raw)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if len(inlined) <= schema.DefaultMaxBytes {
		raw = inlined // else inlining blew it up: keep the references
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
