package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the random cuts of the stream tests; 0 picks one")

const testKey = "sk-ant-test-0123456789abcdef"

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

// fixturesDir is where the recorded Anthropic streams live, beside the
// repository.
var fixturesDir = filepath.Join("..", "..", "..", "shared", "conformance", "llm-streams", "anthropic")

// conformanceDir returns the recorded streams. Their absence fails the
// test: always in CI (where CI is set), and elsewhere unless
// WIELD_ALLOW_SKIP=1 allows a skip.
func conformanceDir(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(fixturesDir, "expected.json")); err != nil {
		msg := fmt.Sprintf("the recorded streams are not there (%v); they live in ../shared/conformance/llm-streams/anthropic beside the repository", err)
		if os.Getenv("CI") == "" && os.Getenv("WIELD_ALLOW_SKIP") == "1" {
			t.Skip("skipping: " + msg)
		}
		t.Fatal(msg + "; outside CI, WIELD_ALLOW_SKIP=1 turns this into a skip")
	}
	return fixturesDir
}

// expectation is one entry of expected.json.
type expectation struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	Model     string `json:"model"`
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	FinishReason *string `json:"finishReason"`
	Usage        struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error   string `json:"error"`
	Partial struct {
		Reasoning string `json:"reasoning"`
	} `json:"partial"`
	Notes string `json:"notes"`
}

// payloads returns the event payloads of a .chunks.txt file, one a line.
func payloads(data []byte) []string {
	var out []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// A streamForm is one way of serving a recorded stream.
type streamForm struct {
	name string
	body func(payloads []string) []byte
	// split cuts the body at random places, flushing after each piece.
	split bool
}

var streamForms = []streamForm{
	{name: "whole", body: sseBody("\n", true, false)},
	{name: "split", body: sseBody("\n", true, false), split: true},
	{name: "crlf-split", body: sseBody("\r\n", true, false), split: true},
	{name: "cr-split", body: sseBody("\r", true, false), split: true},
	{name: "data-only", body: sseBody("\n", false, false)},
	{name: "comments-split", body: sseBody("\n", true, true), split: true},
}

// sseBody renders payloads as an event stream with the given line ending,
// with "event:" lines naming each event's type as the API sends them, and
// optionally with comments between events.
func sseBody(eol string, events, comments bool) func([]string) []byte {
	return func(payloads []string) []byte {
		var b bytes.Buffer
		for i, p := range payloads {
			if comments && i%3 == 1 {
				b.WriteString(": keep-alive" + eol + eol)
			}
			if events {
				var v struct {
					Type string `json:"type"`
				}
				json.Unmarshal([]byte(p), &v)
				b.WriteString("event: " + v.Type + eol)
			}
			b.WriteString("data: " + p + eol + eol)
		}
		return b.Bytes()
	}
}

// serve starts a server that answers every request with body, cut at
// random places when rng is not nil.
func serve(t *testing.T, contentType string, body []byte, rng *rand.Rand) *httptest.Server {
	t.Helper()
	var cuts []int
	if rng != nil {
		for i := 0; i < len(body); {
			i += 1 + rng.IntN(64)
			cuts = append(cuts, min(i, len(body)))
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		io.Copy(io.Discard, r.Body)
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
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
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

// TestStreamGolden replays every recorded Anthropic reply over HTTP, whole
// and cut at random places, and compares the assembled message with
// expected.json.
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
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*.chunks.txt"))
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
			for i, form := range streamForms {
				t.Run(name+"/"+form.name, func(t *testing.T) {
					var rng *rand.Rand
					if form.split {
						rng = rand.New(rand.NewPCG(seed, uint64(i)))
					}
					srv := serve(t, "text/event-stream", form.body(payloads(raw)), rng)
					p := newTestProvider(t, Config{BaseURL: srv.URL})
					checkExpectation(t, stream(t, p, goldenRequest), exp)
				})
			}
			continue
		}
		responses++
		t.Run(name, func(t *testing.T) {
			srv := serve(t, "application/json", raw, nil)
			p := newTestProvider(t, Config{BaseURL: srv.URL})
			checkExpectation(t, stream(t, p, goldenRequest), exp)
		})
	}
	if streams != len(onDisk) || responses == 0 {
		t.Errorf("expected.json covers %d of the %d recorded streams and %d whole responses; want all of them", streams, len(onDisk), responses)
	}
	t.Logf("%d recorded streams in %d forms and %d whole responses checked", streams, len(streamForms), responses)
}

// wantStop maps the recorded stop reasons to wield's.
var wantStop = map[string]llm.StopReason{"end_turn": llm.StopEnd, "tool_use": llm.StopToolUse, "refusal": llm.StopRefusal, "max_tokens": llm.StopMaxTokens}

func checkExpectation(t *testing.T, r result, exp expectation) {
	t.Helper()
	if exp.Error != "" {
		if r.err == nil {
			t.Fatalf("Stream succeeded, want an error (%s)", exp.Error)
		}
		if !errors.Is(r.err, llm.ErrProtocol) || !strings.Contains(r.err.Error(), exp.Error) {
			t.Errorf("Stream error = %v, want a protocol error saying %q", r.err, exp.Error)
		}
		if len(r.calls) != 0 {
			t.Errorf("tool call events %v for a failed reply", r.calls)
		}
		if r.reason != exp.Partial.Reasoning {
			t.Errorf("reasoning events %q before the error, want %q", r.reason, exp.Partial.Reasoning)
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
		if got.Name != want.Name || got.ID != want.ID {
			t.Errorf("call %d: %s %s, want %s %s", i, got.ID, got.Name, want.ID, want.Name)
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
	if exp.FinishReason == nil || r.resp.FinishReason != *exp.FinishReason {
		t.Errorf("finish reason %q, want %v", r.resp.FinishReason, exp.FinishReason)
	} else if r.resp.Stop != wantStop[*exp.FinishReason] {
		t.Errorf("stop %q for %q, want %q", r.resp.Stop, *exp.FinishReason, wantStop[*exp.FinishReason])
	}
	if r.resp.ID != exp.ID || r.resp.Model != exp.Model {
		t.Errorf("id, model = %q, %q; want %q, %q", r.resp.ID, r.resp.Model, exp.ID, exp.Model)
	}
	if r.resp.Usage.InputTokens != exp.Usage.InputTokens || r.resp.Usage.OutputTokens != exp.Usage.OutputTokens {
		t.Errorf("usage %+v, want %d input and %d output tokens", r.resp.Usage, exp.Usage.InputTokens, exp.Usage.OutputTokens)
	}
}
