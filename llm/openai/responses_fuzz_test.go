package openai

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// readResponsesOutcome reads a Responses API body, streamed or whole.
func readResponsesOutcome(r io.Reader, whole bool) outcome {
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
		o.Resp, err = readResponsesWhole(r, &wire.Names{}, handle)
	} else {
		o.Resp, err = readResponsesStream(r, &wire.Names{}, handle)
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

// checkResponsesOutcome adds to checkOutcome what holds for Responses
// replies: every thinking block is OpenAI's and can be sent back, and the
// stop reason is set.
func checkResponsesOutcome(t *testing.T, o outcome) {
	t.Helper()
	checkOutcome(t, o)
	if o.Resp == nil {
		return
	}
	for _, th := range o.Resp.Message.Thinking {
		if th.Provider != "openai" || th.ID == "" {
			t.Fatalf("thinking block %+v cannot be sent back", th)
		}
	}
	if o.Resp.Stop == "" {
		t.Fatal("no stop reason")
	}
}

// responsesSeeds are the streams of testdata/responses and a few bodies
// that reach the reader's other paths.
func responsesSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte(rsse(rCreated, `{"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"Hi"}`, rCompleted)),
		[]byte(rsse(rCreated, `{"type":"response.reasoning_summary_text.delta","item_id":"rs","output_index":0,"summary_index":0,"delta":"a"}`,
			`{"type":"response.reasoning_summary_text.delta","item_id":"rs","output_index":0,"summary_index":1,"delta":"b"}`,
			`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc","call_id":"c","name":"x"}}`,
			`{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":1,"delta":"{\"a\":"}`,
			`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`)),
		[]byte(rsse(`{"type":"error","error":{"message":"x","code":"rate_limit_exceeded"}}`)),
		[]byte("data: {\"type\":\"response.output_text.delta\",\"delta\":\"\xff\"}\n\ndata: [DONE]\n\n"),
		[]byte(""),
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "responses", "*.sse"))
	if len(files) == 0 {
		f.Fatal("no streams in testdata/responses")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return seeds
}

// FuzzResponsesStream feeds arbitrary bodies to the Responses stream
// reader, whole, one byte at a time and in random pieces: it must never
// panic, must read all three the same way, and whatever it accepts must
// be a well-formed reply.
func FuzzResponsesStream(f *testing.F) {
	for _, s := range responsesSeeds(f) {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		whole := readResponsesOutcome(bytes.NewReader(body), false)
		checkResponsesOutcome(t, whole)
		bytewise := readResponsesOutcome(iotest.OneByteReader(bytes.NewReader(body)), false)
		if diff := cmp.Diff(whole, bytewise); diff != "" {
			t.Fatalf("reading one byte at a time differs (-whole +bytewise):\n%s", diff)
		}
		rng := rand.New(rand.NewPCG(seed, seed))
		var parts []io.Reader
		for rest := body; len(rest) > 0; {
			n := 1 + rng.IntN(len(rest))
			parts = append(parts, iotest.HalfReader(bytes.NewReader(rest[:n])))
			rest = rest[n:]
		}
		pieces := readResponsesOutcome(io.MultiReader(parts...), false)
		if diff := cmp.Diff(whole, pieces); diff != "" {
			t.Fatalf("reading in random pieces differs (-whole +pieces):\n%s", diff)
		}
	})
}

// FuzzResponsesWhole feeds arbitrary bodies to the reader of whole
// Responses API replies.
func FuzzResponsesWhole(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "responses", "reasoning-tool-calls.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(data),
		`{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"function_call","name":"x","arguments":"{"}]}`,
		`{"status":"failed","error":{"code":"server_error","message":"boom"}}`,
		`{"error":{"message":"no"}}`, `{"status":"completed","output":[null,{"type":"reasoning"}]}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkResponsesOutcome(t, readResponsesOutcome(bytes.NewReader(body), true))
	})
}
