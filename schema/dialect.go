package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Dialect names a provider's form of tool schemas.
type Dialect string

// The dialects wield exports.
const (
	DialectOpenAI    Dialect = "openai"
	DialectAnthropic Dialect = "anthropic"
	DialectGemini    Dialect = "gemini"
	DialectMCP       Dialect = "mcp"
)

// OpenAI rewrites a draft 2020-12 object schema for OpenAI's chat
// completions "parameters".
//
// Without strict, the schema is passed on without "$schema" and "$id".
// With strict, OpenAI's structured-output rules are applied throughout:
// every property is required, properties that were optional accept null
// instead, and every object has "additionalProperties": false. A schema
// that cannot follow those rules — an open map (additionalProperties true
// or a schema, patternProperties, an object without properties), oneOf or
// allOf — is returned in the non-strict form and isStrict is false.
func OpenAI(raw json.RawMessage, strict bool) (out json.RawMessage, isStrict bool, err error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, false, err
	}
	delete(m, "$schema")
	delete(m, "$id")
	if strict {
		s := cloneValue(m).(map[string]any)
		if makeStrict(s) {
			out, err = json.Marshal(s)
			return out, true, err
		}
	}
	out, err = json.Marshal(m)
	return out, false, err
}

// makeStrict rewrites s in place and reports whether it could.
func makeStrict(s map[string]any) bool {
	for _, k := range []string{"oneOf", "allOf", "patternProperties", "not", "if", "dependentSchemas", "unevaluatedProperties"} {
		if _, ok := s[k]; ok {
			return false
		}
	}
	if isObjectSchema(s) {
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			return false // an open map: strict mode cannot describe it
		}
		if ap, ok := s["additionalProperties"]; ok && ap != false {
			return false
		}
		required := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, n := range r {
				if n, ok := n.(string); ok {
					required[n] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for name, p := range props {
			ps, ok := p.(map[string]any)
			if !ok {
				return false
			}
			if !makeStrict(ps) {
				return false
			}
			if !required[name] {
				props[name] = nullable(ps)
			}
			names = append(names, name)
		}
		sort.Strings(names)
		req := make([]any, len(names))
		for i, n := range names {
			req[i] = n
		}
		s["required"] = req
		s["additionalProperties"] = false
	}
	if items, ok := s["items"].(map[string]any); ok && !makeStrict(items) {
		return false
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := s[k].(map[string]any); ok {
			for _, d := range defs {
				if ds, ok := d.(map[string]any); !ok || !makeStrict(ds) {
					return false
				}
			}
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if as, ok := a.(map[string]any); !ok || !makeStrict(as) {
				return false
			}
		}
	}
	return true
}

func isObjectSchema(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	_, hasProps := s["properties"]
	return hasProps
}

// nullable returns s accepting null too.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			s["type"] = []any{t, "null"}
		}
		if e, ok := s["enum"].([]any); ok && !slices.Contains(e, nil) {
			s["enum"] = append(e, nil)
		}
		return s
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
		return s
	}
	if _, ok := s["$ref"]; ok || s["anyOf"] != nil {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	return s
}

// Anthropic rewrites a schema for Anthropic's "input_schema": the schema
// without "$schema" and "$id". The top level must describe an object.
func Anthropic(raw json.RawMessage) (json.RawMessage, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	if !isObjectSchema(m) {
		return nil, fmt.Errorf(`schema must have "type": "object" at the top level`)
	}
	delete(m, "$schema")
	delete(m, "$id")
	return json.Marshal(m)
}

// MCP rewrites a schema for an MCP Tool's "inputSchema", which must
// describe an object.
func MCP(raw json.RawMessage) (json.RawMessage, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	if !isObjectSchema(m) {
		return nil, fmt.Errorf(`schema must have "type": "object" at the top level`)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	return json.Marshal(m)
}

// GeminiMaxRefDepth is how often Gemini's form expands one reference inside
// itself before it stands in a permissive object for the rest.
const GeminiMaxRefDepth = 3

// geminiKeywords are the schema keywords Gemini's function declarations
// accept (its OpenAPI 3.0 subset).
var geminiKeywords = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"items": true, "properties": true, "required": true, "minItems": true, "maxItems": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true, "pattern": true,
	"anyOf": true, "propertyOrdering": true, "minProperties": true, "maxProperties": true, "default": true,
}

// Gemini rewrites a schema for Gemini's functionDeclarations "parameters":
// local references ("#/$defs/X", "#/definitions/X") are inlined, a
// recursive reference is expanded [GeminiMaxRefDepth] times and then
// replaced by a permissive object that says so; type lists become a type
// with "nullable" or an anyOf; "const" becomes a one-value enum; oneOf
// becomes anyOf; allOf of objects is merged; enums of non-strings are moved
// into the description; keywords Gemini rejects are dropped.
func Gemini(raw json.RawMessage) (json.RawMessage, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	g := geminiConverter{root: m, depth: map[string]int{}}
	out, err := g.convert(m)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

type geminiConverter struct {
	root  map[string]any
	depth map[string]int
}

func (g *geminiConverter) resolve(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("reference %q is not local; Gemini needs it inlined and wield never fetches schemas", ref)
	}
	target, err := resolvePointer(g.root, ref)
	if err != nil {
		return nil, err
	}
	m, ok := target.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("reference %q is not a schema object", ref)
	}
	return m, nil
}

func (g *geminiConverter) convert(s map[string]any) (map[string]any, error) {
	if ref, ok := s["$ref"].(string); ok {
		if g.depth[ref] >= GeminiMaxRefDepth {
			return map[string]any{"type": "object", "description": "(recursive structure, cut here: " + ref + ")"}, nil
		}
		target, err := g.resolve(ref)
		if err != nil {
			return nil, err
		}
		g.depth[ref]++
		merged := map[string]any{}
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range s { // siblings of $ref (a description) win
			if k != "$ref" {
				merged[k] = v
			}
		}
		out, err := g.convert(merged)
		g.depth[ref]--
		return out, err
	}
	out := map[string]any{}
	if all, ok := s["allOf"].([]any); ok {
		merged := map[string]any{}
		for k, v := range s {
			if k != "allOf" {
				merged[k] = v
			}
		}
		for _, a := range all {
			am, ok := a.(map[string]any)
			if !ok {
				continue
			}
			if ref, ok := am["$ref"].(string); ok {
				t, err := g.resolve(ref)
				if err != nil {
					return nil, err
				}
				am = t
			}
			mergeSchemas(merged, am)
		}
		return g.convert(merged)
	}
	for k, v := range s {
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				out["type"] = t
			case []any:
				var types []string
				for _, x := range t {
					if x == "null" {
						out["nullable"] = true
					} else if xs, ok := x.(string); ok {
						types = append(types, xs)
					}
				}
				switch len(types) {
				case 0:
					out["type"] = "null"
				case 1:
					out["type"] = types[0]
				default:
					var alts []any
					for _, t := range types {
						alts = append(alts, map[string]any{"type": t})
					}
					out["anyOf"] = alts
				}
			}
		case "const":
			if c, ok := v.(string); ok {
				out["enum"] = []any{c}
			}
		case "enum":
			vals, _ := v.([]any)
			allStrings := true
			for _, e := range vals {
				if _, ok := e.(string); !ok {
					allStrings = false
				}
			}
			if allStrings {
				out["enum"] = vals
			} else {
				b, _ := json.Marshal(vals)
				out["x-enum-note"] = "one of " + string(b)
			}
		case "properties":
			props, _ := v.(map[string]any)
			cp := map[string]any{}
			for name, p := range props {
				pm, ok := p.(map[string]any)
				if !ok {
					continue
				}
				c, err := g.convert(pm)
				if err != nil {
					return nil, err
				}
				cp[name] = c
			}
			out["properties"] = cp
		case "items":
			if im, ok := v.(map[string]any); ok {
				c, err := g.convert(im)
				if err != nil {
					return nil, err
				}
				out["items"] = c
			}
		case "anyOf", "oneOf":
			alts, _ := v.([]any)
			var cs []any
			for _, a := range alts {
				am, ok := a.(map[string]any)
				if !ok {
					continue
				}
				c, err := g.convert(am)
				if err != nil {
					return nil, err
				}
				if c["type"] == "null" && len(c) == 1 {
					out["nullable"] = true
					continue
				}
				cs = append(cs, c)
			}
			if len(cs) == 1 {
				for k2, v2 := range cs[0].(map[string]any) {
					if _, set := out[k2]; !set {
						out[k2] = v2
					}
				}
			} else if len(cs) > 1 {
				out["anyOf"] = cs
			}
		case "format":
			if f, ok := v.(string); ok && (f == "enum" || f == "date-time" || f == "int32" || f == "int64" || f == "float" || f == "double") {
				out["format"] = f
			}
		default:
			if geminiKeywords[k] {
				out[k] = v
			}
		}
	}
	if note, ok := out["x-enum-note"].(string); ok {
		delete(out, "x-enum-note")
		if d, ok := out["description"].(string); ok && d != "" {
			out["description"] = d + " (" + note + ")"
		} else {
			out["description"] = note
		}
	}
	if req, ok := out["required"].([]any); ok {
		props, _ := out["properties"].(map[string]any)
		kept := req[:0:0]
		for _, r := range req {
			if name, ok := r.(string); ok && props[name] != nil {
				kept = append(kept, name)
			}
		}
		if len(kept) == 0 {
			delete(out, "required")
		} else {
			out["required"] = kept
		}
	}
	return out, nil
}

// mergeSchemas merges src's keywords into dst; properties and required
// lists are combined.
func mergeSchemas(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			dp, _ := dst["properties"].(map[string]any)
			if dp == nil {
				dp = map[string]any{}
			}
			if sp, ok := v.(map[string]any); ok {
				for n, p := range sp {
					dp[n] = p
				}
			}
			dst["properties"] = dp
		case "required":
			dr, _ := dst["required"].([]any)
			if sr, ok := v.([]any); ok {
				for _, r := range sr {
					if !slices.Contains(dr, r) {
						dr = append(dr, r)
					}
				}
			}
			dst["required"] = dr
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("schema must be a JSON object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("schema must be a JSON object, not null")
	}
	return m, nil
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneValue(e)
		}
		return s
	}
	return v
}
