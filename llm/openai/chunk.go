package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// chunkFields is what an assembler reads of a chat.completion.chunk,
// however it was decoded.
type chunkFields struct {
	id, model    string
	usage        *usageFields // nil when the chunk has none (absent or null)
	errRaw, groq []byte       // the raw "error" and "x_groq" values, when present
	choices      []choiceFields
}

type usageFields struct {
	prompt, completion, reasoning, cached int64
}

type choiceFields struct {
	index                       int64
	reasoningContent, reasoning []byte  // raw, when present
	content, refusal            *string // nil when absent or null
	calls                       []callFields
	finish                      string
}

type callFields struct {
	index               *int64 // nil when absent or null
	id, name, arguments string
}

// The chunks of a stream are decoded by the SDK, whose decoder is
// lenient (a number where a string belongs becomes its text, and so on)
// and slow: it reflects over the SDK's types for every event, which made
// it a tenth of a round's cost. A chunk in the form endpoints send (the
// fields below, with the JSON types the API gives them, each once, in
// valid UTF-8, without escaped surrogates) is decoded by encoding/json
// instead: on such a chunk the two decoders agree (FuzzChunkDecoders
// checks it), and any other chunk goes to the SDK.

// A shape is the form a JSON value may take in a chunk decoded fast.
type shape struct {
	kinds  string            // the kinds allowed: s string, i integer, n null, o object, a array, * any value
	fields map[string]*shape // an object's fields
	elem   *shape            // an array's elements
}

var (
	anyValue   = &shape{kinds: "*"}
	nullString = &shape{kinds: "sn"}
	nullInt    = &shape{kinds: "in"}
	chunkShape = &shape{kinds: "o", fields: map[string]*shape{
		"id": nullString, "object": nullString, "created": nullInt, "model": nullString,
		"system_fingerprint": nullString, "service_tier": nullString, "obfuscation": nullString,
		"error": anyValue, "x_groq": anyValue,
		"choices": {kinds: "an", elem: &shape{kinds: "o", fields: map[string]*shape{
			"index": nullInt, "finish_reason": nullString, "logprobs": {kinds: "n"},
			"delta": {kinds: "o", fields: map[string]*shape{
				"role": nullString, "content": nullString, "refusal": nullString,
				"reasoning_content": anyValue, "reasoning": anyValue,
				"tool_calls": {kinds: "an", elem: &shape{kinds: "o", fields: map[string]*shape{
					"index": nullInt, "id": nullString, "type": nullString,
					"function": {kinds: "o", fields: map[string]*shape{"name": nullString, "arguments": nullString}},
				}}},
			}},
		}}},
		"usage": {kinds: "on", fields: map[string]*shape{
			"prompt_tokens": nullInt, "completion_tokens": nullInt, "total_tokens": nullInt,
			"prompt_tokens_details": {kinds: "on", fields: map[string]*shape{"cached_tokens": nullInt, "audio_tokens": nullInt}},
			"completion_tokens_details": {kinds: "on", fields: map[string]*shape{"reasoning_tokens": nullInt, "audio_tokens": nullInt,
				"accepted_prediction_tokens": nullInt, "rejected_prediction_tokens": nullInt}},
		}},
	}}
)

// fastChunk is a chunk as encoding/json decodes it.
type fastChunk struct {
	ID    string          `json:"id"`
	Model string          `json:"model"`
	Error json.RawMessage `json:"error"`
	XGroq json.RawMessage `json:"x_groq"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Choices []struct {
		Index        int64  `json:"index"`
		FinishReason string `json:"finish_reason"`
		Delta        struct {
			Content          *string         `json:"content"`
			Refusal          *string         `json:"refusal"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        []struct {
				Index    *int64 `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

// decodeFast decodes a chunk in the usual form; ok is false for any
// other, which the SDK decodes.
func decodeFast(data []byte) (f chunkFields, ok bool) {
	if !utf8.Valid(data) {
		return f, false
	}
	s := scanner{data: data}
	s.space()
	if !s.value(chunkShape) {
		return f, false
	}
	if s.space(); s.i != len(data) {
		return f, false
	}
	var c fastChunk
	if json.Unmarshal(data, &c) != nil {
		return f, false
	}
	f = chunkFields{id: c.ID, model: c.Model, errRaw: present(c.Error), groq: present(c.XGroq)}
	if u := c.Usage; u != nil {
		f.usage = &usageFields{prompt: u.PromptTokens, completion: u.CompletionTokens,
			reasoning: u.CompletionTokensDetails.ReasoningTokens, cached: u.PromptTokensDetails.CachedTokens}
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		cf := choiceFields{index: ch.Index, content: d.Content, refusal: d.Refusal, finish: ch.FinishReason,
			reasoningContent: present(d.ReasoningContent), reasoning: present(d.Reasoning)}
		for _, tc := range d.ToolCalls {
			cf.calls = append(cf.calls, callFields{index: tc.Index, id: tc.ID, name: tc.Function.Name, arguments: tc.Function.Arguments})
		}
		f.choices = append(f.choices, cf)
	}
	return f, true
}

// present returns a raw value as a field of chunkFields: nil when absent.
func present(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// A scanner checks that a JSON text has a shape.
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one value of shape sh (nil: any value).
func (s *scanner) value(sh *shape) bool {
	if s.i >= len(s.data) {
		return false
	}
	free := sh == nil || sh.kinds == "*"
	allows := func(k byte) bool { return free || strings.IndexByte(sh.kinds, k) >= 0 }
	switch c := s.data[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok && allows('s')
	case c == 'n':
		return s.word("null") && allows('n')
	case c == 't':
		return s.word("true") && free
	case c == 'f':
		return s.word("false") && free
	case c == '-' || c >= '0' && c <= '9':
		ok, integer := s.number()
		return ok && (free || integer && allows('i'))
	case c == '[':
		if !allows('a') {
			return false
		}
		var elem *shape
		if !free {
			elem = sh.elem
		}
		s.i++
		s.space()
		if s.i < len(s.data) && s.data[s.i] == ']' {
			s.i++
			return true
		}
		for {
			s.space()
			if !s.value(elem) {
				return false
			}
			if more, ok := s.next(']'); !more {
				return ok
			}
		}
	case c == '{':
		if !allows('o') {
			return false
		}
		s.i++
		s.space()
		if s.i < len(s.data) && s.data[s.i] == '}' {
			s.i++
			return true
		}
		var seen map[string]bool
		for {
			s.space()
			key, ok := s.str()
			if !ok {
				return false
			}
			var field *shape
			if !free {
				if field = sh.fields[string(key)]; field == nil || seen[string(key)] {
					return false // an unknown or repeated field
				}
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[string(key)] = true
			}
			s.space()
			if s.i >= len(s.data) || s.data[s.i] != ':' {
				return false
			}
			s.i++
			s.space()
			if !s.value(field) {
				return false
			}
			if more, ok := s.next('}'); !more {
				return ok
			}
		}
	}
	return false
}

// next reads what follows an array's element or an object member's
// value: a comma, when more follow (more), or end, which closes the
// array or object. ok is false for anything else.
func (s *scanner) next(end byte) (more, ok bool) {
	s.space()
	if s.i >= len(s.data) {
		return false, false
	}
	s.i++
	switch s.data[s.i-1] {
	case ',':
		return true, true
	case end:
		return false, true
	}
	return false, false
}

// str reads a string and returns its raw content; false for a string
// with an escaped surrogate, or a key with any escape.
func (s *scanner) str() ([]byte, bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.i = i + 1
			return s.data[start:i], true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if i+1 >= len(s.data) {
				return nil, false
			}
			i++
			switch s.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.data) {
					return nil, false
				}
				var r rune
				for _, h := range s.data[i+1 : i+5] {
					switch {
					case h >= '0' && h <= '9':
						r = r<<4 | rune(h-'0')
					case h >= 'a' && h <= 'f':
						r = r<<4 | rune(h-'a'+10)
					case h >= 'A' && h <= 'F':
						r = r<<4 | rune(h-'A'+10)
					default:
						return nil, false
					}
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return nil, false
				}
				i += 4
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

func (s *scanner) word(w string) bool {
	if !bytes.HasPrefix(s.data[s.i:], []byte(w)) {
		return false
	}
	s.i += len(w)
	return true
}

// number reads a number and reports whether it is one and whether it is
// an integer: no fraction, no exponent.
func (s *scanner) number() (ok, integer bool) {
	digits := func() int {
		start := s.i
		for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
			s.i++
		}
		return s.i - start
	}
	if s.data[s.i] == '-' {
		s.i++
	}
	first := s.i
	if n := digits(); n == 0 || n > 1 && s.data[first] == '0' {
		return false, false
	}
	integer = true
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false, false
		}
		integer = false
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false, false
		}
		integer = false
	}
	return true, integer
}
