package anthropic

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	for _, body := range llmtest.RecordedStreams(f, "anthropic", func(p []string) []byte { return []byte(sse(p...)) }) {
		add(string(body))
	}
}

// readerTest is what must hold of the stream reader, or of the reader of
// whole replies with whole, for any body.
func readerTest(whole bool) llmtest.ReaderTest {
	read := readStream
	if whole {
		read = readResponse
	}
	return llmtest.ReaderTest{
		Read: func(r io.Reader, handle func(llm.Event)) (*llm.Response, error) {
			return read(r, &wire.Names{}, handle)
		},
		Thinking:     func(th llm.Thinking) bool { return th.Provider == providerName },
		Stop:         true,
		FinishReason: true,
		CutCalls:     true,
		Pieces:       true,
	}
}

// FuzzStream feeds arbitrary bodies to the stream reader, whole, one byte
// at a time and in random pieces: it must never panic, must read all three
// the same way, and whatever it returns must be well formed.
func FuzzStream(f *testing.F) {
	addStreamSeeds(f, func(s string) { f.Add([]byte(s), uint64(1)) })
	rt := readerTest(false)
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) { rt.CheckBody(t, body, seed) })
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
	rt := readerTest(true)
	f.Fuzz(func(t *testing.T, body []byte) { rt.Check(t, rt.Outcome(bytes.NewReader(body))) })
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
