package openai

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// responsesReaderTest is what must hold of the Responses stream reader,
// or of the reader of whole Responses replies with whole, for any body:
// beyond a chat reply's, every thinking block is OpenAI's and can be sent
// back, and the stop reason is set.
func responsesReaderTest(whole bool) llmtest.ReaderTest {
	read := readResponsesStream
	if whole {
		read = readResponsesWhole
	}
	return llmtest.ReaderTest{
		Read: func(r io.Reader, handle func(llm.Event)) (*llm.Response, error) {
			return read(r, &wire.Names{}, handle)
		},
		Thinking: func(th llm.Thinking) bool { return th.Provider == "openai" && th.ID != "" },
		Stop:     true,
		Pieces:   true,
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
	rt := responsesReaderTest(false)
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) { rt.CheckBody(t, body, seed) })
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
	rt := responsesReaderTest(true)
	f.Fuzz(func(t *testing.T, body []byte) { rt.Check(t, rt.Outcome(bytes.NewReader(body))) })
}
