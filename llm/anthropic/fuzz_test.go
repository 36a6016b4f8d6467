package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// streamSeeds are bodies that reach the interesting paths of the stream
// reader; the recorded streams are added too.
var streamSeeds = []string{
	sse(start, textStart, textDelta("0", "Hi"), stop0, endTurn, msgStop),
	strings.ReplaceAll(sse(start, textStart, textDelta("0", "crlf"), stop0, endTurn, msgStop), "\n", "\r\n"),
	sse(start,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`, stop0,
		`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"enc"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t1","name":"read","input":{}}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"th\":1}"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"t2","name":"read","input":{}}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"cut"}}`,
		`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}`, msgStop),
	sse(start, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	sse(start, textStart, start),
	"event: ping\ndata: {\"type\":\"ping\"}\n\n",
	"data: {\"type\":\"message_start\",\"message\":null}\n\n",
	"data: {\"type\":\"content_block_delta\",\"index\":-1}\n\n",
	"\xff\xfe",
	"",
}

func addStreamSeeds(f *testing.F, add func(string)) {
	for _, s := range streamSeeds {
		add(s)
	}
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "*.chunks.txt"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		add(sse(llmtest.Payloads(data)...))
	}
}

// outcome is a comparable summary of one read.
type outcome struct {
	Resp   *llm.Response
	Err    string
	Events []llm.Event
}

func readOutcome(r io.Reader, whole bool) outcome {
	var o outcome
	handle := func(e llm.Event) {
		if e.ToolCall != nil {
			c := *e.ToolCall
			e.ToolCall = &c
		}
		o.Events = append(o.Events, e)
	}
	var err error
	if whole {
		o.Resp, err = readResponse(r, &wire.Names{}, handle)
	} else {
		o.Resp, err = readStream(r, &wire.Names{}, handle)
	}
	if err != nil {
		o.Err = err.Error()
		if !errors.Is(err, llm.ErrProtocol) {
			if _, ok := errors.AsType[*llm.APIError](err); !ok {
				o.Err = "unexpected error type: " + o.Err
			}
		}
	}
	return o
}

// checkOutcome checks what holds for every reply the reader accepts or
// rejects.
func checkOutcome(t *testing.T, o outcome) {
	t.Helper()
	if strings.HasPrefix(o.Err, "unexpected error type") {
		t.Fatal(o.Err)
	}
	for _, e := range o.Events {
		if e.Kind != llm.EventToolCall && e.Text == "" {
			t.Fatalf("empty %s event", e.Kind)
		}
	}
	if o.Resp == nil {
		if o.Err == "" {
			t.Fatal("no response and no error")
		}
		for _, e := range o.Events {
			if e.Kind == llm.EventToolCall {
				t.Fatalf("tool call event %v for a failed reply", e.ToolCall)
			}
		}
		return
	}
	var text, reasoning strings.Builder
	var calls []llm.ToolCall
	for _, e := range o.Events {
		switch e.Kind {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		case llm.EventToolCall:
			calls = append(calls, *e.ToolCall)
		}
	}
	m := o.Resp.Message
	if text.String() != m.Content || reasoning.String() != m.Reasoning {
		t.Fatalf("events %q / %q do not add up to the message %q / %q", text.String(), reasoning.String(), m.Content, m.Reasoning)
	}
	if diff := cmp.Diff(m.ToolCalls, calls); diff != "" {
		t.Fatalf("tool call events differ from the message (-message +events):\n%s", diff)
	}
	for _, c := range m.ToolCalls {
		if c.ID == "" || c.Name == "" || len(bytes.TrimSpace(c.Arguments)) == 0 {
			t.Fatalf("incomplete tool call %+v", c)
		}
		if o.Resp.Stop == llm.StopMaxTokens && !json.Valid(c.Arguments) {
			t.Fatalf("a cut-off call %+v kept at max_tokens", c)
		}
	}
	for _, th := range m.Thinking {
		if th.Provider != providerName {
			t.Fatalf("thinking block of provider %q", th.Provider)
		}
	}
	if m.Role != llm.RoleAssistant || o.Resp.Stop == "" || o.Resp.FinishReason == "" {
		t.Fatalf("role %q, stop %q, finish reason %q", m.Role, o.Resp.Stop, o.Resp.FinishReason)
	}
}

// chunks reads body in random pieces chosen by seed.
func chunks(body []byte, seed uint64) io.Reader {
	rng := rand.New(rand.NewPCG(seed, seed))
	var rs []io.Reader
	for rest := body; len(rest) > 0; {
		n := 1 + rng.IntN(len(rest))
		rs = append(rs, bytes.NewReader(rest[:n]))
		rest = rest[n:]
	}
	return io.MultiReader(rs...)
}

// FuzzStream feeds arbitrary bodies to the stream reader, whole, one byte
// at a time and in random pieces: it must never panic, must read all three
// the same way, and whatever it returns must be well formed.
func FuzzStream(f *testing.F) {
	addStreamSeeds(f, func(s string) { f.Add([]byte(s), uint64(1)) })
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		whole := readOutcome(bytes.NewReader(body), false)
		checkOutcome(t, whole)
		bytewise := readOutcome(iotest.OneByteReader(bytes.NewReader(body)), false)
		if diff := cmp.Diff(whole, bytewise); diff != "" {
			t.Fatalf("reading one byte at a time differs (-whole +bytewise):\n%s", diff)
		}
		split := readOutcome(chunks(body, seed), false)
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("reading in pieces differs (-whole +pieces):\n%s", diff)
		}
	})
}

// FuzzResponse feeds arbitrary bodies to the reader of whole replies.
func FuzzResponse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "*.json"))
	for _, name := range files {
		if filepath.Base(name) == "expected.json" {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"type":"message","id":"m","model":"c","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t","name":"a","input":{"x":1}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}}`,
		`{"type":"message","content":[{"type":"tool_use","name":""}],"stop_reason":"tool_use"}`,
		`{"type":"message","content":[],"stop_reason":null}`,
		`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
		`[]`, `null`, ``, `{"type":"message","content":[null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkOutcome(t, readOutcome(bytes.NewReader(body), true))
	})
}

// FuzzErrorObject feeds arbitrary error objects to the parser of error
// events: it must not panic, the status is always an error status, and
// plain bodies are clipped.
func FuzzErrorObject(f *testing.F) {
	for _, s := range []string{
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`{"error":{"type":"","message":""}}`,
		`{"type":"message","error":{}}`,
		`{"error":null}`,
		"<html>\xff</html>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e, ok := errorObject(body)
		if !ok {
			return
		}
		if e.Status < 400 || e.Status > 599 {
			t.Fatalf("error status %d", e.Status)
		}
	})
}
