package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// A quickValidator accepts argument documents that are certainly valid for
// a common subset of JSON Schema (objects of scalars, arrays and nested
// objects; type, required, additionalProperties, enum, minimum, maximum,
// minLength, maxLength, minItems, maxItems) without decoding them into Go
// values. It never rejects: anything it is not sure of goes to the full
// validator, which also writes the messages. A differential fuzz test keeps
// it in step with the full validator.
type quickValidator struct {
	root *quickNode
}

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

type quickNode struct {
	types quickType

	// objects
	props      []quickProp
	required   uint64
	closed     bool // additionalProperties: false
	extraProps *quickNode

	// arrays
	items              *quickNode
	minItems, maxItems int

	// strings
	minLen, maxLen int
	enum           []string // raw JSON of allowed scalar values, compared as written

	// numbers
	min, max float64
}

type quickProp struct {
	name string
	node *quickNode
}

// newQuickValidator returns nil when the schema uses anything outside the
// subset.
func newQuickValidator(raw []byte) *quickValidator {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil
	}
	n := quickCompile(m, 0)
	if n == nil || n.types != qObject {
		return nil
	}
	return &quickValidator{root: n}
}

func quickCompile(m map[string]any, depth int) *quickNode {
	if depth > 8 {
		return nil
	}
	n := &quickNode{minItems: -1, maxItems: -1, minLen: -1, maxLen: -1, min: math.Inf(-1), max: math.Inf(1)}
	var required []any
	for k, v := range m {
		switch k {
		case "description", "title", "default", "examples", "$comment", "$schema":
		case "type":
			switch t := v.(type) {
			case string:
				if n.types = typeBit(t); n.types == 0 {
					return nil
				}
			case []any:
				for _, e := range t {
					s, ok := e.(string)
					if !ok || typeBit(s) == 0 {
						return nil
					}
					n.types |= typeBit(s)
				}
			default:
				return nil
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok || len(props) > 64 {
				return nil
			}
			for name, ps := range props {
				pm, ok := ps.(map[string]any)
				if !ok {
					return nil
				}
				pn := quickCompile(pm, depth+1)
				if pn == nil {
					return nil
				}
				n.props = append(n.props, quickProp{name, pn})
			}
		case "required":
			r, ok := v.([]any)
			if !ok {
				return nil
			}
			required = r
		case "additionalProperties":
			switch a := v.(type) {
			case bool:
				n.closed = !a
			case map[string]any:
				if n.extraProps = quickCompile(a, depth+1); n.extraProps == nil {
					return nil
				}
			default:
				return nil
			}
		case "items":
			im, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			if n.items = quickCompile(im, depth+1); n.items == nil {
				return nil
			}
		case "enum":
			vals, ok := v.([]any)
			if !ok || len(vals) == 0 {
				return nil
			}
			for _, e := range vals {
				s, ok := e.(string)
				if !ok {
					return nil // only string enums take the quick path
				}
				b, _ := json.Marshal(s)
				n.enum = append(n.enum, string(b))
			}
		case "minimum", "maximum":
			num, ok := v.(json.Number)
			if !ok {
				return nil
			}
			f, err := num.Float64()
			if err != nil || len(num) > 15 {
				return nil
			}
			if k == "minimum" {
				n.min = f
			} else {
				n.max = f
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			num, ok := v.(json.Number)
			if !ok {
				return nil
			}
			i, err := num.Int64()
			if err != nil || i < 0 || i > math.MaxInt32 {
				return nil
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
			return nil
		}
	}
	if nonNull := n.types &^ qNull; n.types == 0 || nonNull&(nonNull-1) != 0 {
		return nil // one type, optionally with null
	}
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			return nil
		}
		i := n.prop(name)
		if i < 0 {
			return nil // required but undeclared: leave it to the full validator
		}
		n.required |= 1 << i
	}
	return n
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

// valid reports whether doc is certainly a valid instance. False means
// "invalid or not sure".
func (q *quickValidator) valid(doc []byte) bool {
	if !json.Valid(doc) {
		return false
	}
	s := quickScanner{b: doc}
	s.space()
	if !q.root.check(&s) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

// quickScanner walks a document already known to be valid JSON.
type quickScanner struct {
	b []byte
	i int
}

func (s *quickScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str returns the raw bytes of the string at s.i (quotes included) and
// whether it has escapes.
func (s *quickScanner) str() (raw []byte, escaped bool) {
	start := s.i
	s.i++
	for s.b[s.i] != '"' {
		if s.b[s.i] == '\\' {
			escaped = true
			s.i++
		}
		s.i++
	}
	s.i++
	return s.b[start:s.i], escaped
}

// skip moves past one value.
func (s *quickScanner) skip() {
	switch s.b[s.i] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default: // a number, true, false or null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

func (n *quickNode) check(s *quickScanner) bool {
	switch c := s.b[s.i]; {
	case c == '{':
		return n.types&qObject != 0 && n.object(s)
	case c == '[':
		return n.types&qArray != 0 && n.array(s)
	case c == '"':
		if n.types&qString == 0 {
			return false
		}
		raw, escaped := s.str()
		if escaped {
			return false
		}
		if n.enum != nil {
			found := false
			for _, e := range n.enum {
				if e == string(raw) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCount(raw) - 2
			if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
				return false
			}
		}
		return true
	case c == 't' || c == 'f':
		if n.types&qBoolean == 0 || n.enum != nil {
			return false
		}
		s.i += 4
		if c == 'f' {
			s.i++
		}
		return true
	case c == 'n':
		s.i += 4
		return n.types&qNull != 0 && n.enum == nil
	default:
		return n.number(s)
	}
}

func (n *quickNode) number(s *quickScanner) bool {
	start := s.i
	isInt := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '.' || c == 'e' || c == 'E' {
			isInt = false
		} else if !(c >= '0' && c <= '9' || c == '-' || c == '+') {
			break
		}
		s.i++
	}
	if n.enum != nil || n.types&(qNumber|qInteger) == 0 || !isInt && n.types&qNumber == 0 {
		return false
	}
	if s.i-start > 15 {
		return false // leave big numbers to the exact validator
	}
	if !math.IsInf(n.min, -1) || !math.IsInf(n.max, 1) {
		f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
		if err != nil || f < n.min || f > n.max {
			return false
		}
	}
	return true
}

func (n *quickNode) object(s *quickScanner) bool {
	s.i++
	var seen uint64
	s.space()
	if s.b[s.i] == '}' {
		s.i++
		return n.required == 0
	}
	for {
		s.space()
		raw, escaped := s.str()
		if escaped {
			return false
		}
		key := raw[1 : len(raw)-1]
		s.space()
		s.i++ // ':'
		s.space()
		i := -1
		for j := range n.props {
			if n.props[j].name == string(key) {
				i = j
				break
			}
		}
		switch {
		case i >= 0:
			if seen&(1<<i) != 0 {
				return false // duplicate key: let the full validator decide
			}
			seen |= 1 << i
			if !n.props[i].node.check(s) {
				return false
			}
		case n.closed:
			return false
		case n.extraProps != nil:
			if !n.extraProps.check(s) {
				return false
			}
		default:
			s.skip()
		}
		s.space()
		if s.b[s.i] == '}' {
			s.i++
			return seen&n.required == n.required
		}
		s.i++ // ','
	}
}

func (n *quickNode) array(s *quickScanner) bool {
	s.i++
	count := 0
	s.space()
	if s.b[s.i] == ']' {
		s.i++
	} else {
		for {
			s.space()
			if n.items != nil {
				if !n.items.check(s) {
					return false
				}
			} else {
				s.skip()
			}
			count++
			s.space()
			if s.b[s.i] == ']' {
				s.i++
				break
			}
			s.i++
		}
	}
	return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}
