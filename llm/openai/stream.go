package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// errNoEvents is returned by readStream for a body without any event.
var errNoEvents = fmt.Errorf("%w: the reply has no stream events", llm.ErrProtocol)

// readStream reads a streamed reply and assembles it.
func readStream(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	a := newAssembler(names, handle)
	sse := wire.NewSSEReader(r)
	for n := 1; ; n++ {
		event, data, err := sse.Next()
		if err == io.EOF {
			if n == 1 {
				return nil, errNoEvents
			}
			break
		}
		if err != nil {
			return nil, err
		}
		payload := bytes.TrimSpace(data)
		if string(payload) == "[DONE]" {
			if n == 1 {
				return nil, fmt.Errorf("%w: the reply stream ended ([DONE]) before any chunk", llm.ErrProtocol)
			}
			a.done = true
			break
		}
		if event == "error" {
			return nil, streamError(payload)
		}
		if err := a.chunk(payload); err != nil {
			return nil, fmt.Errorf("%w: stream event %d: %w", llm.ErrProtocol, n, err)
		}
		if a.err != nil {
			return nil, a.err
		}
	}
	return a.finish()
}

// readResponse reads a reply that came whole (application/json).
func readResponse(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	data, err := wire.ReadAll(r)
	if err != nil {
		return nil, err
	}
	a := newAssembler(names, handle)
	a.done = true
	if err := a.completion(data); err != nil {
		return nil, fmt.Errorf("%w: %w", llm.ErrProtocol, err)
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.finish()
}

// An assembler builds a response from chunks of the first choice.
type assembler struct {
	names  *wire.Names
	handle func(llm.Event)

	id, model string
	text      strings.Builder
	reasoning strings.Builder
	calls     []*callState         // in the order they began
	byIndex   map[int64]*callState // by the index the endpoint gave them
	finishRaw string
	usage     llm.Usage
	done      bool  // the end marker was seen
	err       error // an error object in the reply
}

// A callState is one tool call being assembled.
type callState struct {
	id, name string
	args     strings.Builder
}

func newAssembler(names *wire.Names, handle func(llm.Event)) *assembler {
	if handle == nil {
		handle = func(llm.Event) {}
	}
	return &assembler{names: names, handle: handle, byIndex: map[int64]*callState{}}
}

// chunk applies one streamed chat.completion.chunk.
func (a *assembler) chunk(data []byte) error {
	c, ok := decodeFast(data)
	if !ok {
		var err error
		if c, err = decodeSDK(data); err != nil {
			return err
		}
	}
	if isSetRaw(c.errRaw) {
		a.err = streamError(c.errRaw)
		return nil
	}
	a.meta(c.id, c.model)
	if c.usage != nil {
		a.usage = llm.Usage{InputTokens: int(c.usage.prompt), OutputTokens: int(c.usage.completion),
			ReasoningTokens: int(c.usage.reasoning), CachedTokens: int(c.usage.cached)}
	} else if isSetRaw(c.groq) {
		var x struct {
			Usage *openaisdk.CompletionUsage `json:"usage"`
		}
		if json.Unmarshal(c.groq, &x) == nil && x.Usage != nil {
			a.setUsage(*x.Usage)
		}
	}
	for _, ch := range c.choices {
		if ch.index != 0 {
			continue // only the first choice is used; wield never asks for more
		}
		a.addReasoningRaw(ch.reasoningContent, ch.reasoning)
		if ch.content != nil {
			a.addText(*ch.content)
		}
		if ch.refusal != nil {
			a.addText(*ch.refusal)
		}
		for _, tc := range ch.calls {
			index := int64(-1)
			if tc.index != nil {
				index = *tc.index
			}
			a.addCall(index, tc.id, tc.name, tc.arguments)
		}
		if ch.finish != "" {
			a.finishRaw = ch.finish
		}
	}
	return nil
}

// decodeSDK decodes a chunk with the SDK.
func decodeSDK(data []byte) (chunkFields, error) {
	var c openaisdk.ChatCompletionChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return chunkFields{}, fmt.Errorf("not a chat completion chunk: %w (data %q)", err, wire.Clip(string(data), 200))
	}
	f := chunkFields{id: c.ID, model: c.Model, errRaw: extraRaw(c.JSON.ExtraFields, "error"), groq: extraRaw(c.JSON.ExtraFields, "x_groq")}
	if c.JSON.Usage.Valid() {
		u := c.Usage
		f.usage = &usageFields{prompt: u.PromptTokens, completion: u.CompletionTokens,
			reasoning: u.CompletionTokensDetails.ReasoningTokens, cached: u.PromptTokensDetails.CachedTokens}
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		cf := choiceFields{index: ch.Index, finish: ch.FinishReason,
			reasoningContent: extraRaw(d.JSON.ExtraFields, "reasoning_content"), reasoning: extraRaw(d.JSON.ExtraFields, "reasoning")}
		if d.JSON.Content.Valid() {
			cf.content = &d.Content
		}
		if d.JSON.Refusal.Valid() {
			cf.refusal = &d.Refusal
		}
		for _, tc := range d.ToolCalls {
			call := callFields{id: tc.ID, name: tc.Function.Name, arguments: tc.Function.Arguments}
			if tc.JSON.Index.Valid() {
				call.index = &tc.Index
			}
			cf.calls = append(cf.calls, call)
		}
		f.choices = append(f.choices, cf)
	}
	return f, nil
}

// extraRaw returns the raw value of an extra field, nil when absent.
func extraRaw(extra map[string]respjson.Field, key string) []byte {
	if f, ok := extra[key]; ok && f.Raw() != "" {
		return []byte(f.Raw())
	}
	return nil
}

// isSetRaw reports whether a raw optional value is present and not null.
func isSetRaw(raw []byte) bool { return len(raw) > 0 && string(raw) != "null" }

// completion applies a whole chat.completion.
func (a *assembler) completion(data []byte) error {
	var c openaisdk.ChatCompletion
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("not a chat completion: %w (data %q)", err, wire.Clip(string(data), 200))
	}
	if e, ok := c.JSON.ExtraFields["error"]; ok && isSet(e) {
		a.err = streamError([]byte(e.Raw()))
		return nil
	}
	if len(c.Choices) == 0 {
		return errors.New("the reply has no choices")
	}
	a.meta(c.ID, c.Model)
	if c.JSON.Usage.Valid() {
		a.setUsage(c.Usage)
	}
	m := c.Choices[0].Message
	a.addReasoning(m.JSON.ExtraFields)
	a.addText(m.Content)
	if m.JSON.Refusal.Valid() {
		a.addText(m.Refusal)
	}
	for i, tc := range m.ToolCalls {
		a.addCall(int64(i), tc.ID, tc.Function.Name, tc.Function.Arguments)
	}
	a.finishRaw = c.Choices[0].FinishReason
	return nil
}

// isSet reports whether an optional field is present and not null.
func isSet(f respjson.Field) bool { return f.Raw() != "" && f.Raw() != "null" }

func (a *assembler) meta(id, model string) {
	if a.id == "" {
		a.id = id
	}
	if a.model == "" {
		a.model = model
	}
}

func (a *assembler) setUsage(u openaisdk.CompletionUsage) {
	a.usage = llm.Usage{
		InputTokens:     int(u.PromptTokens),
		OutputTokens:    int(u.CompletionTokens),
		ReasoningTokens: int(u.CompletionTokensDetails.ReasoningTokens),
		CachedTokens:    int(u.PromptTokensDetails.CachedTokens),
	}
}

func (a *assembler) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.handle(llm.Event{Kind: llm.EventText, Text: s})
}

// addReasoning takes reasoning text from "reasoning_content" (DeepSeek,
// Qwen, xAI, Kimi, vLLM) or, failing that, "reasoning" (Groq, OpenRouter,
// newer vLLM): servers that send both send the same text twice.
func (a *assembler) addReasoning(extra map[string]respjson.Field) {
	a.addReasoningRaw(extraRaw(extra, "reasoning_content"), extraRaw(extra, "reasoning"))
}

// addReasoningRaw is addReasoning for the raw values of the two fields
// (nil when absent).
func (a *assembler) addReasoningRaw(fields ...[]byte) {
	for _, raw := range fields {
		if !isSetRaw(raw) {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue // not text, such as a structured reasoning object
		}
		if s != "" {
			a.reasoning.WriteString(s)
			a.handle(llm.Event{Kind: llm.EventReasoning, Text: s})
		}
		return
	}
}

// addCall applies a tool-call delta. index is -1 when the delta has none.
//
// Endpoints differ in how they number calls: indexes may start at 1 or
// skip values, some omit the index, some send parallel calls all at index
// 0 with distinct ids, and later deltas may repeat the type or carry an
// empty id or name. So: a delta without index continues the latest call
// unless it brings a new id; a delta whose id differs from its index's
// call starts a new call; an empty id or name never replaces one.
func (a *assembler) addCall(index int64, id, name, args string) {
	var c *callState
	if index >= 0 {
		c = a.byIndex[index]
	} else if n := len(a.calls); n > 0 {
		c = a.calls[n-1]
	}
	if c != nil && id != "" && c.id != "" && id != c.id {
		c = nil
	}
	if c == nil {
		if id == "" && name == "" && args == "" {
			return // an empty delta that begins nothing
		}
		c = &callState{}
		a.calls = append(a.calls, c)
		if index >= 0 {
			a.byIndex[index] = c
		}
	}
	if c.id == "" {
		c.id = id
	}
	switch {
	case c.name == "":
		c.name = name
	case name != "" && name != c.name:
		c.name += name // a name streamed in pieces
	}
	c.args.WriteString(args)
}

// finish checks the assembled reply and returns it.
func (a *assembler) finish() (*llm.Response, error) {
	if !a.done && a.finishRaw == "" {
		return nil, fmt.Errorf("%w: the reply stream ended before the reply was complete (no finish reason and no [DONE])", llm.ErrProtocol)
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String()}
	for i, c := range a.calls {
		if c.name == "" {
			return nil, fmt.Errorf("%w: tool call %d has no function name", llm.ErrProtocol, i+1)
		}
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(i+1)
			if a.id != "" {
				id = "call_" + a.id + "_" + strconv.Itoa(i+1)
			}
		}
		args := callArguments(c.args.String())
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: a.names.Original(c.name), Arguments: json.RawMessage(args)})
	}
	switch finishKind(a.finishRaw) {
	case finishError:
		return nil, &llm.APIError{Status: 500, Message: fmt.Sprintf("the reply ended with finish reason %q", a.finishRaw)}
	case finishUnknown:
		if msg.Content == "" && len(msg.ToolCalls) == 0 {
			return nil, fmt.Errorf("%w: the reply ended with the unknown finish reason %q and no text or tool calls", llm.ErrProtocol, a.finishRaw)
		}
	}
	stop := stopReason(a.finishRaw, len(msg.ToolCalls) > 0)
	if stop == llm.StopMaxTokens {
		// A call cut off at the output limit has unfinished arguments.
		msg.ToolCalls = slices.DeleteFunc(msg.ToolCalls, func(c llm.ToolCall) bool { return !json.Valid(c.Arguments) })
	}
	for i := range msg.ToolCalls {
		a.handle(llm.Event{Kind: llm.EventToolCall, ToolCall: &msg.ToolCalls[i]})
	}
	return &llm.Response{ID: a.id, Model: a.model, Message: msg, FinishReason: a.finishRaw, Stop: stop, Usage: a.usage}, nil
}

// stopReason maps a finish reason to wield's terms.
func stopReason(reason string, calls bool) llm.StopReason {
	switch reason {
	case "length", "max_tokens", "model_length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	if calls {
		return llm.StopToolUse
	}
	switch reason {
	case "stop", "eos", "end_turn", "stop_sequence", "", "tool_calls", "tool_use", "function_call":
		return llm.StopEnd
	}
	return llm.StopOther
}

// callArguments returns the arguments of a call as streamed: "{}" for
// none, and one copy of a valid JSON text that some servers send twice (in
// pieces, then again whole in the last delta).
func callArguments(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" {
		return "{}" // an argument-less call
	}
	if n := len(s); n%2 == 0 && s[:n/2] == s[n/2:] && !json.Valid([]byte(s)) && json.Valid([]byte(s[:n/2])) {
		return s[:n/2]
	}
	return s
}

type finishClass int

const (
	finishNone finishClass = iota
	finishNormal
	finishError
	finishUnknown
)

// finishKind classifies a finish reason. The known values are OpenAI's and
// those OpenAI-compatible servers are seen to send.
func finishKind(reason string) finishClass {
	switch reason {
	case "":
		return finishNone
	case "stop", "length", "tool_calls", "content_filter", "function_call",
		"eos", "end_turn", "stop_sequence", "max_tokens", "model_length", "tool_use":
		return finishNormal
	case "error":
		return finishError
	default:
		return finishUnknown
	}
}
