package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wieldhq/wield/llm/internal/wire"
)

// partialArg is genai.PartialArg as it arrives: genai's type cannot tell
// an empty stringValue (which closes a streamed string) from an absent
// one, and turns numbers into float64.
type partialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue,omitempty"`
	NumberValue  json.RawMessage `json:"numberValue,omitempty"`
	BoolValue    *bool           `json:"boolValue,omitempty"`
	NullValue    *string         `json:"nullValue,omitempty"`
	WillContinue bool            `json:"willContinue,omitempty"`
}

// maxArgDepth, maxArgIndex and maxArgNodes bound what JSON paths may
// build, so that a broken stream cannot exhaust memory.
const (
	maxArgDepth = 64
	maxArgIndex = 1 << 16
	maxArgNodes = 1 << 20
)

// An argTree builds a call's arguments from partialArgs: each sets one
// value at a JSON path ("$.recipe.steps[1]"), creating the objects and
// arrays on the way; a string whose arg says willContinue is continued by
// the next value for the same path. Keys keep the order they arrived in.
type argTree struct {
	root  argNode
	nodes int // how many nodes the paths created
}

// An argNode is one value of the tree.
type argNode struct {
	kind   byte // 'o' object, 'a' array, 's' string, 'v' other JSON value; 0 is null
	keys   []string
	fields map[string]*argNode
	items  []*argNode
	str    strings.Builder
	open   bool   // a string still streaming
	raw    string // the JSON text of a 'v'
}

// A pathStep is a key or an index of a JSON path.
type pathStep struct {
	key   string
	index int // -1 for a key
}

// set applies one partial argument.
func (t *argTree) set(pa *partialArg) error {
	steps, err := parsePath(pa.JSONPath)
	if err != nil {
		return err
	}
	if len(steps) == 0 {
		return fmt.Errorf("partial argument for the whole arguments object (%q)", pa.JSONPath)
	}
	if t.root.kind == 0 {
		t.root.kind = 'o'
	}
	n := &t.root
	for _, s := range steps {
		if s.index >= 0 && s.index >= len(n.items) {
			t.nodes += s.index + 1 - len(n.items)
		} else {
			t.nodes++
		}
		if t.nodes > maxArgNodes {
			return fmt.Errorf("JSON path %q: the arguments have more than %d values", pa.JSONPath, maxArgNodes)
		}
		if n, err = n.child(s); err != nil {
			return fmt.Errorf("JSON path %q: %w", pa.JSONPath, err)
		}
	}
	switch {
	case pa.NumberValue != nil:
		v := jsonNumber(pa.NumberValue)
		if v == "" {
			return fmt.Errorf("JSON path %q: numberValue %s is not a JSON number", pa.JSONPath, wireClip(pa.NumberValue))
		}
		n.reset('v')
		n.raw = v
	case pa.BoolValue != nil:
		n.reset('v')
		n.raw = strconv.FormatBool(*pa.BoolValue)
	case pa.NullValue != nil:
		n.reset(0)
	default: // stringValue, or nothing: the empty string that closes one
		if n.kind != 's' || !n.open {
			n.reset('s')
		}
		if pa.StringValue != nil {
			n.str.WriteString(*pa.StringValue)
		}
		n.open = pa.WillContinue
	}
	return nil
}

// reset makes n an empty value of kind.
func (n *argNode) reset(kind byte) {
	*n = argNode{kind: kind}
}

// child returns n's member at step, creating it, and n as the container
// the step needs.
func (n *argNode) child(s pathStep) (*argNode, error) {
	if s.index < 0 {
		switch n.kind {
		case 0, 's', 'v':
			n.reset('o')
		case 'a':
			return nil, fmt.Errorf("key %q into an array", s.key)
		}
		if n.fields == nil {
			n.fields = map[string]*argNode{}
		}
		c := n.fields[s.key]
		if c == nil {
			c = &argNode{}
			n.fields[s.key] = c
			n.keys = append(n.keys, s.key)
		}
		return c, nil
	}
	switch n.kind {
	case 0, 's', 'v':
		n.reset('a')
	case 'o':
		return nil, fmt.Errorf("index %d into an object", s.index)
	}
	if s.index >= maxArgIndex {
		return nil, fmt.Errorf("index %d is too large", s.index)
	}
	for len(n.items) <= s.index {
		n.items = append(n.items, &argNode{})
	}
	return n.items[s.index], nil
}

// parsePath splits a JSON path such as $.a.b[2]['c d'] into its steps.
func parsePath(p string) ([]pathStep, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(p), "$")
	if !ok {
		return nil, fmt.Errorf("JSON path %q does not start with $", p)
	}
	var steps []pathStep
	for rest != "" {
		if len(steps) >= maxArgDepth {
			return nil, fmt.Errorf("JSON path %q is deeper than %d", p, maxArgDepth)
		}
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("JSON path %q has an empty key", p)
			}
			steps = append(steps, pathStep{key: rest[:end], index: -1})
			rest = rest[end:]
		case '[':
			if len(rest) > 1 && (rest[1] == '\'' || rest[1] == '"') {
				// A quoted key, which may hold '.' or ']' itself.
				end := strings.IndexByte(rest[2:], rest[1])
				if end < 0 || !strings.HasPrefix(rest[2+end+1:], "]") {
					return nil, fmt.Errorf("JSON path %q has an unclosed quoted key", p)
				}
				steps = append(steps, pathStep{key: rest[2 : 2+end], index: -1})
				rest = rest[2+end+2:]
				continue
			}
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("JSON path %q has an unclosed [", p)
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 {
				return nil, fmt.Errorf("JSON path %q has a bad index %q", p, rest[1:end])
			}
			steps = append(steps, pathStep{index: i})
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("JSON path %q: unexpected %q", p, rest[0])
		}
	}
	return steps, nil
}

// json returns the arguments built so far as a JSON object.
func (t *argTree) json() json.RawMessage {
	var b bytes.Buffer
	t.root.write(&b)
	if t.root.kind != 'o' {
		return json.RawMessage("{}")
	}
	return b.Bytes()
}

func (n *argNode) write(b *bytes.Buffer) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.fields[k].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, c := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			c.write(b)
		}
		b.WriteByte(']')
	case 's':
		writeString(b, n.str.String())
	case 'v':
		b.WriteString(n.raw)
	default:
		b.WriteString("null")
	}
}

// writeString writes s as a JSON string, escaping only what JSON requires
// (the text stays as the model wrote it, unlike json.Marshal's HTML
// escapes).
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04x`, c)
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		i++
	}
	b.WriteByte('"')
}

// jsonNumber returns the JSON number in raw (which proto3 JSON may quote),
// or "" when it is none.
func jsonNumber(raw json.RawMessage) string {
	v := strings.TrimSpace(string(raw))
	if uq, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
		v = uq
	}
	if v == "" || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) || !json.Valid([]byte(v)) {
		return ""
	}
	return v
}

func wireClip(raw []byte) string { return wire.Clip(string(raw), 100) }
