package anthropic

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// sse renders event payloads as the API sends them, each with its event
// line.
func sse(payloads ...string) string {
	return string(sseBody("\n", true, false)(payloads))
}

const (
	start     = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":1}}}`
	textStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	stop0     = `{"type":"content_block_stop","index":0}`
	endTurn   = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`
	msgStop   = `{"type":"message_stop"}`
)

func textDelta(index, text string) string {
	return `{"type":"content_block_delta","index":` + index + `,"delta":{"type":"text_delta","text":` + quote(text) + `}}`
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestReadStream(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantText  string
		wantStop  llm.StopReason
		wantUsage llm.Usage
		wantCalls []llm.ToolCall
		wantErr   string // a protocol error saying this
		wantAPI   int    // an APIError with this status
	}{
		{name: "text", body: sse(start, textStart, textDelta("0", "Hi"), textDelta("0", " there"), stop0, endTurn, msgStop),
			wantText: "Hi there", wantStop: llm.StopEnd,
			wantUsage: llm.Usage{InputTokens: 130, OutputTokens: 7, CachedTokens: 100, CacheWriteTokens: 20}},
		{name: "no message_stop after the stop reason", body: sse(start, textStart, textDelta("0", "Hi"), stop0, endTurn),
			wantText: "Hi", wantStop: llm.StopEnd, wantUsage: llm.Usage{InputTokens: 130, OutputTokens: 7, CachedTokens: 100, CacheWriteTokens: 20}},
		{name: "events after message_stop are not read", body: sse(start, endTurn, msgStop, "not json"),
			wantStop: llm.StopEnd, wantUsage: llm.Usage{InputTokens: 130, OutputTokens: 7, CachedTokens: 100, CacheWriteTokens: 20}},
		{name: "usage in message_delta replaces", body: sse(start,
			`{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"input_tokens":11,"cache_read_input_tokens":0,"output_tokens":9,"output_tokens_details":{"thinking_tokens":4}}}`, msgStop),
			wantStop: llm.StopOther, wantUsage: llm.Usage{InputTokens: 31, OutputTokens: 9, ReasoningTokens: 4, CacheWriteTokens: 20}},
		{name: "tool_use with the input in content_block_start", body: sse(start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"clock","input":{"tz":"UTC"}}}`, stop0,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`, msgStop),
			wantStop: llm.StopToolUse, wantUsage: llm.Usage{InputTokens: 130, OutputTokens: 3, CachedTokens: 100, CacheWriteTokens: 20},
			wantCalls: []llm.ToolCall{{ID: "toolu_1", Name: "clock", Arguments: []byte(`{"tz":"UTC"}`)}}},
		{name: "citations and unknown blocks are skipped", body: sse(start, textStart,
			`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}`, textDelta("0", "ok"), stop0,
			`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
			`{"type":"content_block_stop","index":1}`, `{"type":"future_event"}`, endTurn, msgStop),
			wantText: "ok", wantStop: llm.StopEnd, wantUsage: llm.Usage{InputTokens: 130, OutputTokens: 7, CachedTokens: 100, CacheWriteTokens: 20}},
		{name: "error event", body: sse(start, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), wantAPI: 529},
		{name: "error event of an unknown type", body: "event: error\ndata: {\"error\":{\"type\":\"new_error\",\"message\":\"x\"}}\n\n", wantAPI: 500},
		{name: "not JSON", body: sse(start, `{"type":"content_block_delta",`), wantErr: "stream event 2: not a stream event"},
		{name: "content before message_start", body: sse(textStart), wantErr: "content_block_start before message_start"},
		{name: "delta for a block that never began", body: sse(start, textDelta("3", "x")), wantErr: "block 3, which never began"},
		{name: "block started twice", body: sse(start, textStart, textStart), wantErr: "block 0, which already began"},
		{name: "delta after the block stopped", body: sse(start, textStart, stop0, textDelta("0", "x")), wantErr: "block 0, which already stopped"},
		{name: "delta of the wrong kind", body: sse(start, textStart, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`), wantErr: "input_json_delta for block 0, a text block"},
		{name: "tool_use without a name", body: sse(start, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","input":{}}}`, stop0, endTurn), wantErr: "has no name"},
		{name: "second message_start after content", body: sse(start, textStart, start), wantErr: "a second message_start for msg_1 after its content began"},
		{name: "cut off", body: sse(start, textStart, textDelta("0", "Hel")), wantErr: "no stop_reason"},
		{name: "no message_start at all", body: sse(`{"type":"ping"}`), wantErr: "ended before message_start"},
		{name: "empty", body: "", wantErr: "no stream events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []llm.ToolCall
			var text string
			resp, err := readStream(strings.NewReader(tt.body), &wire.Names{}, func(e llm.Event) {
				text += e.Text
				if e.ToolCall != nil {
					calls = append(calls, *e.ToolCall)
				}
			})
			switch {
			case tt.wantErr != "":
				if !errors.Is(err, llm.ErrProtocol) || !strings.Contains(err.Error(), tt.wantErr) || resp != nil {
					t.Fatalf("readStream = %v, %v; want a protocol error saying %q", resp, err, tt.wantErr)
				}
				return
			case tt.wantAPI != 0:
				apiErr, ok := errors.AsType[*llm.APIError](err)
				if !ok || apiErr.Status != tt.wantAPI || resp != nil {
					t.Fatalf("readStream = %v, %v; want an APIError with status %d", resp, err, tt.wantAPI)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if resp.Message.Content != tt.wantText || text != tt.wantText || resp.Stop != tt.wantStop {
				t.Errorf("text %q (events %q), stop %q; want %q, %q", resp.Message.Content, text, resp.Stop, tt.wantText, tt.wantStop)
			}
			if resp.Usage != tt.wantUsage {
				t.Errorf("usage %+v, want %+v", resp.Usage, tt.wantUsage)
			}
			if diff := cmp.Diff(tt.wantCalls, resp.Message.ToolCalls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCalls, calls); diff != "" {
				t.Errorf("call events (-want +got):\n%s", diff)
			}
		})
	}
}
