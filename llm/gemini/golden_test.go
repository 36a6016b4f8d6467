package gemini

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
	"regexp"
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

// conformanceDir returns the recorded Gemini streams, which live beside the
// repository in ../shared/conformance. When they are absent the test
// fails: always in CI (where CI is set), and elsewhere unless
// WIELD_ALLOW_SKIP=1 allows a skip.
func conformanceDir(t testing.TB) string {
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
	fixtures := filepath.Join(dir, "..", "shared", "conformance", "llm-streams", "gemini")
	if _, err := os.Stat(filepath.Join(fixtures, "expected.json")); err != nil {
		missingConformance(t, fmt.Sprintf("the recorded streams are not there (%v); they live in ../shared/conformance/llm-streams/gemini beside the repository", err))
	}
	return fixtures
}

// missingConformance fails the test, or skips it outside CI when
// WIELD_ALLOW_SKIP=1.
func missingConformance(t testing.TB, msg string) {
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
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usage"`
	Error string `json:"error"`
	Notes string `json:"notes"`
}

// chunkLines returns the non-empty lines of a .chunks.txt file: one
// GenerateContentResponse each.
func chunkLines(raw []byte) []string {
	var payloads []string
	for line := range strings.Lines(string(raw)) {
		if line = strings.TrimSpace(line); line != "" {
			payloads = append(payloads, line)
		}
	}
	return payloads
}

// sse renders payloads as an alt=sse body with line ending eol.
func sseWith(eol string, payloads ...string) []byte {
	var b bytes.Buffer
	for _, p := range payloads {
		b.WriteString("data: " + p + eol + eol)
	}
	return b.Bytes()
}

func sse(payloads ...string) string { return string(sseWith("\n", payloads...)) }

// A streamForm is one way of serving a recorded stream.
type streamForm struct {
	name        string
	contentType string
	body        func(payloads []string) []byte
	split       bool // cut the body at random places, flushing after each piece
}

var streamForms = []streamForm{
	{name: "whole", contentType: "text/event-stream", body: func(p []string) []byte { return sseWith("\n", p...) }},
	{name: "split", contentType: "text/event-stream", body: func(p []string) []byte { return sseWith("\n", p...) }, split: true},
	{name: "crlf-split", contentType: "text/event-stream", body: func(p []string) []byte { return sseWith("\r\n", p...) }, split: true},
	{name: "json-array", contentType: "application/json", body: func(p []string) []byte {
		return []byte("[" + strings.Join(p, ",\n") + "]")
	}, split: true},
}

// recorder keeps the requests a test server received.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
	body [][]byte
}

func (r *recorder) add(req *http.Request, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.body = append(r.body, b)
}

func (r *recorder) bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.body)
}

// serve starts a server that answers every request with body, cut at random
// places when rng is not nil.
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
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		data, _ := io.ReadAll(r.Body)
		if got != nil {
			got.add(r, data)
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
	if cfg.APIKey == "" && cfg.Vertex == nil {
		cfg.APIKey = "test-key"
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

// signatureRE finds the thought signatures of a recorded reply.
var signatureRE = regexp.MustCompile(`"thoughtSignature"\s*:\s*"([^"]*)"`)

// TestStreamGolden replays every recorded Gemini reply over HTTP, whole,
// cut at random places, with CRLF line ends and as the JSON array that a
// request without alt=sse gets, and compares the assembled message with
// expected.json. Every thought signature of the recording must come back
// unchanged, in order, on the thinking blocks and tool calls.
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
		var sigs []string
		for _, m := range signatureRE.FindAllSubmatch(raw, -1) {
			sigs = append(sigs, string(m[1]))
		}
		if strings.HasSuffix(name, ".chunks.txt") {
			streams++
			payloads := chunkLines(raw)
			for i, form := range streamForms {
				t.Run(name+"/"+form.name, func(t *testing.T) {
					var rng *rand.Rand
					if form.split {
						rng = rand.New(rand.NewPCG(seed, uint64(i)))
					}
					srv := serve(t, form.contentType, form.body(payloads), rng, nil)
					p := newTestProvider(t, Config{BaseURL: srv.URL})
					checkExpectation(t, stream(t, p, goldenRequest), exp, sigs)
				})
			}
			continue
		}
		responses++
		t.Run(name, func(t *testing.T) {
			srv := serve(t, "application/json", raw, nil, nil)
			p := newTestProvider(t, Config{BaseURL: srv.URL})
			checkExpectation(t, stream(t, p, goldenRequest), exp, sigs)
		})
	}
	if streams == 0 || responses == 0 {
		t.Errorf("found %d streams and %d whole responses in expected.json; want some of each", streams, responses)
	}
}

func checkExpectation(t *testing.T, r result, exp expectation, sigs []string) {
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
	if diff := cmp.Diff(m.ToolCalls, r.calls); diff != "" {
		t.Errorf("tool call events differ from the message (-message +events):\n%s", diff)
	}
	if len(m.ToolCalls) != len(exp.ToolCalls) {
		t.Fatalf("got %d tool calls %+v, want %d", len(m.ToolCalls), m.ToolCalls, len(exp.ToolCalls))
	}
	ids := map[string]bool{}
	for i, want := range exp.ToolCalls {
		got := m.ToolCalls[i]
		if got.Name != want.Name {
			t.Errorf("call %d: name %q, want %q", i, got.Name, want.Name)
		}
		if want.ID != nil && got.ID != *want.ID {
			t.Errorf("call %d: id %q, want %q", i, got.ID, *want.ID)
		}
		if got.ID == "" || ids[got.ID] {
			t.Errorf("call %d: id %q is empty or repeated", i, got.ID)
		}
		ids[got.ID] = true
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
	wantStop := llm.StopEnd
	if len(exp.ToolCalls) > 0 {
		wantStop = llm.StopToolUse
	}
	if r.resp.Stop != wantStop {
		t.Errorf("stop %q, want %q", r.resp.Stop, wantStop)
	}
	if r.resp.ID != exp.ID || r.resp.Model != exp.Model {
		t.Errorf("id, model = %q, %q; want %q, %q", r.resp.ID, r.resp.Model, exp.ID, exp.Model)
	}
	u := exp.Usage
	wantUsage := llm.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, ReasoningTokens: u.ThoughtsTokenCount}
	if r.resp.Usage != wantUsage {
		t.Errorf("usage %+v, want %+v", r.resp.Usage, wantUsage)
	}
	var got []string
	for _, th := range m.Thinking {
		if th.Provider != "gemini" {
			t.Errorf("thinking block of provider %q", th.Provider)
		}
		got = append(got, th.Signature)
	}
	for _, c := range m.ToolCalls {
		if c.Signature != "" {
			got = append(got, c.Signature)
		}
	}
	// Signatures are compared as sets in order of kind: thinking blocks
	// first, then calls; the recordings have one or the other per reply.
	if !slices.Equal(sortedCopy(got), sortedCopy(sigs)) {
		t.Errorf("signatures kept %d (%v), want the %d of the recording", len(got), clipAll(got), len(sigs))
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func clipAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = wire.Clip(x, 12)
	}
	return out
}
