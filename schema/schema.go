package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Draft names a JSON Schema dialect that [Compile] understands.
type Draft int

const (
	// Draft2020 is JSON Schema draft 2020-12, the default.
	Draft2020 Draft = iota
	// Draft7 is JSON Schema draft-07, used by older MCP revisions.
	Draft7
)

// Default limits for schemas from untrusted sources.
const (
	DefaultMaxDepth = 32
	DefaultMaxBytes = 256 << 10
)

// Limits bound the schemas [Compile] accepts. A zero field means its
// default: [DefaultMaxDepth] levels of nesting and [DefaultMaxBytes] bytes.
type Limits struct {
	MaxDepth int
	MaxBytes int
}

// CompileOptions configures [Compile]. A nil *CompileOptions, or a zero
// field, means the documented default.
type CompileOptions struct {
	// Draft is the dialect assumed when the schema has no "$schema".
	// Zero means Draft2020.
	Draft Draft
	// Limits caps depth and size; see [Limits].
	Limits Limits
	// Resources are further schema documents the schema may refer to, keyed
	// by absolute URL. Nothing else is ever loaded.
	Resources map[string]json.RawMessage
	// AssertFormat makes "format" an assertion rather than an annotation.
	AssertFormat bool
	// URL is the base URL of the schema; empty means "wield:input.json".
	URL string
}

// A Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	raw      json.RawMessage
	compiled *jsonschema.Schema
	quick    *quickValidator // nil when the schema is outside its subset
}

// ErrTooLarge is returned (wrapped) by [Compile] when a schema is deeper or
// larger than its [Limits] allow.
var ErrTooLarge = errors.New("schema exceeds limits")

// Compile compiles the schema document raw. The returned error says what is
// wrong with the schema, with its location.
func Compile(raw []byte, opts *CompileOptions) (*Schema, error) {
	var o CompileOptions
	if opts != nil {
		o = *opts
	}
	if err := checkLimits(raw, o.Limits); err != nil {
		return nil, err
	}
	doc, err := decodeValue(raw)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	switch o.Draft {
	case Draft7:
		c.DefaultDraft(jsonschema.Draft7)
	default:
		c.DefaultDraft(jsonschema.Draft2020)
	}
	if o.AssertFormat {
		c.AssertFormat()
	}
	c.UseLoader(refusingLoader{})
	for url, res := range o.Resources {
		v, err := decodeValue(res)
		if err != nil {
			return nil, fmt.Errorf("schema resource %s is not valid JSON: %w", url, err)
		}
		if err := c.AddResource(url, v); err != nil {
			return nil, fmt.Errorf("schema resource %s: %w", url, err)
		}
	}
	url := o.URL
	if url == "" {
		url = "wield:input.json"
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %s", compileMessage(err))
	}
	return &Schema{raw: slices.Clone(raw), compiled: sch, quick: newQuickValidator(raw)}, nil
}

// MustCompile is like [Compile] but panics on error. It is for schemas
// written in Go source, never for schemas from files, servers or models.
func MustCompile(raw []byte) *Schema {
	s, err := Compile(raw, nil)
	if err != nil {
		panic(err)
	}
	return s
}

// Raw returns the schema document as given to [Compile]. The caller must not
// modify the returned slice.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// Validate decodes the JSON document args and validates it. It returns nil,
// a *[ValidationError] listing every violation, or an error saying that args
// is not valid JSON.
func (s *Schema) Validate(args []byte) error {
	if s.quick != nil && s.quick.valid(args) {
		return nil
	}
	v, err := decodeValue(args)
	if err != nil {
		return &ValidationError{Violations: []Violation{{Pointer: "", Message: "arguments are not valid JSON: " + jsonMessage(err)}}}
	}
	return s.ValidateValue(v)
}

// ValidateValue validates an already decoded value, as produced by
// encoding/json with UseNumber (numbers as [json.Number]).
//
// A number whose exponent math/big cannot read (beyond about ±1e6) is a
// violation wherever the schema compares it with a bound.
func (s *Schema) ValidateValue(v any) (verr error) {
	defer func() {
		// santhosh-tekuri/jsonschema reads numbers with big.Rat.SetString and
		// dereferences the nil it returns for such exponents (minimum,
		// maximum, multipleOf, uniqueItems). Anything else is re-raised.
		if r := recover(); r != nil {
			var vs []Violation
			unreadableNumbers(v, nil, &vs)
			if len(vs) == 0 {
				panic(r)
			}
			verr = &ValidationError{Violations: vs}
		}
	}()
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Violations: []Violation{{Message: err.Error()}}}
	}
	out := &ValidationError{}
	collect(ve, &out.Violations)
	slices.SortStableFunc(out.Violations, func(a, b Violation) int { return strings.Compare(a.Pointer, b.Pointer) })
	out.Violations = slices.Compact(out.Violations)
	return out
}

// A Violation is one way in which a value breaks a schema.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is the
	// whole document.
	Pointer string `json:"pointer"`
	// Message says what is wrong, in plain words.
	Message string `json:"message"`
}

// ValidationError is returned by [Schema.Validate]. It lists every violation,
// sorted by pointer.
type ValidationError struct {
	Violations []Violation
}

// Error lists every violation, one per line after a summary line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	if len(e.Violations) == 1 {
		b.WriteString("invalid arguments: ")
		writeViolation(&b, e.Violations[0])
		return b.String()
	}
	fmt.Fprintf(&b, "invalid arguments (%d problems):", len(e.Violations))
	for _, v := range e.Violations {
		b.WriteString("\n- ")
		writeViolation(&b, v)
	}
	return b.String()
}

func writeViolation(b *strings.Builder, v Violation) {
	if v.Pointer == "" {
		b.WriteString("at the top level: ")
	} else {
		b.WriteString("at ")
		b.WriteString(v.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(v.Message)
}

var printer = message.NewPrinter(language.English)

// collect flattens the leaves of a validation error tree. Interior nodes
// ("doesn't validate with ...") say nothing the leaves do not.
func collect(ve *jsonschema.ValidationError, out *[]Violation) {
	if len(ve.Causes) == 0 {
		*out = append(*out, Violation{Pointer: pointer(ve.InstanceLocation), Message: kindMessage(ve.ErrorKind)})
		return
	}
	for _, c := range ve.Causes {
		collect(c, out)
	}
}

// kindMessage renders one leaf error in plain words. The library's English
// is kept where it is already plain ("missing property 'x'", "got string,
// want integer"); bounds are reworded into sentences.
func kindMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s, got %s", ratString(k.Want), ratString(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s, got %s", ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be greater than %s, got %s", ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %s, got %s", ratString(k.Want), ratString(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s, got %s", ratString(k.Want), ratString(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d items, got %d", k.Want, k.Got)
	case *kind.AdditionalProperties:
		quoted := make([]string, len(k.Properties))
		for i, p := range k.Properties {
			quoted[i] = strconv.Quote(p)
		}
		return "unknown properties " + strings.Join(quoted, ", ") + " (not in the schema; remove them or check their spelling)"
	}
	return k.LocalizedString(printer)
}

// ratString writes r exactly, as a JSON number would: every number in a
// schema or a document is a terminating decimal. Plain notation is used
// while the decimal exponent is within [-6, 21), as in JavaScript, and
// scientific notation ("1e-400") outside it. A ratio that is not a
// terminating decimal is written as a fraction.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	// r = num / (2^a × 5^b) = num × 2^(k-a) × 5^(k-b) / 10^k with k = max(a, b).
	den := r.Denom()
	a := den.TrailingZeroBits()
	odd := new(big.Int).Rsh(den, a)
	b, ok := log5(odd)
	if !ok {
		return r.RatString()
	}
	k := max(a, b)
	n := new(big.Int).Abs(r.Num())
	n.Mul(n, new(big.Int).Lsh(big.NewInt(1), k-a))
	n.Mul(n, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k-b)), nil))
	digits := n.String()
	exp := -int64(k) // value = digits × 10^exp
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	var sb strings.Builder
	if r.Sign() < 0 {
		sb.WriteByte('-')
	}
	switch x := int64(len(digits)) - 1 + exp; {
	case digits == "0":
		sb.WriteByte('0')
	case x < -6 || x >= 21:
		sb.WriteString(digits[:1])
		if len(digits) > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		sb.WriteByte('e')
		sb.WriteString(strconv.FormatInt(x, 10))
	case exp >= 0:
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", int(exp)))
	case int64(len(digits))+exp > 0:
		p := int64(len(digits)) + exp
		sb.WriteString(digits[:p])
		sb.WriteByte('.')
		sb.WriteString(digits[p:])
	default:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", int(-exp)-len(digits)))
		sb.WriteString(digits)
	}
	return sb.String()
}

// log5 returns b when n is 5^b.
func log5(n *big.Int) (uint, bool) {
	if n.Sign() <= 0 {
		return 0, false
	}
	// 5^b has floor(b × log2(5)) + 1 bits.
	guess := int64(float64(n.BitLen()-1) / math.Log2(5))
	five := big.NewInt(5)
	for b := max(guess-1, 0); b <= guess+1; b++ {
		if new(big.Int).Exp(five, big.NewInt(b), nil).Cmp(n) == 0 {
			return uint(b), true
		}
	}
	return 0, false
}

// unreadableNumbers appends a violation for every number in v that
// big.Rat.SetString cannot read.
func unreadableNumbers(v any, loc []string, out *[]Violation) {
	switch v := v.(type) {
	case json.Number:
		if _, ok := new(big.Rat).SetString(string(v)); !ok {
			lit := string(v)
			if len(lit) > 40 {
				lit = lit[:20] + "…" + lit[len(lit)-10:]
			}
			*out = append(*out, Violation{Pointer: pointer(loc),
				Message: "number " + lit + " is out of range (its exponent is beyond what can be compared)"})
		}
	case []any:
		for i, e := range v {
			unreadableNumbers(e, append(loc, strconv.Itoa(i)), out)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			unreadableNumbers(v[k], append(loc, k), out)
		}
	}
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}

func compileMessage(err error) string {
	var se *jsonschema.SchemaValidationError
	if errors.As(err, &se) && se.Err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			var vs []Violation
			collect(ve, &vs)
			parts := make([]string, 0, len(vs))
			for _, v := range vs {
				p := v.Pointer
				if p == "" {
					p = "(root)"
				}
				parts = append(parts, p+": "+v.Message)
			}
			return strings.Join(parts, "; ")
		}
	}
	return err.Error()
}

// decodeValue decodes one JSON value with numbers kept exact, rejecting
// trailing data.
func decodeValue(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func jsonMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " (byte offset " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	return err.Error()
}

// refusingLoader refuses every URL: schemas are never fetched.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("reference %s is not available (wield never fetches schemas)", url)
}

func checkLimits(raw []byte, l Limits) error {
	maxBytes, maxDepth := l.MaxBytes, l.MaxDepth
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if len(raw) > maxBytes {
		return fmt.Errorf("%w: %d bytes, at most %d allowed", ErrTooLarge, len(raw), maxBytes)
	}
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	if deepest > maxDepth {
		return fmt.Errorf("%w: nested %d levels deep, at most %d allowed", ErrTooLarge, deepest, maxDepth)
	}
	return nil
}
