package geminitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
		var steps []json.RawMessage
		if streamArgs || cutOff {
			var err error
			if steps, err = PartialArgs(args); err != nil || len(steps) == 0 {
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
				add(map[string]any{"functionCall": map[string]any{"willContinue": true, "partialArgs": steps[:1]}})
			}
		case steps != nil:
			open["willContinue"] = true
			add(first)
			for _, s := range steps {
				add(map[string]any{"functionCall": map[string]any{"willContinue": true, "partialArgs": []json.RawMessage{s}}})
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

// errEmpty reports an empty object or array, which partialArgs cannot
// express.
var errEmpty = errors.New("an empty object or array cannot be streamed as partialArgs")

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// PartialArgs returns the partialArgs that stream args, a JSON object, as
// Vertex AI streams function-call arguments: one per value, at its JSON
// path ("$.recipe.steps[1]"), in order; a string is opened with
// willContinue and closed by an empty stringValue for the same path. An
// object or array that is empty, or a key with a quote in it, cannot be
// expressed and is an error.
func PartialArgs(args json.RawMessage) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the arguments are not a JSON object")
	}
	var out []json.RawMessage
	if err := walkObject(dec, "$", &out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the arguments")
	}
	return out, nil
}

// walkObject walks the members of an object whose '{' was read.
func walkObject(dec *json.Decoder, path string, out *[]json.RawMessage) error {
	n := 0
	for ; dec.More(); n++ {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := k.(string)
		sub := path + "." + key
		if !identRE.MatchString(key) {
			if strings.ContainsAny(key, `'"`) {
				return fmt.Errorf("key %q has a quote", key)
			}
			sub = path + "['" + key + "']"
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
	return nil
}

// walk appends the partialArgs of the value at path.
func walk(dec *json.Decoder, path string, out *[]json.RawMessage) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	add := func(v map[string]any) {
		v["jsonPath"] = path
		b, _ := json.Marshal(v)
		*out = append(*out, b)
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return walkObject(dec, path, out)
		}
		n := 0
		for ; dec.More(); n++ {
			if err := walk(dec, path+"["+strconv.Itoa(n)+"]", out); err != nil {
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
		add(map[string]any{"stringValue": v, "willContinue": true})
		add(map[string]any{"stringValue": ""})
	case json.Number:
		add(map[string]any{"numberValue": v})
	case bool:
		add(map[string]any{"boolValue": v})
	case nil:
		add(map[string]any{"nullValue": "NULL_VALUE"})
	}
	return nil
}
