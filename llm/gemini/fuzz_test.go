package gemini

import (
	"bufio"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/gemini/geminitest"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// streamSeeds are bodies that reach the interesting paths of the stream
// reader; the recorded streams are added when they are present.
var streamSeeds = []string{
	textReply("hello"),
	strings.ReplaceAll(textReply("crlf"), "\n", "\r\n"),
	sse(`{"candidates":[{"content":{"parts":[{"text":"think","thought":true,"thoughtSignature":"czE="},{"text":"a"},{"functionCall":{"id":"x","name":"read","args":{"p":1}},"thoughtSignature":"czI="}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[2]['b.c']","stringValue":"x","willContinue":true},{"jsonPath":"$.n","numberValue":1e3},{"jsonPath":"$.t","boolValue":true},{"jsonPath":"$.z","nullValue":"NULL_VALUE"}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{}},{"text":"","thoughtSignature":"czM="}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":4,"thoughtsTokenCount":2}}`),
	sse(`{"promptFeedback":{"blockReason":"SAFETY"}}`),
	sse(`{"candidates":[{"finishReason":"RECITATION","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}]}`),
	sse(`{"error":{"code":429,"message":"slow","details":[{"retryDelay":"2s"}]}}`),
	sse(`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$[0]"}]}}]}}]}`),
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}\n\ndata: {\"cand",
	"data: [DONE]",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\xff\xfe\"}]},\"finishReason\":\"STOP\"}]}\n\n",
	"[" + `{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}]}` + "]",
	"",
	"\r\r\n\n:\n",
}

func addStreamSeeds(f *testing.F) {
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	for _, body := range llmtest.RecordedStreams(f, "gemini", func(p []string) []byte { return []byte(sse(p...)) }) {
		f.Add(body)
	}
}

// readerTest is what must hold of the reply reader for any body: a
// stream, or a JSON array of replies (the answer without alt=sse).
var readerTest = llmtest.ReaderTest{
	Read: func(r io.Reader, handle func(llm.Event)) (*llm.Response, error) {
		br := bufio.NewReader(r)
		if startsJSON(br) {
			return readResponse(br, &wire.Names{}, handle)
		}
		return readStream(br, &wire.Names{}, handle)
	},
	Errors:   []error{llm.ErrBlocked},
	Thinking: func(th llm.Thinking) bool { return th.Provider == "gemini" && th.Signature != "" },
	Stop:     true,
}

// FuzzStream feeds arbitrary bodies to the reply reader, whole and one
// byte at a time: it must never panic, must read both the same way, and
// whatever it accepts must be a well-formed reply.
func FuzzStream(f *testing.F) {
	addStreamSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) { readerTest.CheckBody(t, body, 0) })
}

// FuzzPartialArgs builds arguments from the partialArgs that stream an
// arbitrary JSON object, each string cut into random pieces: they must come
// out as the same object. Arbitrary paths and values must never panic, and
// what the tree gives is always valid JSON.
func FuzzPartialArgs(f *testing.F) {
	for _, s := range []string{
		`{"location":"Boston"}`,
		`{"recipe":{"ingredients":[{"amount":"16 oz","name":"Lasagna noodles"}],"steps":["a","b\n\"c\""]},"n":-1.5e3,"ok":false,"z":null}`,
		`{"a.b":{"c d":["x",["y",{"k]":1}]]}}`,
		`{"":"empty key","<&>":"\u2028"}`,
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, args []byte, seed uint64) {
		tree := &argTree{}
		// Arbitrary bytes as one partialArg: no panic, valid JSON.
		var pa partialArg
		if json.Unmarshal(args, &pa) == nil {
			tree.set(&pa)
			if out := tree.json(); !json.Valid(out) {
				t.Fatalf("json() = %s, not valid JSON", out)
			}
		}
		var want map[string]any
		if json.Unmarshal(args, &want) != nil {
			return
		}
		steps, err := geminitest.PartialArgs(args)
		if err != nil {
			return // an empty object or array, or a quoted key: not expressible
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		tree = &argTree{}
		for _, s := range steps {
			var pa partialArg
			if err := json.Unmarshal(s, &pa); err != nil {
				t.Fatal(err)
			}
			if pa.StringValue != nil && pa.WillContinue && len(*pa.StringValue) > 1 {
				// Stream the string in two pieces, cut on a rune boundary.
				v := *pa.StringValue
				cut := rng.IntN(len(v))
				for cut > 0 && cut < len(v) && v[cut]&0xC0 == 0x80 {
					cut--
				}
				a, b := v[:cut], v[cut:]
				first := pa
				first.StringValue = &a
				if err := tree.set(&first); err != nil {
					t.Fatal(err)
				}
				pa.StringValue = &b
			}
			if err := tree.set(&pa); err != nil {
				t.Fatalf("set(%s): %v", s, err)
			}
		}
		out := tree.json()
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("json() = %s: %v", out, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("arguments from partialArgs (-want +got):\n%s\nfrom %s", diff, args)
		}
	})
}

// FuzzErrorBody feeds arbitrary error bodies to the parser of Google error
// objects: it never panics, and a retry delay is never negative.
func FuzzErrorBody(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`,
		`[{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}]`,
		`{"error":{"code":400,"message":"API key not valid.","details":[{"reason":"API_KEY_INVALID"}]}}`,
		`{"error":{"details":[{"retryDelay":"-5s"},{"retryDelay":"1e400s"}]}}`,
		`{"error":"plain"}`, `<html>`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s := parseStatus(body)
		if s == nil {
			return
		}
		if d := s.retryDelay(); d < 0 {
			t.Fatalf("retry delay %v", d)
		}
		e := s.apiError("")
		if e.Status < 400 || e.Status > 599 || e.RetryAfter < 0 || e.RetryAfter > 1<<62*time.Nanosecond {
			t.Fatalf("api error %+v", e)
		}
	})
}
