package openaitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// A reply is one scripted answer, ready to be written in either API's
// format.
type reply struct {
	e         replay.Entry
	n         int // the request's number
	model     string
	reasoning []reasoningItem
	calls     []llm.ToolCall // ids filled in, names as the request sent them
	cut       bool           // the reply stops at the output limit
}

// A reasoningItem is a Responses API reasoning item.
type reasoningItem struct{ id, summary, encrypted string }

func newReply(e replay.Entry, n int, req *Request) *reply {
	rp := &reply{e: e, n: n, model: cmp.Or(e.Model, req.Model, "openaitest")}
	for k, th := range e.Thinking {
		if th.Provider != "" && th.Provider != "openai" {
			continue
		}
		rp.reasoning = append(rp.reasoning, reasoningItem{
			id:        cmp.Or(th.ID, fmt.Sprintf("rs_%d_%d", n, k+1)),
			summary:   th.Text,
			encrypted: cmp.Or(th.Redacted, fmt.Sprintf("enc_%d_%d", n, k+1)),
		})
	}
	if len(rp.reasoning) == 0 && e.Reasoning != "" {
		rp.reasoning = []reasoningItem{{id: fmt.Sprintf("rs_%d_1", n), summary: e.Reasoning, encrypted: fmt.Sprintf("enc_%d_1", n)}}
	}
	for i, c := range e.ToolCalls {
		c.ID = cmp.Or(c.ID, fmt.Sprintf("call_%d_%d", n, i+1))
		c.Name = wireName(c.Name, req.Tools)
		var raw string
		if json.Unmarshal(c.Arguments, &raw) == nil {
			c.Arguments = json.RawMessage(raw) // a string holds the raw text, possibly malformed
		}
		rp.calls = append(rp.calls, c)
	}
	switch e.FinishReason {
	case "length", "max_tokens", "max_output_tokens":
		rp.cut = true
	}
	rp.cut = rp.cut || e.Stop == llm.StopMaxTokens
	return rp
}

// wireName returns the name the request offered for a tool the script
// names by its wield name ("fs.read" offered as "fs_read").
func wireName(name string, offered []string) string {
	if slices.Contains(offered, name) {
		return name
	}
	sanitized := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
	if slices.Contains(offered, sanitized) {
		return sanitized
	}
	return name
}

// cutOff reports whether a call is the one the output limit cut off.
func (rp *reply) cutOff(c llm.ToolCall) bool { return rp.cut && !json.Valid(c.Arguments) }

func (rp *reply) responseID() string { return fmt.Sprintf("resp_%d", rp.n) }

// message returns the assistant message as a Responses request would
// send it back, for stored conversations.
func (rp *reply) message() llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: rp.e.Text}
	for _, r := range rp.reasoning {
		m.Thinking = append(m.Thinking, llm.Thinking{Provider: "openai", ID: r.id, Text: r.summary, Redacted: r.encrypted})
	}
	for _, c := range rp.calls {
		if !rp.cutOff(c) {
			m.ToolCalls = append(m.ToolCalls, c)
		}
	}
	return m
}

// An sse writes server-sent events, flushing after each.
type sse struct {
	llmtest.EventWriter
	seq int
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{EventWriter: llmtest.EventWriter{W: w}}
}

// event writes a Responses API event, numbering it.
func (s *sse) event(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = s.seq
	s.seq++
	data, _ := json.Marshal(fields)
	s.Event(typ, string(data))
}

// data writes a data-only event, as chat completions streams have.
func (s *sse) data(v any) {
	data, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		data = string(b)
	}
	s.Event("", data)
}

// fault ends a stream after its first event as f asks, reporting whether
// it did. Before stalling it sends the text delta, so a client can see
// the stream has begun.
func (s *sse) fault(r *http.Request, f llmtest.Fault, delta func()) bool {
	switch {
	case f.Malformed:
		fmt.Fprint(s.W, "data: {\"type\": \"response.output_text.delta\", \"delta\": \n\n")
		s.Flush()
		return true
	case f.Stall:
		delta()
		<-r.Context().Done()
		return true
	}
	return false
}

// halves cuts s in two pieces, to stream arguments in more than one delta.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

// chatFinish is the chat completions finish reason.
func (rp *reply) chatFinish() string {
	switch {
	case rp.e.FinishReason == "max_output_tokens", rp.e.FinishReason == "" && rp.cut:
		return "length"
	case rp.e.FinishReason != "":
		return rp.e.FinishReason
	case len(rp.calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (rp *reply) chatUsage() map[string]any {
	u := rp.e.Usage
	return map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedTokens},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens}}
}

// writeChat answers as chat completions.
func (rp *reply) writeChat(w http.ResponseWriter, r *http.Request, stream bool, f llmtest.Fault) {
	id := fmt.Sprintf("chatcmpl-%d", rp.n)
	if !stream {
		msg := map[string]any{"role": "assistant", "content": rp.e.Text}
		if rp.e.Reasoning != "" {
			msg["reasoning_content"] = rp.e.Reasoning
		}
		var calls []any
		for _, c := range rp.calls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(c.Arguments)}})
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 1756315657, "model": rp.model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": rp.chatFinish()}}, "usage": rp.chatUsage()})
		return
	}
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1756315657, "model": rp.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	s.data(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if s.fault(r, f, func() { s.data(chunk(map[string]any{"content": "…"}, nil)) }) {
		return
	}
	for _, d := range llmtest.Words(rp.e.Reasoning) {
		s.data(chunk(map[string]any{"reasoning_content": d}, nil))
	}
	for _, d := range llmtest.Words(rp.e.Text) {
		s.data(chunk(map[string]any{"content": d}, nil))
	}
	for i, c := range rp.calls {
		s.data(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, piece := range halves(string(c.Arguments)) {
			s.data(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}, nil))
		}
	}
	s.data(chunk(map[string]any{}, rp.chatFinish()))
	s.data(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1756315657, "model": rp.model, "choices": []any{}, "usage": rp.chatUsage()})
	s.data("[DONE]")
}

// response returns a Responses API response object.
func (rp *reply) response(status string, output []any) map[string]any {
	resp := map[string]any{"id": rp.responseID(), "object": "response", "created_at": 1756315657, "status": status, "model": rp.model,
		"output": output, "error": nil, "incomplete_details": nil, "usage": nil, "parallel_tool_calls": true, "store": false}
	if status == "in_progress" {
		return resp
	}
	u := rp.e.Usage
	details := map[string]any{"cached_tokens": u.CachedTokens}
	if u.CacheWriteTokens > 0 {
		details["cache_write_tokens"] = u.CacheWriteTokens
	}
	resp["usage"] = map[string]any{"input_tokens": u.InputTokens, "input_tokens_details": details,
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens": u.InputTokens + u.OutputTokens}
	switch {
	case rp.cut:
		resp["status"] = "incomplete"
		resp["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	case rp.e.FinishReason == "content_filter":
		resp["status"] = "incomplete"
		resp["incomplete_details"] = map[string]any{"reason": "content_filter"}
	}
	return resp
}

// items returns the output items of the reply, complete.
func (rp *reply) items() []any {
	var out []any
	for _, r := range rp.reasoning {
		summary := []any{}
		if r.summary != "" {
			summary = append(summary, map[string]any{"type": "summary_text", "text": r.summary})
		}
		out = append(out, map[string]any{"id": r.id, "type": "reasoning", "summary": summary, "encrypted_content": r.encrypted})
	}
	if rp.e.Text != "" {
		out = append(out, map[string]any{"id": fmt.Sprintf("msg_%d", rp.n), "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": rp.e.Text, "annotations": []any{}}}})
	}
	for i, c := range rp.calls {
		status := "completed"
		if rp.cutOff(c) {
			status = "incomplete"
		}
		out = append(out, map[string]any{"id": fmt.Sprintf("fc_%d_%d", rp.n, i+1), "type": "function_call", "status": status,
			"call_id": c.ID, "name": c.Name, "arguments": string(c.Arguments)})
	}
	return out
}

// writeResponses answers as the Responses API.
func (rp *reply) writeResponses(w http.ResponseWriter, r *http.Request, stream bool, f llmtest.Fault) {
	items := rp.items()
	final := rp.response("completed", items)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(final)
		return
	}
	s := newSSE(w)
	s.event("response.created", map[string]any{"response": rp.response("in_progress", []any{})})
	if s.fault(r, f, func() {
		s.event("response.output_text.delta", map[string]any{"item_id": "msg_stall", "output_index": 0, "content_index": 0, "delta": "…"})
	}) {
		return
	}
	s.event("response.in_progress", map[string]any{"response": rp.response("in_progress", []any{})})
	for i, it := range items {
		item := it.(map[string]any)
		id := item["id"]
		switch item["type"] {
		case "reasoning":
			s.event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
			if summary := rp.reasoning[i].summary; summary != "" {
				part := map[string]any{"type": "summary_text", "text": ""}
				s.event("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": part})
				for _, d := range llmtest.Words(summary) {
					s.event("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "delta": d})
				}
				s.event("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "text": summary})
				s.event("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0,
					"part": map[string]any{"type": "summary_text", "text": summary}})
			}
			s.event("response.output_item.done", map[string]any{"output_index": i, "item": item})
		case "message":
			s.event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "message",
				"status": "in_progress", "role": "assistant", "content": []any{}}})
			s.event("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, d := range llmtest.Words(rp.e.Text) {
				s.event("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": d, "logprobs": []any{}})
			}
			s.event("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": rp.e.Text, "logprobs": []any{}})
			s.event("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": rp.e.Text, "annotations": []any{}}})
			s.event("response.output_item.done", map[string]any{"output_index": i, "item": item})
		case "function_call":
			args := item["arguments"].(string)
			s.event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "function_call",
				"status": "in_progress", "call_id": item["call_id"], "name": item["name"], "arguments": ""}})
			for _, d := range halves(args) {
				s.event("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": d})
			}
			if item["status"] == "incomplete" {
				continue // cut off: no done events
			}
			s.event("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": args})
			s.event("response.output_item.done", map[string]any{"output_index": i, "item": item})
		}
	}
	if final["status"] == "incomplete" {
		s.event("response.incomplete", map[string]any{"response": final})
		return
	}
	s.event("response.completed", map[string]any{"response": final})
}
