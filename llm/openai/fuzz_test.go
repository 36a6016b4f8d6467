package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// streamSeeds are bodies that reach the interesting paths of the stream
// reader; the recorded streams are added when they are present.
var streamSeeds = []string{
	textStream("hello"),
	strings.ReplaceAll(textStream("crlf"), "\n", "\r\n"),
	strings.ReplaceAll(textStream("cr"), "\n", "\r"),
	": keep-alive\n\nevent: message\nid: 1\nretry: 10\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n",
	sse(`{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"think","content":null}}]}`,
		`{"choices":[{"delta":{"reasoning":"more","tool_calls":[{"index":1,"id":"t1","type":"function","function":{"name":"read","arguments":""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"pa"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"","function":{"name":"","arguments":"th\":1}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"id":"t2","function":{"name":"now"}}]}}]}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls"}],"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":4}}}`),
	sse(`{"error":{"message":"boom","code":503}}`),
	"event: error\ndata: \"overloaded\"\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DO",
	"data: [DONE]",
	"data:{\"choices\":[{\"delta\":{\"content\":5},\"finish_reason\":\"banana\"}]}\n",
	sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":{"k":[1,2]}}},{"index":0,"id":"b","function":{"name":"y","arguments":null}}]}}]}`,
		`{"choices":[{"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":1},"prompt_tokens_details":{"cached_tokens":1}}}`),
	"data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n",
	"",
	"\r\r\n\n:\n",
}

func addStreamSeeds(f *testing.F, add func(string)) {
	for _, s := range streamSeeds {
		add(s)
	}
	for _, body := range llmtest.RecordedStreams(f, "openai-chat", func(p []string) []byte { return []byte(sse(p...)) }) {
		add(string(body))
	}
}

// readerTest is what must hold of the chat completions stream reader, or
// of the reader of whole replies with whole, for any body.
func readerTest(whole bool) llmtest.ReaderTest {
	read := readStream
	if whole {
		read = readResponse
	}
	return llmtest.ReaderTest{Read: func(r io.Reader, handle func(llm.Event)) (*llm.Response, error) {
		return read(r, &wire.Names{}, handle)
	}}
}

// FuzzStream feeds arbitrary bodies to the stream reader, whole and one
// byte at a time: it must never panic, must read both the same way, and
// whatever it accepts must be a well-formed reply.
func FuzzStream(f *testing.F) {
	addStreamSeeds(f, func(s string) { f.Add([]byte(s)) })
	rt := readerTest(false)
	f.Fuzz(func(t *testing.T, body []byte) { rt.CheckBody(t, body, 0) })
}

// FuzzResponse feeds arbitrary bodies to the reader of whole replies.
func FuzzResponse(f *testing.F) {
	for _, s := range []string{
		`{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","reasoning_content":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
		`{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":"{\"x\":"}},{"function":{"name":"b","arguments":{"y":1}}}]},"finish_reason":"tool_calls"}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"name":""}}]}}]}`,
		`{"choices":[]}`,
		`{"error":{"message":"no","code":"429"}}`,
		`{"error":"plain"}`,
		`[]`, `null`, ``, `{"choices":[null]}`, `{"choices":[{"message":null,"finish_reason":7}]}`,
	} {
		f.Add([]byte(s))
	}
	rt := readerTest(true)
	f.Fuzz(func(t *testing.T, body []byte) { rt.Check(t, rt.Outcome(bytes.NewReader(body))) })
}

// FuzzStreamError feeds arbitrary error objects to the in-stream error
// parser: it must not panic, and the status is always an error status.
func FuzzStreamError(f *testing.F) {
	for _, s := range [][2]string{
		{`{"error":{"message":"Incorrect API key provided.","code":"invalid_api_key"}}`, "2"},
		{`{"error":"model not found"}`, "Wed, 21 Oct 2015 07:28:00 GMT"},
		{`{"error":"Not Found","message":"Cannot POST /x","status":404}`, "1.5"},
		{`{"detail":"Service Unavailable"}`, "-1"},
		{`{"message":"x","code":503}`, "1e400"},
		{"<html>\xff</html>", "NaN"},
		{`"just a string"`, ""},
	} {
		f.Add([]byte(s[0]))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := streamError(body)
		if e.Status < 400 || e.Status > 599 {
			t.Fatalf("stream error status %d", e.Status)
		}
		if len(e.Message) > 700 && !json.Valid(body) {
			t.Fatalf("message of %d bytes from a plain body; want it clipped", len(e.Message))
		}
	})
}

// FuzzChunkDecoders feeds arbitrary chunks to both chunk decoders: where
// the fast one takes a chunk, it must read what the SDK's reads.
func FuzzChunkDecoders(f *testing.F) {
	addStreamSeeds(f, func(s string) {
		for line := range strings.Lines(s) {
			if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
				f.Add([]byte(strings.TrimSpace(data)))
			}
		}
	})
	for _, s := range []string{
		`{"id":"r1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\":1,\"b\":1}"}}]},"finish_reason":null}]}`,
		`{"id":"r1","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110,"prompt_tokens_details":{"cached_tokens":5},"completion_tokens_details":{"reasoning_tokens":2}}}`,
		`{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \ud83d\ude00"},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
		`{"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"refusal":"no","reasoning":{"text":"x"},"reasoning_content":"r"}}]}`,
		`{"choices":[{"index":0,"delta":{"Content":"case"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}`,
		`{"choices":[{"index":"0","delta":{"content":1.5}}],"created":1e3}`,
		`{"error":{"message":"boom","code":503},"x_groq":{"usage":{"prompt_tokens":3}}}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":null,"id":null,"function":{"name":null,"arguments":null}}]}}]}`,
		`{"usage":{"prompt_tokens":-0,"completion_tokens":9223372036854775808}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := decodeFast(data)
		if !ok {
			return
		}
		slow, err := decodeSDK(data)
		if err != nil {
			t.Fatalf("the fast decoder took a chunk the SDK refuses (%v): %s", err, data)
		}
		if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(chunkFields{}, usageFields{}, choiceFields{}, callFields{})); diff != "" {
			t.Fatalf("the decoders differ on %s (-SDK +fast):\n%s", data, diff)
		}
	})
}

// TestDecodeFastTakesTheUsualChunks checks that the chunks endpoints send
// are decoded fast, and that those out of the usual form are not.
func TestDecodeFastTakesTheUsualChunks(t *testing.T) {
	tests := []struct {
		chunk string
		fast  bool
	}{
		{`{"id":"r1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\":1}"}}]},"finish_reason":null}]}`, true},
		{`{"id":"r1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, true},
		{`{"id":"r1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`, true},
		{`{"id":"x","object":"chat.completion.chunk","created":1,"model":"gpt","system_fingerprint":"fp","service_tier":"default","choices":[{"index":0,"delta":{"content":"hi","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"abc"}`, true},
		{`{"choices":[{"delta":{"reasoning_content":"think"}}],"x_groq":{"id":"g"}}`, true},
		{`{"choices":[{"delta":{"Content":"case"}}]}`, false},
		{`{"choices":[{"delta":{"content":"a","content":"b"}}]}`, false},
		{`{"choices":[{"index":"0"}]}`, false},
		{`{"created":1.5}`, false},
		{`{"choices":[{"delta":{"content":"\ud83d\ude00"}}]}`, false},
		{`{"choices":[{"logprobs":{"content":[]}}]}`, false},
		{"{\"model\":\"\xff\"}", false},
		{`{"model":"m"} x`, false},
	}
	for _, tt := range tests {
		if _, ok := decodeFast([]byte(tt.chunk)); ok != tt.fast {
			t.Errorf("decodeFast(%s) took it: %v, want %v", tt.chunk, ok, tt.fast)
		}
	}
}
