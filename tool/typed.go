package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// New returns a tool whose input schema is inferred from In, a struct type.
// Arguments are validated against that schema, decoded into an In and passed
// to fn, together with the [Call].
//
// Properties are named by their `json` tags; fields with omitempty or
// omitzero are optional, the others required; unknown properties are
// refused. Further struct tags describe a property:
//
//	jsonschema:"the description"
//	enum:"a,b,c"        allowed values (strings, or numbers for numeric fields)
//	default:"value"     the default, as JSON ("3", "true") or a plain string
//
// If spec.InputSchema is set, it is used instead of the inferred schema.
//
// New panics if In cannot be described as a JSON object schema or the spec
// is invalid: both are programming errors.
func New[In any](spec Spec, fn func(ctx context.Context, c *Call, in In) (Result, error)) *Tool {
	if len(spec.InputSchema) != 0 {
		// A schema written by hand may be invalid: check it now.
		t, err := NewRaw(spec, typedFunc[In](fn))
		if err != nil {
			panic(fmt.Sprintf("tool.New: %v", err))
		}
		return t
	}
	raw, err := InferSchema[In]()
	if err != nil {
		panic(fmt.Sprintf("tool.New(%s): %v", spec.Name, err))
	}
	spec.InputSchema = raw
	if err := checkName(spec.Name); err != nil {
		panic(fmt.Sprintf("tool.New: %v", err))
	}
	if err := checkObjectSchema(spec.InputSchema); err != nil {
		panic(fmt.Sprintf("tool.New(%s): %v", spec.Name, err))
	}
	if err := checkTypedOutputSchema(spec.OutputSchema); err != nil {
		panic(fmt.Sprintf("tool.New(%s): %v", spec.Name, err))
	}
	if fn == nil {
		panic(fmt.Sprintf("tool.New(%s): nil function", spec.Name))
	}
	spec.Description = strings.TrimSpace(spec.Description)
	// The schema is compiled on first use (see Tool.compiled).
	return &Tool{spec: spec, handler: typedFunc[In](fn)}
}

type typedFunc[In any] func(ctx context.Context, c *Call, in In) (Result, error)

func (f typedFunc[In]) Handle(ctx context.Context, c *Call, args json.RawMessage) (Result, error) {
	p, res := f.prepare(args)
	if p == nil {
		return res, nil
	}
	return p.run(ctx, c)
}

// prepare decodes args so that the runner can do it on its own goroutine,
// whose stack has already grown, before the tool runs on a fresh one.
func (f typedFunc[In]) prepare(args json.RawMessage) (preparedCall, Result) {
	p := &typedCall[In]{fn: f}
	if err := json.Unmarshal(args, &p.in); err != nil {
		// The schema accepted args, so the Go type and its schema disagree
		// (for example a number too large for an int8).
		return nil, Failure("cannot decode arguments: " + err.Error())
	}
	return p, Result{}
}

type typedCall[In any] struct {
	fn typedFunc[In]
	in In
}

func (p *typedCall[In]) run(ctx context.Context, c *Call) (Result, error) { return p.fn(ctx, c, p.in) }

// A preparedCall is a call whose arguments are decoded.
type preparedCall interface {
	run(ctx context.Context, c *Call) (Result, error)
}

// preparer is implemented by handlers that decode their arguments ahead of
// the call: the typed handlers made by [New].
type preparer interface {
	prepare(args json.RawMessage) (preparedCall, Result)
}

// InferSchema returns the JSON Schema that [New] infers for In.
func InferSchema[In any]() (json.RawMessage, error) {
	t := reflect.TypeFor[In]()
	s, err := jsonschema.ForType(t, inferOptions())
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("input type %s is not a struct: tool arguments must be a JSON object", t)
	}
	if err := applyTags(t, s); err != nil {
		return nil, err
	}
	s.Schema = "" // dialect is implied; providers reject "$schema"
	return json.Marshal(s)
}

// typedOutputSchemas remembers, by content, what [checkOutputSchema]
// concluded of the output schemas of typed tools: a process builds many
// tools whose output schemas are the same (the git tools share one), and
// compiling one takes about a thousand allocations. What [SchemaOf]
// returns is entered as valid without compiling it: it is inferred from a
// Go type, as the input schemas of typed tools are, which are not compiled
// before their first call either (tooltest.Check compiles the output
// schema of each tool it checks). The schemas of typed tools are written
// in Go source, so there are only so many; those of [NewRaw], which may
// come from servers, are not remembered. The map is a cache of a pure
// function of its key, so sharing it is safe.
var typedOutputSchemas sync.Map // string → error; a nil error is valid

func checkTypedOutputSchema(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	if err, ok := typedOutputSchemas.Load(string(raw)); ok {
		if err == nil {
			return nil
		}
		return err.(error)
	}
	err := checkOutputSchema(raw)
	typedOutputSchemas.Store(string(raw), err)
	return err
}

// schemasOf remembers what [SchemaOf] inferred for each type.
var schemasOf sync.Map // reflect.Type → json.RawMessage

// SchemaOf returns the JSON Schema of what encoding/json writes for T, a
// struct type, for [Spec.OutputSchema]: inferred as [New] infers an input
// schema, so that fields without omitempty or omitzero are required and
// unknown properties are refused, except that a slice or map may also be
// null, as a nil one is written. It panics if T is not a struct: a
// programming error.
func SchemaOf[T any]() json.RawMessage {
	t := reflect.TypeFor[T]()
	if raw, ok := schemasOf.Load(t); ok {
		return slices.Clone(raw.(json.RawMessage))
	}
	s, err := jsonschema.ForType(t, inferOptions())
	if err == nil && s.Type != "object" {
		err = fmt.Errorf("type %s is not a struct", t)
	}
	if err != nil {
		panic(fmt.Sprintf("tool.SchemaOf: %v", err))
	}
	allowNil(t, s, 0)
	s.Schema = ""
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool.SchemaOf: %v", err))
	}
	schemasOf.Store(t, json.RawMessage(raw))
	typedOutputSchemas.Store(string(raw), nil)
	return slices.Clone(raw)
}

// inferOptions are the options tool schemas are inferred with: a
// [json.RawMessage] is any JSON value, as it encodes, where jsonschema-go
// would see a slice of bytes and say "array of integers", which a model
// then follows and a client that checks results refuses. The schema names
// every type rather than being empty, because an empty schema is written
// as true, and MCP wants each property's schema to be an object.
func inferOptions() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Types: []string{"null", "boolean", "object", "array", "number", "string"}},
	}}
}

// allowNil makes s, the schema of t, and the schemas inside it accept
// null where encoding/json writes a nil slice or map as null.
func allowNil(t reflect.Type, s *jsonschema.Schema, depth int) {
	if s == nil || depth > 32 {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		switch {
		case s.Type != "" && s.Type != "null":
			s.Types, s.Type = []string{"null", s.Type}, ""
		case len(s.Types) > 0 && !slices.Contains(s.Types, "null"):
			s.Types = append([]string{"null"}, s.Types...)
		}
		if t.Kind() == reflect.Slice {
			allowNil(t.Elem(), s.Items, depth+1)
		} else {
			allowNil(t.Elem(), s.AdditionalProperties, depth+1)
		}
	case reflect.Struct:
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case f.Anonymous && name == "":
				allowNil(f.Type, s, depth+1) // its fields are promoted
				continue
			case name == "":
				name = f.Name
			}
			allowNil(f.Type, s.Properties[name], depth+1)
		}
	}
}

// applyTags adds enum and default values from struct tags to s, the schema
// jsonschema-go inferred for t.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
		if s.Items != nil {
			s = s.Items
		}
	}
	if t.Kind() != reflect.Struct || s == nil {
		return nil
	}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		if f.Anonymous && f.Tag.Get("json") == "" {
			if err := applyTags(f.Type, s); err != nil {
				return err
			}
			continue
		}
		ps := s.Properties[name]
		if ps == nil {
			continue
		}
		// jsonschema-go types a slice or map as ["null", "array"] because
		// a nil one marshals as null. Arguments never need null there, and
		// a single type is what every provider accepts.
		if k := f.Type.Kind(); (k == reflect.Slice || k == reflect.Map) && len(ps.Types) == 2 && slices.Contains(ps.Types, "null") {
			i := slices.Index(ps.Types, "null")
			ps.Type, ps.Types = ps.Types[1-i], nil
		}
		if enum, ok := f.Tag.Lookup("enum"); ok {
			for v := range strings.SplitSeq(enum, ",") {
				ps.Enum = append(ps.Enum, tagValue(v, f.Type))
			}
		}
		if def, ok := f.Tag.Lookup("default"); ok {
			v := tagValue(def, f.Type)
			raw, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("field %s: default %q: %w", f.Name, def, err)
			}
			ps.Default = raw
		}
		if err := applyTags(f.Type, ps); err != nil {
			return err
		}
	}
	return nil
}

// tagValue interprets a tag value: for string fields it is the string
// itself; otherwise JSON if it parses, else the string.
func tagValue(v string, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.String {
		return v
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err == nil {
		return x
	}
	return v
}
