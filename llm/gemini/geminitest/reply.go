package geminitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
)

// reply returns the GenerateContentResponse chunks that stream e.
func reply(e replay.Entry, responseID, model string, streamArgs bool) [][]byte {
	var chunks []map[string]any
	add := func(parts ...map[string]any) {
		chunks = append(chunks, map[string]any{"content": map[string]any{"role": "model", "parts": parts}})
	}
	if e.Reasoning != "" {
		add(map[string]any{"text": e.Reasoning, "thought": true})
	}
	var textSigs []string
	for _, t := range e.Thinking {
		switch {
		case t.Provider != "gemini" || t.Signature == "":
		case t.Text != "":
			add(map[string]any{"text": t.Text, "thought": true, "thoughtSignature": t.Signature})
		default:
			textSigs = append(textSigs, t.Signature)
		}
	}
	for _, w := range pieces(e.Text) {
		add(map[string]any{"text": w})
	}
	finish := finishReason(e)
	for i, c := range e.ToolCalls {
		args := arguments(c.Arguments)
		cutOff := finish == "MAX_TOKENS" && i == len(e.ToolCalls)-1
		var steps []leaf
		if streamArgs || cutOff {
			var err error
			if steps, err = leaves(args); err != nil || len(steps) == 0 {
				steps = nil
			}
		}
		open := map[string]any{"name": c.Name}
		if c.ID != "" {
			open["id"] = c.ID
		}
		first := map[string]any{"functionCall": open}
		if c.Signature != "" {
			first["thoughtSignature"] = c.Signature
		}
		switch {
		case cutOff:
			open["willContinue"] = true
			add(first)
			if len(steps) > 0 {
				// Cut off in the first value: the output limit came.
				add(map[string]any{"functionCall": map[string]any{"willContinue": true,
					"partialArgs": []any{steps[0].open()}}})
			}
		case steps != nil:
			open["willContinue"] = true
			add(first)
			for _, s := range steps {
				add(map[string]any{"functionCall": map[string]any{"willContinue": true, "partialArgs": []any{s.open()}}})
				if s.close != nil {
					add(map[string]any{"functionCall": map[string]any{"willContinue": true, "partialArgs": []any{s.close}}})
				}
			}
			add(map[string]any{"functionCall": map[string]any{}})
		default:
			open["args"] = args
			add(first)
		}
	}
	last := []map[string]any{}
	for _, sig := range textSigs {
		last = append(last, map[string]any{"text": "", "thoughtSignature": sig})
	}
	if len(last) == 0 {
		last = append(last, map[string]any{"text": ""})
	}
	add(last...)
	chunks[len(chunks)-1]["finishReason"] = finish
	usage := map[string]any{
		"promptTokenCount":        e.Usage.InputTokens,
		"candidatesTokenCount":    e.Usage.OutputTokens - e.Usage.ReasoningTokens,
		"thoughtsTokenCount":      e.Usage.ReasoningTokens,
		"cachedContentTokenCount": e.Usage.CachedTokens,
		"totalTokenCount":         e.Usage.InputTokens + e.Usage.OutputTokens,
	}
	if model == "" {
		model = "geminitest"
	}
	if e.Model != "" {
		model = e.Model
	}
	out := make([][]byte, len(chunks))
	for i, c := range chunks {
		r := map[string]any{"candidates": []any{c}, "modelVersion": model, "responseId": responseID}
		if i == len(chunks)-1 {
			r["usageMetadata"] = usage
		} else {
			r["usageMetadata"] = map[string]any{"trafficType": "ON_DEMAND"}
		}
		out[i], _ = json.Marshal(r)
	}
	return out
}

// finishReason is the Gemini finish reason for e.
func finishReason(e replay.Entry) string {
	switch {
	case e.Stop == llm.StopMaxTokens, e.FinishReason == "length", e.FinishReason == "max_tokens":
		return "MAX_TOKENS"
	case e.FinishReason != "" && e.FinishReason != "stop" && e.FinishReason != "tool_calls":
		return e.FinishReason
	}
	return "STOP"
}

// pieces cuts text into a few parts, as a stream delivers it.
func pieces(text string) []string {
	if text == "" {
		return nil
	}
	words := strings.SplitAfter(text, " ")
	n := max(1, (len(words)+2)/3)
	var out []string
	for i := 0; i < len(words); i += n {
		out = append(out, strings.Join(words[i:min(i+n, len(words))], ""))
	}
	return out
}

// arguments returns a call's arguments as Gemini sends them: an object.
// A JSON string holds the raw text (replay's convention for malformed
// arguments); Gemini cannot send text that is not an object, so text that
// is not JSON is sent as a string value.
func arguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
	}
	return raw
}

// A leaf is one value of streamed arguments.
type leaf struct {
	path  string
	value map[string]any // the partialArg without its path
	close map[string]any // for a string: the arg that closes it
}

func (l leaf) open() map[string]any {
	m := map[string]any{"jsonPath": l.path}
	for k, v := range l.value {
		m[k] = v
	}
	return m
}

// errEmpty reports an empty object or array, which partialArgs cannot
// express.
var errEmpty = errors.New("an empty object or array")

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// leaves returns the values of an arguments object with their JSON paths,
// in order.
func leaves(args json.RawMessage) ([]leaf, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var out []leaf
	if err := walk(dec, "$", &out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the arguments")
	}
	return out, nil
}

func walk(dec *json.Decoder, path string, out *[]leaf) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := 0
		for ; dec.More(); n++ {
			sub := path + "[" + strconv.Itoa(n) + "]"
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if identRE.MatchString(key) {
					sub = path + "." + key
				} else {
					sub = path + "['" + key + "']"
				}
			}
			if err := walk(dec, sub, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		if n == 0 {
			return errEmpty
		}
	case string:
		*out = append(*out, leaf{path: path, value: map[string]any{"stringValue": v, "willContinue": true},
			close: map[string]any{"jsonPath": path, "stringValue": ""}})
	case json.Number:
		*out = append(*out, leaf{path: path, value: map[string]any{"numberValue": v}})
	case bool:
		*out = append(*out, leaf{path: path, value: map[string]any{"boolValue": v}})
	case nil:
		*out = append(*out, leaf{path: path, value: map[string]any{"nullValue": "NULL_VALUE"}})
	}
	return nil
}
