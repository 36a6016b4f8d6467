package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// A quickValidator decides, without decoding the document into Go values,
// whether an argument document is valid for a common subset of JSON Schema:
// type (one name or a list), properties, required, additionalProperties,
// items, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// minLength, maxLength, minItems and maxItems, nested to any mix, plus the
// boolean schemas true and false.
//
// Its verdict must be the verdict of santhosh-tekuri/jsonschema on the same
// document decoded by encoding/json, so it reads the document the way the
// decoder does: strings and object keys are compared and counted as decoded
// code points (escapes resolved, invalid UTF-8 and lone surrogates replaced
// by U+FFFD), numbers are compared exactly as decimals, and a repeated
// object key counts only in its last occurrence. Whenever it cannot be sure
// it says so ([verdictUnsure]), and [Schema.Validate] then asks the full
// validator, which also writes every message. A differential fuzz test
// (FuzzQuickDifferential) keeps the two in step.
type quickValidator struct {
	root *quickNode
}

// A verdict is what the quick path concludes about a value. The order
// matters: combining the verdicts of independent keywords takes the
// largest, because one certain violation makes the value invalid whatever
// is unsure elsewhere.
type verdict uint8

const (
	verdictValid verdict = iota
	verdictUnsure
	verdictInvalid
)

type quickType uint8

const (
	qString quickType = 1 << iota
	qInteger
	qNumber
	qBoolean
	qNull
	qObject
	qArray
)

// quickMaxDepth bounds the nesting of schemas (and of enum and const values)
// that the quick path compiles; deeper ones go to the full validator.
const quickMaxDepth = 16

type quickNode struct {
	types quickType // zero: no "type" keyword, every type allowed
	never bool      // the schema false

	// objects
	props    []quickProp
	required uint64 // bits of props
	closed   bool   // additionalProperties: false
	extra    *quickNode

	// arrays
	items              *quickNode
	minItems, maxItems int // -1: absent

	// strings
	minLen, maxLen int // -1: absent

	// numbers
	bounds []quickBound

	// every kind
	hasEnum  bool
	enum     []quickValue
	hasConst bool
	constant quickValue
}

// A quickProp is a property named by "properties" (node != nil) or only by
// "required" (node == nil).
type quickProp struct {
	name string
	node *quickNode
}

type boundKind uint8

const (
	boundMin boundKind = iota
	boundMax
	boundExclMin
	boundExclMax
)

type quickBound struct {
	kind boundKind
	num  decimal
}

// A quickValue is an enum or const value from the schema.
type quickValue struct {
	kind  byte // 'n' null, 'b' boolean, 's' string, 'd' number, 'a' array, 'o' object
	b     bool
	str   string
	num   decimal
	elems []quickValue // array elements, or object member values
	keys  []string     // object member names, parallel to elems
}

// newQuickValidator returns nil when the schema uses anything outside the
// subset.
func newQuickValidator(raw []byte) *quickValidator {
	v, err := decodeValue(raw)
	if err != nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		if d, ok := m["$schema"]; ok && !quickDialect(d) {
			return nil
		}
	}
	n := quickCompile(v, 0)
	if n == nil {
		return nil
	}
	return &quickValidator{root: n}
}

// quickDialect reports whether $schema names a standard dialect in which the
// subset means what the quick path implements. Draft-04 is left out: it has
// no const and a boolean exclusiveMinimum.
func quickDialect(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	s = strings.TrimSuffix(s, "#")
	if t, ok := strings.CutPrefix(s, "http://"); ok {
		s = t
	} else if t, ok := strings.CutPrefix(s, "https://"); ok {
		s = t
	} else {
		return false
	}
	switch s {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema", "json-schema.org/draft/2019-09/schema",
		"json-schema.org/draft-07/schema", "json-schema.org/draft-06/schema":
		return true
	}
	return false
}

func quickCompile(v any, depth int) *quickNode {
	if depth > quickMaxDepth {
		return nil
	}
	n := &quickNode{minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	switch v := v.(type) {
	case bool:
		n.never = !v
		return n
	case map[string]any:
		if !n.compileKeywords(v, depth) {
			return nil
		}
		return n
	}
	return nil
}

func (n *quickNode) compileKeywords(m map[string]any, depth int) bool {
	var required []any
	for k, v := range m {
		switch k {
		case "description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly":
		case "$schema":
			if depth != 0 {
				return false
			}
		case "type":
			switch t := v.(type) {
			case string:
				if n.types = typeBit(t); n.types == 0 {
					return false
				}
			case []any:
				if len(t) == 0 {
					return false
				}
				for _, e := range t {
					s, ok := e.(string)
					if !ok || typeBit(s) == 0 {
						return false
					}
					n.types |= typeBit(s)
				}
			default:
				return false
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for name, ps := range props {
				pn := quickCompile(ps, depth+1)
				if pn == nil {
					return false
				}
				n.props = append(n.props, quickProp{name, pn})
			}
		case "required":
			r, ok := v.([]any)
			if !ok {
				return false
			}
			required = r
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				n.closed = !b
				break
			}
			if n.extra = quickCompile(v, depth+1); n.extra == nil {
				return false
			}
		case "items":
			if n.items = quickCompile(v, depth+1); n.items == nil {
				return false
			}
		case "enum":
			vals, ok := v.([]any)
			if !ok {
				return false
			}
			n.hasEnum = true
			for _, e := range vals {
				qv, ok := compileValue(e, depth)
				if !ok {
					return false
				}
				n.enum = append(n.enum, qv)
			}
		case "const":
			qv, ok := compileValue(v, depth)
			if !ok {
				return false
			}
			n.hasConst, n.constant = true, qv
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			num, ok := v.(json.Number)
			if !ok {
				return false
			}
			d, ok := parseDecimal([]byte(num))
			if !ok {
				return false // the full validator cannot read it either
			}
			kind := boundMin
			switch k {
			case "maximum":
				kind = boundMax
			case "exclusiveMinimum":
				kind = boundExclMin
			case "exclusiveMaximum":
				kind = boundExclMax
			}
			n.bounds = append(n.bounds, quickBound{kind, d})
		case "minLength", "maxLength", "minItems", "maxItems":
			num, ok := v.(json.Number)
			if !ok {
				return false
			}
			i, err := strconv.ParseInt(string(num), 10, 64)
			if err != nil || i < 0 || i > math.MaxInt32 {
				return false
			}
			switch k {
			case "minLength":
				n.minLen = int(i)
			case "maxLength":
				n.maxLen = int(i)
			case "minItems":
				n.minItems = int(i)
			case "maxItems":
				n.maxItems = int(i)
			}
		default:
			return false
		}
	}
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			return false
		}
		if n.prop(name) < 0 {
			n.props = append(n.props, quickProp{name: name})
		}
		n.required |= 1 << n.prop(name)
	}
	return len(n.props) <= 64
}

// compileValue converts a decoded enum or const value.
func compileValue(v any, depth int) (quickValue, bool) {
	if depth > quickMaxDepth {
		return quickValue{}, false
	}
	switch v := v.(type) {
	case nil:
		return quickValue{kind: 'n'}, true
	case bool:
		return quickValue{kind: 'b', b: v}, true
	case string:
		return quickValue{kind: 's', str: v}, true
	case json.Number:
		d, ok := parseDecimal([]byte(v))
		return quickValue{kind: 'd', num: d}, ok
	case []any:
		qv := quickValue{kind: 'a', elems: make([]quickValue, len(v))}
		for i, e := range v {
			var ok bool
			if qv.elems[i], ok = compileValue(e, depth+1); !ok {
				return quickValue{}, false
			}
		}
		return qv, true
	case map[string]any:
		if len(v) > 64 {
			return quickValue{}, false
		}
		qv := quickValue{kind: 'o'}
		for k, e := range v {
			ev, ok := compileValue(e, depth+1)
			if !ok {
				return quickValue{}, false
			}
			qv.keys = append(qv.keys, k)
			qv.elems = append(qv.elems, ev)
		}
		return qv, true
	}
	return quickValue{}, false
}

func typeBit(t string) quickType {
	switch t {
	case "string":
		return qString
	case "integer":
		return qInteger
	case "number":
		return qNumber
	case "boolean":
		return qBoolean
	case "null":
		return qNull
	case "object":
		return qObject
	case "array":
		return qArray
	}
	return 0
}

func (n *quickNode) prop(name string) int {
	for i := range n.props {
		if n.props[i].name == name {
			return i
		}
	}
	return -1
}

func (n *quickNode) allows(t quickType) bool { return n.types == 0 || n.types&t != 0 }

// valid reports whether doc is certainly a valid instance. False means
// "invalid or not sure".
func (q *quickValidator) valid(doc []byte) bool {
	return q.verdict(doc) == verdictValid
}

// verdict decides doc, or says it is unsure.
func (q *quickValidator) verdict(doc []byte) verdict {
	if !json.Valid(doc) {
		return verdictUnsure // the full validator writes the syntax error
	}
	s := quickScanner{b: doc}
	s.space()
	return q.root.check(&s)
}

// check decides the value at s.i and moves past it.
func (n *quickNode) check(s *quickScanner) verdict {
	if n.never {
		s.skip()
		return verdictInvalid
	}
	res := verdictValid
	if n.hasEnum || n.hasConst {
		res = n.checkEnum(s)
	}
	var v verdict
	switch c := s.b[s.i]; {
	case c == '{':
		if !n.allows(qObject) {
			s.skip()
			return verdictInvalid
		}
		v = n.object(s)
	case c == '[':
		if !n.allows(qArray) {
			s.skip()
			return verdictInvalid
		}
		v = n.array(s)
	case c == '"':
		q := s.str()
		if !n.allows(qString) {
			return verdictInvalid
		}
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := q.length()
			if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
				v = verdictInvalid
			}
		}
	case c == 't' || c == 'f':
		s.i += 4
		if c == 'f' {
			s.i++
		}
		if !n.allows(qBoolean) {
			return verdictInvalid
		}
	case c == 'n':
		s.i += 4
		if !n.allows(qNull) {
			return verdictInvalid
		}
	default:
		v = n.number(s)
	}
	return max(res, v)
}

// checkEnum decides enum and const for the value at s.i, and leaves s.i
// where it was.
func (n *quickNode) checkEnum(s *quickScanner) verdict {
	start := s.i
	res := verdictValid
	if n.hasConst {
		res = s.equal(&n.constant)
		s.i = start
	}
	if n.hasEnum {
		match := verdictInvalid
		for i := range n.enum {
			v := s.equal(&n.enum[i])
			s.i = start
			if v == verdictValid {
				match = verdictValid
				break
			}
			match = min(match, v)
		}
		res = max(res, match)
	}
	return res
}

func (n *quickNode) number(s *quickScanner) verdict {
	d, ok := s.number()
	if !n.allows(qNumber) {
		if !n.allows(qInteger) {
			return verdictInvalid
		}
		if !ok {
			return verdictUnsure
		}
		if !d.isInt() {
			return verdictInvalid
		}
	}
	for i := range n.bounds {
		if !ok {
			return verdictUnsure
		}
		b := &n.bounds[i]
		c := cmpDecimal(&d, &b.num)
		switch {
		case b.kind == boundMin && c < 0, b.kind == boundMax && c > 0,
			b.kind == boundExclMin && c <= 0, b.kind == boundExclMax && c >= 0:
			return verdictInvalid
		}
	}
	return verdictValid
}

func (n *quickNode) object(s *quickScanner) verdict {
	res := verdictValid
	// seen, dup and bad are bits of n.props: present, present more than
	// once, and some occurrence is invalid. Only the last occurrence of a
	// key counts after decoding, so an invalid value of a repeated key
	// proves nothing.
	var seen, dup, bad uint64
	for ok := s.open('}'); ok; ok = s.more('}') {
		key := s.key()
		var node *quickNode
		if i := n.lookup(key); i >= 0 {
			bit := uint64(1) << i
			dup |= seen & bit
			seen |= bit
			if node = n.props[i].node; node != nil {
				switch node.check(s) {
				case verdictInvalid:
					bad |= bit
				case verdictUnsure:
					res = max(res, verdictUnsure)
				}
			}
		}
		if node == nil { // not in "properties"
			switch {
			case n.closed:
				s.skip()
				res = verdictInvalid // the key is there, however often
			case n.extra != nil:
				if n.extra.check(s) != verdictValid {
					// Invalid would need to know the key is not
					// repeated later: leave it to the full validator.
					res = max(res, verdictUnsure)
				}
			default:
				s.skip()
			}
		}
	}
	if seen&n.required != n.required || bad&^dup != 0 {
		return verdictInvalid
	}
	if bad&dup != 0 {
		res = max(res, verdictUnsure)
	}
	return res
}

// lookup returns the index of the property named key, or -1.
func (n *quickNode) lookup(key quickString) int {
	if !key.escaped {
		for i := range n.props {
			if string(key.raw) == n.props[i].name {
				return i
			}
		}
		if ascii(key.raw) {
			return -1
		}
	}
	for i := range n.props {
		if key.equal(n.props[i].name) {
			return i
		}
	}
	return -1
}

func (n *quickNode) array(s *quickScanner) verdict {
	res := verdictValid
	count := 0
	for ok := s.open(']'); ok; ok = s.more(']') {
		if n.items != nil {
			res = max(res, n.items.check(s))
		} else {
			s.skip()
		}
		count++
	}
	if n.minItems >= 0 && count < n.minItems || n.maxItems >= 0 && count > n.maxItems {
		return verdictInvalid
	}
	return res
}

// equal decides whether the value at s.i equals v (valid: equal, invalid:
// not equal) and moves past it. Numbers are equal when their values are.
func (s *quickScanner) equal(v *quickValue) verdict {
	c := s.b[s.i]
	kind := byte('d')
	switch c {
	case '{':
		kind = 'o'
	case '[':
		kind = 'a'
	case '"':
		kind = 's'
	case 't', 'f':
		kind = 'b'
	case 'n':
		kind = 'n'
	}
	if kind != v.kind {
		s.skip()
		return verdictInvalid
	}
	switch kind {
	case 'o':
		return s.equalObject(v)
	case 'a':
		return s.equalArray(v)
	case 's':
		if s.str().equal(v.str) {
			return verdictValid
		}
	case 'b':
		s.skip()
		if (c == 't') == v.b {
			return verdictValid
		}
	case 'n':
		s.i += 4
		return verdictValid
	default:
		d, ok := s.number()
		if !ok {
			return verdictUnsure
		}
		if cmpDecimal(&d, &v.num) == 0 {
			return verdictValid
		}
	}
	return verdictInvalid
}

func (s *quickScanner) equalArray(v *quickValue) verdict {
	res := verdictValid
	count := 0
	for ok := s.open(']'); ok; ok = s.more(']') {
		if count < len(v.elems) {
			res = max(res, s.equal(&v.elems[count]))
		} else {
			s.skip()
		}
		count++
	}
	if count != len(v.elems) {
		return verdictInvalid
	}
	return res
}

func (s *quickScanner) equalObject(v *quickValue) verdict {
	// Bits of v.keys: present, repeated, some occurrence unequal, some
	// occurrence unsure.
	var seen, dup, no, unsure uint64
	unknown := false
	for ok := s.open('}'); ok; ok = s.more('}') {
		key := s.key()
		j := -1
		for k := range v.keys {
			if key.equal(v.keys[k]) {
				j = k
				break
			}
		}
		if j < 0 {
			unknown = true
			s.skip()
		} else {
			bit := uint64(1) << j
			dup |= seen & bit
			seen |= bit
			switch s.equal(&v.elems[j]) {
			case verdictInvalid:
				no |= bit
			case verdictUnsure:
				unsure |= bit
			}
		}
	}
	all := uint64(1)<<len(v.keys) - 1
	if len(v.keys) == 64 {
		all = math.MaxUint64
	}
	if unknown || seen != all || no&^dup != 0 {
		return verdictInvalid
	}
	if unsure != 0 || no != 0 {
		return verdictUnsure
	}
	return verdictValid
}
