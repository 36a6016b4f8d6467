package anthropictest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/schema"
)

// A reply is the stream the server sends for one entry.
type reply struct {
	e      replay.Entry
	n      int // the request's number
	model  string
	tools  []Tool // offered by the request
	stop   string
	usage  llm.Usage
	blocks []map[string]any // content_block_start payloads, each with its deltas
	deltas [][]map[string]any
	open   []bool // blocks left unfinished (a call cut off at max_tokens)
}

func newReply(e replay.Entry, n int, req *Request) *reply {
	rp := &reply{e: e, n: n, model: e.Model, tools: req.Tools}
	if rp.model == "" {
		rp.model = req.Model
	}
	rp.stop = stopReason(e)
	var out int // bytes of output, for the token estimate
	thinking := slices.DeleteFunc(slices.Clone(e.Thinking), func(t llm.Thinking) bool { return t.Provider != "" && t.Provider != "anthropic" })
	if len(thinking) == 0 && e.Reasoning != "" {
		sum := sha256.Sum256([]byte(e.Reasoning))
		thinking = []llm.Thinking{{Text: e.Reasoning, Signature: "sig-" + hex.EncodeToString(sum[:8])}}
	}
	for _, t := range thinking {
		if t.Redacted != "" {
			rp.add(map[string]any{"type": "redacted_thinking", "data": t.Redacted}, nil, false)
			out += len(t.Redacted)
			continue
		}
		var ds []map[string]any
		for _, w := range llmtest.Words(t.Text) {
			ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": w})
		}
		ds = append(ds, map[string]any{"type": "signature_delta", "signature": t.Signature})
		rp.add(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds, false)
		out += len(t.Text)
	}
	if e.Text != "" {
		var ds []map[string]any
		for _, w := range llmtest.Words(e.Text) {
			ds = append(ds, map[string]any{"type": "text_delta", "text": w})
		}
		rp.add(map[string]any{"type": "text", "text": ""}, ds, false)
		out += len(e.Text)
	}
	for i, c := range e.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", n, i+1)
		}
		args := string(c.Arguments)
		var raw string
		if json.Unmarshal(c.Arguments, &raw) == nil {
			args = raw // a string holds the raw text, possibly broken
		}
		ds := []map[string]any{{"type": "input_json_delta", "partial_json": ""}}
		for _, p := range pieces(args, 12) {
			ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		cut := rp.stop == "max_tokens" && !json.Valid([]byte(args))
		rp.add(map[string]any{"type": "tool_use", "id": id, "name": wireName(c.Name, req.Tools), "input": map[string]any{}}, ds, cut)
		out += len(c.Name) + len(args)
	}
	if u := e.Usage; u != (llm.Usage{}) {
		rp.usage = llm.Usage{InputTokens: u.InputTokens, CachedTokens: u.CachedTokens, CacheWriteTokens: u.CacheWriteTokens,
			OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens}
	} else {
		rp.usage = req.Usage
		rp.usage.OutputTokens = max(1, tokens(out))
	}
	return rp
}

func (rp *reply) add(start map[string]any, deltas []map[string]any, open bool) {
	rp.blocks = append(rp.blocks, start)
	rp.deltas = append(rp.deltas, deltas)
	rp.open = append(rp.open, open)
}

// stopReason is the stop_reason of an entry.
func stopReason(e replay.Entry) string {
	switch e.FinishReason {
	case "end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded":
		return e.FinishReason
	case "length":
		return "max_tokens"
	}
	switch e.Stop {
	case llm.StopEnd:
		return "end_turn"
	case llm.StopToolUse:
		return "tool_use"
	case llm.StopMaxTokens:
		return "max_tokens"
	case llm.StopRefusal:
		return "refusal"
	case llm.StopOther:
		return "pause_turn"
	}
	if len(e.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// wireName is the name a call to name comes back under: as offered, else
// sanitized as the provider sanitizes names.
func wireName(name string, offered []Tool) string {
	for _, t := range offered {
		if t.Name == name {
			return name
		}
	}
	return schema.SanitizeName(name)
}

// write sends the reply as an event stream, or fails as f says.
func (rp *reply) write(w http.ResponseWriter, r *http.Request, f llmtest.Fault) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", fmt.Sprintf("req_test_%d", rp.n))
	w.WriteHeader(http.StatusOK)
	s := sse{llmtest.EventWriter{W: w}}
	u := rp.usage
	s.event("message_start", map[string]any{"message": map[string]any{
		"id": fmt.Sprintf("msg_test_%d", rp.n), "type": "message", "role": "assistant", "model": rp.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens - u.CachedTokens - u.CacheWriteTokens,
			"cache_read_input_tokens": u.CachedTokens, "cache_creation_input_tokens": u.CacheWriteTokens, "output_tokens": 1},
	}})
	switch {
	case f.ErrorEvent:
		typ := f.Type
		if typ == "" {
			typ = "overloaded_error"
		}
		s.event("error", map[string]any{"error": map[string]any{"type": typ, "message": f.Message}})
		return
	case f.Malformed || f.Stall:
		s.event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": "Hel"}})
		if f.Stall {
			s.Flush()
			<-r.Context().Done()
			return
		}
		s.Event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo`)
		return
	}
	s.event("ping", nil)
	for i, b := range rp.blocks {
		s.event("content_block_start", map[string]any{"index": i, "content_block": b})
		for _, d := range rp.deltas[i] {
			s.event("content_block_delta", map[string]any{"index": i, "delta": d})
		}
		if rp.open[i] {
			break // cut off: the output limit came first
		}
		s.event("content_block_stop", map[string]any{"index": i})
	}
	s.event("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": rp.stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": u.InputTokens - u.CachedTokens - u.CacheWriteTokens,
			"cache_read_input_tokens": u.CachedTokens, "cache_creation_input_tokens": u.CacheWriteTokens,
			"output_tokens": u.OutputTokens},
	})
	s.event("message_stop", nil)
}

// sse writes the API's events.
type sse struct{ llmtest.EventWriter }

// event writes an event of type typ whose data is fields plus the type.
func (s sse) event(typ string, fields map[string]any) {
	data := map[string]any{"type": typ}
	for k, v := range fields {
		data[k] = v
	}
	b, _ := json.Marshal(data)
	s.Event(typ, string(b))
}

// pieces cuts s into pieces of about n bytes, on rune boundaries (the
// API cuts JSON anywhere, inside strings and escapes too).
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k > 1 && !utf8.RuneStart(s[k]) {
			k--
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
