package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the random cuts of the stream tests; 0 picks one")

// testSeed returns the seed for random stream cuts and logs it, so that a
// failure can be reproduced with -seed.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("random seed %d (rerun with -seed=%d)", seed, seed)
	return seed
}

// conformanceDir returns the recorded OpenAI chat streams, which live
// beside the repository in ../shared/conformance. When they are absent the
// test fails: always in CI (where CI is set), and elsewhere unless
// WIELD_ALLOW_SKIP=1 allows a skip.
func conformanceDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			missingConformance(t, "no go.mod above the test directory, so ../shared/conformance cannot be found")
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "..", "shared", "conformance", "llm-streams", "openai-chat")
	if _, err := os.Stat(filepath.Join(fixtures, "expected.json")); err != nil {
		missingConformance(t, fmt.Sprintf("the recorded streams are not there (%v); they live in ../shared/conformance/llm-streams/openai-chat beside the repository", err))
	}
	return fixtures
}

// missingConformance fails the test, or skips it outside CI when
// WIELD_ALLOW_SKIP=1.
func missingConformance(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") == "" && os.Getenv("WIELD_ALLOW_SKIP") == "1" {
		t.Skip("skipping: " + msg)
	}
	t.Fatal(msg + "; outside CI, WIELD_ALLOW_SKIP=1 turns this into a skip")
}

// expectation is one entry of expected.json.
type expectation struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	Model     string `json:"model"`
	Text      string `json:"text"`
	Reasoning string `json:"reasoning"`
	ToolCalls []struct {
		ID        *string         `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	FinishReason string `json:"finishReason"`
	Usage        struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error string `json:"error"`
	Notes string `json:"notes"`
}

// A streamForm is one way of serving a recorded stream.
type streamForm struct {
	name string
	// body renders the chunk payloads as the response body.
	body func(payloads []string) []byte
	// split cuts the body at random places, flushing after each piece.
	split bool
}

var streamForms = []streamForm{
	{name: "whole", body: sseBody("\n", false, true)},
	{name: "split", body: sseBody("\n", false, true), split: true},
	{name: "crlf", body: sseBody("\r\n", false, true)},
	{name: "crlf-split", body: sseBody("\r\n", false, true), split: true},
	{name: "cr-split", body: sseBody("\r", false, true), split: true},
	{name: "keepalive-split", body: sseBody("\n", true, true), split: true},
	{name: "no-done", body: sseBody("\n", false, false)},
}

// sseBody returns a body renderer with the given line ending, optionally
// with keep-alive comments and event lines, and with or without [DONE].
func sseBody(eol string, extras, done bool) func([]string) []byte {
	return func(payloads []string) []byte {
		var b bytes.Buffer
		if extras {
			b.WriteString(": OPENROUTER PROCESSING" + eol + eol)
		}
		for i, p := range payloads {
			if extras && i%3 == 1 {
				b.WriteString(":" + eol + ": keep-alive" + eol + eol)
			}
			if extras && i%4 == 2 {
				b.WriteString("event: message" + eol + "id: " + "x" + eol + "retry: 1000" + eol)
			}
			b.WriteString("data: " + p + eol + eol)
		}
		if done {
			b.WriteString("data: [DONE]" + eol + eol)
		}
		return b.Bytes()
	}
}

// recorder keeps the request bodies a test server received.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (r *recorder) add(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, b)
}

func (r *recorder) all() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}

// serve starts a server that answers every request with body, cut at random
// places when rng is not nil. It records request bodies in got, if not nil.
func serve(t *testing.T, contentType string, body []byte, rng *rand.Rand, got *recorder) *httptest.Server {
	t.Helper()
	var cuts []int
	if rng != nil {
		for i := 0; i < len(body); {
			i += 1 + rng.IntN(64)
			cuts = append(cuts, min(i, len(body)))
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		data, _ := io.ReadAll(r.Body)
		if got != nil {
			got.add(data)
		}
		w.Header().Set("Content-Type", contentType)
		if cuts == nil {
			w.Write(body)
			return
		}
		prev := 0
		for _, c := range cuts {
			w.Write(body[prev:c])
			w.(http.Flusher).Flush()
			prev = c
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// result is what a test observes of one Stream call.
type result struct {
	resp   *llm.Response
	err    error
	text   string // the text events, joined
	reason string // the reasoning events, joined
	calls  []llm.ToolCall
}

func stream(t *testing.T, p *Provider, req *llm.Request) result {
	t.Helper()
	var r result
	r.resp, r.err = p.Stream(t.Context(), req, func(e llm.Event) {
		switch e.Kind {
		case llm.EventText:
			r.text += e.Text
		case llm.EventReasoning:
			r.reason += e.Text
		case llm.EventToolCall:
			r.calls = append(r.calls, *e.ToolCall)
		}
	})
	return r
}

func newTestProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = time.Millisecond
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var goldenRequest = &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "What is the weather in San Francisco?"}},
	Tools: []llm.ToolDef{{Name: "weather", Description: "Weather for a place.", InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}}}

// TestStreamGolden replays every recorded OpenAI-compatible reply over HTTP
// and compares the assembled message with expected.json.
func TestStreamGolden(t *testing.T) {
	dir := conformanceDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]expectation
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("expected.json: %v", err)
	}
	files := make([]string, 0, len(want))
	for name := range want {
		files = append(files, name)
	}
	sort.Strings(files)
	seed := testSeed(t)
	var streams, responses int
	for _, name := range files {
		exp := want[name]
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.HasSuffix(name, ".chunks.txt") {
			streams++
			var payloads []string
			for line := range strings.Lines(string(raw)) {
				if line = strings.TrimSpace(line); line != "" {
					payloads = append(payloads, line)
				}
			}
			for i, form := range streamForms {
				t.Run(name+"/"+form.name, func(t *testing.T) {
					var rng *rand.Rand
					if form.split {
						rng = rand.New(rand.NewPCG(seed, uint64(i)))
					}
					srv := serve(t, "text/event-stream", form.body(payloads), rng, nil)
					p := newTestProvider(t, Config{BaseURL: srv.URL + "/v1"})
					checkExpectation(t, stream(t, p, goldenRequest), exp)
				})
			}
			continue
		}
		responses++
		for _, noStream := range []bool{true, false} {
			mode := "nostream"
			if !noStream {
				mode = "stream-answered-whole"
			}
			t.Run(name+"/"+mode, func(t *testing.T) {
				var rec recorder
				srv := serve(t, "application/json", raw, nil, &rec)
				p := newTestProvider(t, Config{BaseURL: srv.URL + "/v1", NoStream: noStream})
				checkExpectation(t, stream(t, p, goldenRequest), exp)
				var sent struct {
					Stream bool `json:"stream"`
				}
				reqs := rec.all()
				if err := json.Unmarshal(reqs[0], &sent); err != nil || sent.Stream == noStream {
					t.Errorf("request %s: want stream %v", reqs[0], !noStream)
				}
			})
		}
	}
	if streams == 0 || responses == 0 {
		t.Errorf("found %d streams and %d whole responses in expected.json; want some of each", streams, responses)
	}
}

func checkExpectation(t *testing.T, r result, exp expectation) {
	t.Helper()
	if exp.Error != "" {
		if r.err == nil {
			t.Fatalf("Stream succeeded, want an error (%s)", exp.Error)
		}
		return
	}
	if r.err != nil {
		t.Fatalf("Stream: %v\nnotes: %s", r.err, exp.Notes)
	}
	m := r.resp.Message
	if m.Content != exp.Text {
		t.Errorf("text = %q, want %q", wire.Clip(m.Content, 300), wire.Clip(exp.Text, 300))
	}
	if m.Reasoning != exp.Reasoning {
		t.Errorf("reasoning = %q, want %q", wire.Clip(m.Reasoning, 300), wire.Clip(exp.Reasoning, 300))
	}
	if r.text != m.Content || r.reason != m.Reasoning {
		t.Errorf("the text and reasoning events do not add up to the message")
	}
	if !slices.EqualFunc(r.calls, m.ToolCalls, func(a, b llm.ToolCall) bool {
		return a.ID == b.ID && a.Name == b.Name && bytes.Equal(a.Arguments, b.Arguments)
	}) {
		t.Errorf("tool call events %v, want the message's %v", r.calls, m.ToolCalls)
	}
	if len(m.ToolCalls) != len(exp.ToolCalls) {
		t.Fatalf("got %d tool calls %+v, want %d", len(m.ToolCalls), m.ToolCalls, len(exp.ToolCalls))
	}
	for i, want := range exp.ToolCalls {
		got := m.ToolCalls[i]
		if got.Name != want.Name {
			t.Errorf("call %d: name %q, want %q", i, got.Name, want.Name)
		}
		if want.ID != nil && got.ID != *want.ID {
			t.Errorf("call %d: id %q, want %q", i, got.ID, *want.ID)
		}
		if got.ID == "" {
			t.Errorf("call %d: empty id", i)
		}
		var g, w any
		if err := json.Unmarshal(got.Arguments, &g); err != nil {
			t.Errorf("call %d: arguments %s: %v", i, got.Arguments, err)
		}
		if err := json.Unmarshal(want.Arguments, &w); err != nil {
			t.Fatalf("expected arguments: %v", err)
		}
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("call %d: arguments (-want +got):\n%s", i, diff)
		}
	}
	if r.resp.FinishReason != exp.FinishReason {
		t.Errorf("finish reason %q, want %q", r.resp.FinishReason, exp.FinishReason)
	}
	if r.resp.ID != exp.ID || r.resp.Model != exp.Model {
		t.Errorf("id, model = %q, %q; want %q, %q", r.resp.ID, r.resp.Model, exp.ID, exp.Model)
	}
	if r.resp.Usage.InputTokens != exp.Usage.PromptTokens || r.resp.Usage.OutputTokens != exp.Usage.CompletionTokens {
		t.Errorf("usage %+v, want %d input and %d output tokens", r.resp.Usage, exp.Usage.PromptTokens, exp.Usage.CompletionTokens)
	}
}
