package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/responses"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// readResponsesStream reads a streamed Responses API reply and assembles
// it. Reading stops at the event that ends the response.
func readResponsesStream(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	a := newResponsesAssembler(names, handle)
	sse := wire.NewSSEReader(r)
	for n := 1; !a.ended; n++ {
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
			break
		}
		if err := a.event(event, payload); err != nil {
			return nil, fmt.Errorf("%w: stream event %d: %w", llm.ErrProtocol, n, err)
		}
		if a.err != nil {
			return nil, a.err
		}
	}
	return a.finish()
}

// readResponsesWhole reads a Responses API reply that came whole
// (application/json): a response object.
func readResponsesWhole(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	data, err := wire.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var head struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &head) == nil && isErrorObject(head.Error) {
		var probe struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(data, &probe) != nil || probe.Status == "" {
			return nil, streamError(head.Error) // an error reply with status 200
		}
	}
	var resp responses.Response
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, fmt.Errorf("%w: not a response object: %w (data %q)", llm.ErrProtocol, err, wire.Clip(string(data), 200))
	}
	a := newResponsesAssembler(names, handle)
	kind := "response.completed"
	switch resp.Status {
	case responses.ResponseStatusIncomplete:
		kind = "response.incomplete"
	case responses.ResponseStatusFailed:
		kind = "response.failed"
	case responses.ResponseStatusCompleted:
	default:
		return nil, fmt.Errorf("%w: the response has status %q, not completed, incomplete or failed", llm.ErrProtocol, resp.Status)
	}
	a.end(kind, &resp)
	if a.err != nil {
		return nil, a.err
	}
	return a.finish()
}

// isErrorObject reports whether raw is an error value other than null.
func isErrorObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// A responsesAssembler builds an [llm.Response] from the events of one
// Responses API reply.
type responsesAssembler struct {
	names  *wire.Names
	handle func(llm.Event)

	id, model string
	text      strings.Builder
	reasoning strings.Builder
	items     []*outputItem          // in the order they began
	byID      map[string]*outputItem // by item id
	byIndex   map[int64]*outputItem  // by output_index
	refusal   bool                   // some of the text is a refusal
	kind      string                 // the event that ended the reply
	reason    string                 // why an incomplete reply is incomplete
	usage     llm.Usage
	ended     bool  // an event ended the reply
	err       error // the reply failed
}

// An outputItem is one output item being assembled: a reasoning item, a
// function call or a message.
type outputItem struct {
	typ          string // the item's type
	id           string
	callID, name string
	args         strings.Builder
	done         bool     // output_item.done said the item is complete
	summary      []string // reasoning summary parts
	encrypted    string
	streamed     bool // its text or summary came as deltas
	summaryIndex int64
}

func newResponsesAssembler(names *wire.Names, handle func(llm.Event)) *responsesAssembler {
	if handle == nil {
		handle = func(llm.Event) {}
	}
	return &responsesAssembler{names: names, handle: handle, byID: map[string]*outputItem{}, byIndex: map[int64]*outputItem{}}
}

// event applies one streamed event. Unknown event types are skipped, as
// the API asks of clients.
func (a *responsesAssembler) event(name string, data []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("not a Responses API event: %w (data %q)", err, wire.Clip(string(data), 200))
	}
	typ := cmp.Or(head.Type, name)
	bad := func(err error) error {
		return fmt.Errorf("not a valid %s event: %w (data %q)", typ, err, wire.Clip(string(data), 200))
	}
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		var e responses.ResponseCreatedEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.meta(e.Response.ID, e.Response.Model)
	case "response.output_item.added", "response.output_item.done":
		var e responses.ResponseOutputItemDoneEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		if !e.JSON.Item.Valid() {
			return fmt.Errorf("a %s event without an item", typ)
		}
		a.item(e.OutputIndex, &e.Item, typ == "response.output_item.done")
	case "response.output_text.delta":
		var e responses.ResponseTextDeltaEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.lookup(e.ItemID, e.OutputIndex, "message").streamed = true
		a.addText(e.Delta)
	case "response.refusal.delta":
		var e responses.ResponseRefusalDeltaEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.lookup(e.ItemID, e.OutputIndex, "message").streamed = true
		a.refusal = a.refusal || e.Delta != ""
		a.addText(e.Delta)
	case "response.reasoning_summary_text.delta":
		var e responses.ResponseReasoningSummaryTextDeltaEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.summaryDelta(a.lookup(e.ItemID, e.OutputIndex, "reasoning"), e.SummaryIndex, e.Delta)
	case "response.reasoning_text.delta":
		var e responses.ResponseReasoningTextDeltaEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.addReasoning(e.Delta)
	case "response.function_call_arguments.delta":
		var e responses.ResponseFunctionCallArgumentsDeltaEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		o := a.lookup(e.ItemID, e.OutputIndex, "function_call")
		if !o.done {
			o.args.WriteString(e.Delta)
		}
	case "response.function_call_arguments.done":
		var e responses.ResponseFunctionCallArgumentsDoneEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		if e.JSON.Arguments.Valid() {
			o := a.lookup(e.ItemID, e.OutputIndex, "function_call")
			o.args.Reset()
			o.args.WriteString(e.Arguments)
		}
	case "response.completed", "response.incomplete", "response.failed":
		var e responses.ResponseCompletedEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.end(typ, &e.Response)
	case "error":
		var e responses.ResponseErrorEvent
		if err := json.Unmarshal(data, &e); err != nil {
			return bad(err)
		}
		a.err = errorEvent(&e, data)
	}
	return nil
}

// lookup returns the item an event names by id or, failing that, by
// output index, beginning an item of type typ when there is none.
func (a *responsesAssembler) lookup(id string, index int64, typ string) *outputItem {
	if o := a.byID[id]; id != "" && o != nil {
		return o
	}
	if o := a.byIndex[index]; o != nil && (id == "" || o.id == "" || o.id == id) {
		if o.id == "" && id != "" {
			o.id = id
			a.byID[id] = o
		}
		return o
	}
	o := &outputItem{typ: typ, id: id, summaryIndex: -1}
	a.items = append(a.items, o)
	a.byIndex[index] = o
	if id != "" {
		a.byID[id] = o
	}
	return o
}

// item applies an output item from output_item.added or, when done is
// set, output_item.done, whose item is the complete one.
func (a *responsesAssembler) item(index int64, it *responses.ResponseOutputItemUnion, done bool) {
	o := a.lookup(it.ID, index, it.Type)
	if it.Type != "" {
		o.typ = it.Type
	}
	complete := done && (it.Status == "" || it.Status == "completed")
	switch it.Type {
	case "function_call":
		o.callID = cmp.Or(it.CallID, o.callID)
		o.name = cmp.Or(it.Name, o.name)
		if raw := it.JSON.Arguments.Raw(); complete && raw != "" && raw != "null" {
			var s string
			if json.Unmarshal([]byte(raw), &s) != nil {
				s = raw // an object, from a lenient server
			}
			o.args.Reset()
			o.args.WriteString(s)
		}
		o.done = o.done || complete
	case "reasoning":
		if !done {
			return
		}
		var parts []string
		for _, s := range it.Summary {
			if s.Text != "" {
				parts = append(parts, s.Text)
			}
		}
		if len(parts) > 0 {
			if !o.streamed {
				// The summary came whole: tell the handler too.
				a.addReasoningBreak()
				a.addReasoning(strings.Join(parts, "\n\n"))
			}
			o.summary = parts
		}
		o.encrypted = cmp.Or(it.EncryptedContent, o.encrypted)
		o.done = true
	case "message":
		if !done || o.streamed {
			return
		}
		for _, c := range it.Content {
			switch c.Type {
			case "output_text":
				a.addText(c.Text)
			case "refusal":
				a.refusal = a.refusal || c.Refusal != ""
				a.addText(c.Refusal)
			}
		}
		o.streamed = true
		o.done = true
	}
}

// summaryDelta adds a piece of a reasoning summary. Parts of a summary
// are separated by an empty line, in the events too.
func (a *responsesAssembler) summaryDelta(o *outputItem, index int64, delta string) {
	o.streamed = true
	if index != o.summaryIndex || len(o.summary) == 0 {
		o.summaryIndex = index
		o.summary = append(o.summary, "")
		if delta != "" {
			a.addReasoningBreak()
		}
	}
	if delta == "" {
		return
	}
	o.summary[len(o.summary)-1] += delta
	a.addReasoning(delta)
}

// addReasoningBreak separates a new part of the reasoning from the last.
func (a *responsesAssembler) addReasoningBreak() {
	if a.reasoning.Len() > 0 {
		a.addReasoning("\n\n")
	}
}

func (a *responsesAssembler) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.handle(llm.Event{Kind: llm.EventText, Text: s})
}

func (a *responsesAssembler) addReasoning(s string) {
	if s == "" {
		return
	}
	a.reasoning.WriteString(s)
	a.handle(llm.Event{Kind: llm.EventReasoning, Text: s})
}

func (a *responsesAssembler) meta(id, model string) {
	a.id = cmp.Or(a.id, id)
	a.model = cmp.Or(a.model, model)
}

// end applies the response of the event that ended the reply. Its output
// items stand in for a stream that showed none.
func (a *responsesAssembler) end(kind string, r *responses.Response) {
	a.ended, a.kind = true, kind
	a.meta(r.ID, r.Model)
	if r.JSON.Usage.Valid() {
		u := r.Usage
		a.usage = llm.Usage{
			InputTokens:      int(u.InputTokens),
			OutputTokens:     int(u.OutputTokens),
			ReasoningTokens:  int(u.OutputTokensDetails.ReasoningTokens),
			CachedTokens:     int(u.InputTokensDetails.CachedTokens),
			CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens),
		}
	}
	if len(a.items) == 0 {
		for i := range r.Output {
			a.item(int64(i), &r.Output[i], true)
		}
	}
	switch kind {
	case "response.incomplete":
		a.reason = r.IncompleteDetails.Reason
	case "response.failed":
		e := &llm.APIError{Status: codeStatus(string(r.Error.Code)), Message: "the response failed"}
		if r.Error.Message != "" {
			e.Message += ": " + strings.TrimSuffix(r.Error.Message, ".")
		}
		if r.Error.Code != "" {
			e.Message += " (" + string(r.Error.Code) + ")"
		}
		a.err = e
	}
}

// errorEvent returns the [*llm.APIError] for an error event. The API
// documents the error's code and message at the top level; some servers
// nest them in an "error" object, as error replies do.
func errorEvent(e *responses.ResponseErrorEvent, data []byte) *llm.APIError {
	code, msg := e.Code, e.Message
	if msg == "" {
		var nested struct {
			Error struct {
				Code    json.RawMessage `json:"code"`
				Message string          `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &nested) == nil && nested.Error.Message != "" {
			msg = nested.Error.Message
			if json.Unmarshal(nested.Error.Code, &code) != nil {
				code = string(nested.Error.Code)
			}
		}
	}
	if msg == "" {
		msg = wire.Clip(string(data), 500)
	}
	err := &llm.APIError{Status: codeStatus(code), Message: "error in the reply stream: " + strings.TrimSuffix(msg, ".")}
	if code != "" && code != "null" {
		err.Message += " (" + code + ")"
	}
	return err
}

// codeStatus returns the HTTP status that stands for an error code of
// the Responses API: 429 for rate limits, 500 for server errors and
// codes that are none, 400 for the rest, which are about the request.
func codeStatus(code string) int {
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n <= 599 {
		return n
	}
	switch code {
	case "rate_limit_exceeded":
		return http.StatusTooManyRequests
	case "", "null", "server_error":
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// finish checks the assembled reply and returns it.
func (a *responsesAssembler) finish() (*llm.Response, error) {
	if !a.ended {
		return nil, fmt.Errorf("%w: the reply stream ended before the reply was complete (no response.completed, response.incomplete or response.failed event)", llm.ErrProtocol)
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String()}
	incomplete := a.kind == "response.incomplete"
	for _, o := range a.items {
		switch o.typ {
		case "reasoning":
			if o.id == "" || !o.done {
				continue // nothing that could be sent back: no id, or cut off before its encrypted content
			}
			msg.Thinking = append(msg.Thinking, llm.Thinking{Provider: providerName, ID: o.id,
				Text: strings.Join(o.summary, "\n\n"), Redacted: o.encrypted})
		case "function_call":
			args := callArguments(o.args.String())
			if incomplete && (!o.done || !json.Valid([]byte(args))) {
				continue // cut off at the output limit
			}
			if o.name == "" {
				return nil, fmt.Errorf("%w: function call %d has no name", llm.ErrProtocol, len(msg.ToolCalls)+1)
			}
			id := cmp.Or(o.callID, o.id)
			if id == "" {
				id = "call_" + strconv.Itoa(len(msg.ToolCalls)+1)
				if a.id != "" {
					id = "call_" + a.id + "_" + strconv.Itoa(len(msg.ToolCalls)+1)
				}
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: a.names.Original(o.name), Arguments: json.RawMessage(args)})
		}
	}
	finish, stop := "completed", llm.StopEnd
	switch {
	case incomplete:
		finish = cmp.Or(a.reason, "incomplete")
		switch a.reason {
		case "max_output_tokens":
			stop = llm.StopMaxTokens
		case "content_filter":
			stop = llm.StopRefusal
		default:
			stop = llm.StopOther
		}
	case a.refusal:
		stop = llm.StopRefusal
	case len(msg.ToolCalls) > 0:
		stop = llm.StopToolUse
	}
	for i := range msg.ToolCalls {
		a.handle(llm.Event{Kind: llm.EventToolCall, ToolCall: &msg.ToolCalls[i]})
	}
	return &llm.Response{ID: a.id, Model: a.model, Message: msg, FinishReason: finish, Stop: stop, Usage: a.usage}, nil
}
