package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/respjson"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// errNoEvents is returned by readStream for a body without any event.
var errNoEvents = fmt.Errorf("%w: the reply has no stream events", llm.ErrProtocol)

// readStream reads a streamed reply and assembles it.
func readStream(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	a := newAssembler(names, handle)
	sse := wire.NewSSEReader(r)
	for n := 1; !a.stopped; n++ {
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
		if err := a.event(event, bytes.TrimSpace(data)); err != nil {
			if _, ok := errors.AsType[*llm.APIError](err); ok {
				return nil, err
			}
			return nil, fmt.Errorf("%w: stream event %d: %w", llm.ErrProtocol, n, err)
		}
	}
	return a.finish()
}

// readResponse reads a reply that came whole (application/json), as a
// proxy may send it.
func readResponse(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	data, err := wire.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if e, ok := errorObject(data); ok {
		return nil, e
	}
	var m anthropicsdk.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: not a message: %w (data %q)", llm.ErrProtocol, err, wire.Clip(string(data), 200))
	}
	if m.Type != "message" {
		return nil, fmt.Errorf("%w: the reply is not a message (type %q)", llm.ErrProtocol, m.Type)
	}
	a := newAssembler(names, handle)
	a.started, a.id, a.model = true, m.ID, string(m.Model)
	a.setUsage(m.Usage.InputTokens, m.Usage.CacheReadInputTokens, m.Usage.CacheCreationInputTokens, m.Usage.OutputTokens,
		m.Usage.OutputTokensDetails.ThinkingTokens)
	for i, b := range m.Content {
		blk := &block{kind: b.Type, id: b.ID, name: b.Name, signature: b.Signature, data: b.Data, stopped: true}
		switch b.Type {
		case "text":
			a.addText(b.Text)
		case "thinking":
			blk.text.WriteString(b.Thinking)
			a.addReasoning(b.Thinking)
		case "tool_use":
			blk.input = b.JSON.Input.Raw()
		}
		a.blocks[int64(i)] = blk
		a.order = append(a.order, blk)
	}
	a.stopRaw = string(m.StopReason)
	a.stopped = true
	return a.finish()
}

// An assembler builds a response from the events of one message.
type assembler struct {
	names  *wire.Names
	handle func(llm.Event)

	started   bool // message_start was seen
	id, model string
	text      strings.Builder
	reasoning strings.Builder
	blocks    map[int64]*block // by the index the stream gave them
	order     []*block         // in the order they began
	stopRaw   string           // the stop_reason
	stopped   bool             // message_stop was seen

	input, cacheRead, cacheWrite, output, thinking int64
}

// A block is one content block being assembled.
type block struct {
	kind      string // "text", "thinking", "redacted_thinking", "tool_use", or one that is skipped
	id, name  string // of a tool_use
	input     string // the input object in content_block_start, for a tool_use without deltas
	args      strings.Builder
	text      strings.Builder // of a thinking block
	signature string
	data      string // of a redacted_thinking block
	stopped   bool
}

func newAssembler(names *wire.Names, handle func(llm.Event)) *assembler {
	if handle == nil {
		handle = func(llm.Event) {}
	}
	return &assembler{names: names, handle: handle, blocks: map[int64]*block{}}
}

// event applies one stream event. Unknown event types are skipped, as the
// API asks of clients.
func (a *assembler) event(name string, data []byte) error {
	if name == "error" {
		if e, ok := errorObject(data); ok {
			return e
		}
		return &llm.APIError{Status: 500, Message: "error in the reply: " + wire.Clip(string(data), 500)}
	}
	var ev anthropicsdk.MessageStreamEventUnion
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("not a stream event: %w (data %q)", err, wire.Clip(string(data), 200))
	}
	if ev.Type == "" {
		ev.Type = name
	}
	switch ev.Type {
	case "ping":
		return nil
	case "error":
		if e, ok := errorObject(data); ok {
			return e
		}
		return &llm.APIError{Status: 500, Message: "error in the reply: " + wire.Clip(string(data), 500)}
	case "message_start":
		return a.messageStart(ev.Message)
	}
	if !a.started {
		return fmt.Errorf("%s before message_start", ev.Type)
	}
	switch ev.Type {
	case "content_block_start":
		if !ev.JSON.Index.Valid() {
			return errors.New("content_block_start without an index")
		}
		if _, ok := a.blocks[ev.Index]; ok {
			return fmt.Errorf("content_block_start for block %d, which already began", ev.Index)
		}
		cb := ev.ContentBlock
		b := &block{kind: cb.Type, id: cb.ID, name: cb.Name, signature: cb.Signature, data: cb.Data}
		a.blocks[ev.Index] = b
		a.order = append(a.order, b)
		switch cb.Type {
		case "text":
			a.addText(cb.Text)
		case "thinking":
			b.text.WriteString(cb.Thinking)
			a.addReasoning(cb.Thinking)
		case "tool_use":
			b.input = cb.JSON.Input.Raw()
		}
	case "content_block_delta":
		b, ok := a.blocks[ev.Index]
		if !ok {
			return fmt.Errorf("content_block_delta for block %d, which never began", ev.Index)
		}
		if b.stopped {
			return fmt.Errorf("content_block_delta for block %d, which already stopped", ev.Index)
		}
		d := ev.Delta
		switch {
		case d.Type == "text_delta" && b.kind == "text":
			a.addText(d.Text)
		case d.Type == "thinking_delta" && b.kind == "thinking":
			b.text.WriteString(d.Thinking)
			a.addReasoning(d.Thinking)
		case d.Type == "signature_delta" && b.kind == "thinking":
			b.signature += d.Signature
		case d.Type == "input_json_delta" && b.kind == "tool_use":
			b.args.WriteString(d.PartialJSON)
		case b.kind != "text" && b.kind != "thinking" && b.kind != "tool_use":
			// The deltas of blocks wield does not use (server tools, blocks
			// yet to come) are skipped.
		case d.Type == "text_delta" || d.Type == "thinking_delta" || d.Type == "signature_delta" || d.Type == "input_json_delta":
			return fmt.Errorf("%s for block %d, a %s block", d.Type, ev.Index, b.kind)
		}
		// Other deltas (citations_delta, those yet to come) are skipped.
	case "content_block_stop":
		b, ok := a.blocks[ev.Index]
		if !ok {
			return fmt.Errorf("content_block_stop for block %d, which never began", ev.Index)
		}
		b.stopped = true
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stopRaw = string(ev.Delta.StopReason)
		}
		a.deltaUsage(ev.Usage)
	case "message_stop":
		a.stopped = true
	}
	return nil
}

// messageStart applies message_start. A second one for the same message
// before any content is a repeat and is skipped; any other means two
// replies were spliced into one stream, which is an error.
func (a *assembler) messageStart(m anthropicsdk.Message) error {
	if a.started {
		if m.ID != a.id {
			return fmt.Errorf("message_start for a different message (%s) while %s is open", m.ID, a.id)
		}
		if len(a.order) > 0 {
			return fmt.Errorf("a second message_start for %s after its content began", m.ID)
		}
		return nil
	}
	a.started, a.id, a.model = true, m.ID, string(m.Model)
	u := m.Usage
	a.setUsage(u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens, u.OutputTokensDetails.ThinkingTokens)
	return nil
}

func (a *assembler) setUsage(input, read, write, output, thinking int64) {
	a.input, a.cacheRead, a.cacheWrite, a.output, a.thinking = input, read, write, output, thinking
}

// deltaUsage applies the cumulative usage of message_delta: each count it
// carries replaces the one from message_start, and the others stay.
func (a *assembler) deltaUsage(u anthropicsdk.MessageDeltaUsage) {
	set := func(dst *int64, f respjson.Field, v int64) {
		if f.Valid() {
			*dst = v
		}
	}
	set(&a.input, u.JSON.InputTokens, u.InputTokens)
	set(&a.cacheRead, u.JSON.CacheReadInputTokens, u.CacheReadInputTokens)
	set(&a.cacheWrite, u.JSON.CacheCreationInputTokens, u.CacheCreationInputTokens)
	set(&a.output, u.JSON.OutputTokens, u.OutputTokens)
	set(&a.thinking, u.OutputTokensDetails.JSON.ThinkingTokens, u.OutputTokensDetails.ThinkingTokens)
}

func (a *assembler) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.handle(llm.Event{Kind: llm.EventText, Text: s})
}

func (a *assembler) addReasoning(s string) {
	if s == "" {
		return
	}
	a.reasoning.WriteString(s)
	a.handle(llm.Event{Kind: llm.EventReasoning, Text: s})
}

// finish checks the assembled reply and returns it.
func (a *assembler) finish() (*llm.Response, error) {
	if !a.started {
		return nil, fmt.Errorf("%w: the reply stream ended before message_start", llm.ErrProtocol)
	}
	if a.stopRaw == "" {
		return nil, fmt.Errorf("%w: the reply stream ended before the reply was complete (no stop_reason)", llm.ErrProtocol)
	}
	stop := stopReason(a.stopRaw)
	msg := llm.Message{Role: llm.RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String()}
	for _, b := range a.order {
		switch b.kind {
		case "thinking":
			msg.Thinking = append(msg.Thinking, llm.Thinking{Provider: providerName, Text: b.text.String(), Signature: b.signature})
		case "redacted_thinking":
			msg.Thinking = append(msg.Thinking, llm.Thinking{Provider: providerName, Redacted: b.data})
		case "tool_use":
			if b.name == "" {
				return nil, fmt.Errorf("%w: tool_use block %d has no name", llm.ErrProtocol, len(msg.ToolCalls)+1)
			}
			args := callArguments(b)
			if stop == llm.StopMaxTokens && (!b.stopped || !json.Valid(args)) {
				continue // cut off at the output limit: its input is unfinished
			}
			id := b.id
			if id == "" {
				id = "toolu_" + a.id + "_" + strconv.Itoa(len(msg.ToolCalls)+1)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: a.names.Original(b.name), Arguments: args})
		}
	}
	for i := range msg.ToolCalls {
		a.handle(llm.Event{Kind: llm.EventToolCall, ToolCall: &msg.ToolCalls[i]})
	}
	usage := llm.Usage{
		InputTokens:      int(a.input + a.cacheRead + a.cacheWrite),
		OutputTokens:     int(a.output),
		ReasoningTokens:  int(a.thinking),
		CachedTokens:     int(a.cacheRead),
		CacheWriteTokens: int(a.cacheWrite),
	}
	return &llm.Response{ID: a.id, Model: a.model, Message: msg, FinishReason: a.stopRaw, Stop: stop, Usage: usage}, nil
}

// callArguments returns the input of a tool_use block: the streamed JSON,
// else the input of content_block_start when it is not empty, else {}.
func callArguments(b *block) json.RawMessage {
	if s := strings.TrimSpace(b.args.String()); s != "" {
		return json.RawMessage(s)
	}
	if in := strings.TrimSpace(b.input); in != "" && in != "null" && json.Valid([]byte(in)) {
		return json.RawMessage(in)
	}
	return json.RawMessage("{}")
}

// stopReason maps a stop_reason to wield's terms.
func stopReason(reason string) llm.StopReason {
	switch reason {
	case "end_turn", "stop_sequence":
		return llm.StopEnd
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	case "refusal":
		return llm.StopRefusal
	}
	return llm.StopOther // pause_turn and reasons yet to come
}
