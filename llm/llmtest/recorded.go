package llmtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// RecordingsDir returns the directory of the streams recorded from a
// provider's API, named by name ("anthropic", "gemini", "openai-chat"):
// ../shared/conformance/llm-streams/name beside the repository, found from
// the go.mod above the working directory. It returns "" when there is
// none.
func RecordingsDir(name string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return filepath.Join(dir, "..", "shared", "conformance", "llm-streams", name)
}

// requireRecordings returns the recordings of name. Their absence fails
// the test: always in CI (where CI is set), and elsewhere unless
// WIELD_ALLOW_SKIP=1 allows a skip.
func requireRecordings(t testing.TB, name string) string {
	t.Helper()
	dir := RecordingsDir(name)
	var msg string
	if dir == "" {
		msg = "no go.mod above the test directory, so ../shared/conformance cannot be found"
	} else if _, err := os.Stat(filepath.Join(dir, "expected.json")); err != nil {
		msg = fmt.Sprintf("the recorded streams are not there (%v); they live in ../shared/conformance/llm-streams/%s beside the repository", err, name)
	}
	if msg != "" {
		if os.Getenv("CI") == "" && os.Getenv("WIELD_ALLOW_SKIP") == "1" {
			t.Skip("skipping: " + msg)
		}
		t.Fatal(msg + "; outside CI, WIELD_ALLOW_SKIP=1 turns this into a skip")
	}
	return dir
}

// RecordedStreams returns the bodies of the recorded streams of name, each
// rendered by render from its payloads, for fuzz seeds. It returns none
// when the recordings are not there.
func RecordedStreams(t testing.TB, name string, render func(payloads []string) []byte) [][]byte {
	t.Helper()
	dir := RecordingsDir(name)
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.chunks.txt"))
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, render(Payloads(data)))
	}
	return out
}

// Payloads returns the event payloads of a .chunks.txt recording: its
// non-empty lines, trimmed.
func Payloads(data []byte) []string {
	var out []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// A StreamForm is one way of serving a recorded stream.
type StreamForm struct {
	Name string
	// ContentType is the response's; empty means text/event-stream.
	ContentType string
	// Body renders the payloads as the response body.
	Body func(payloads []string) []byte
	// Split cuts the body at random places, flushing after each piece.
	Split bool
}

// A WholeForm is one way of asking for a recorded whole (not streamed)
// reply.
type WholeForm struct {
	// Name is added to the subtest's name; empty adds nothing.
	Name string
	// Provider returns the provider to ask, of a server at baseURL.
	Provider func(t *testing.T, baseURL string) llm.Provider
	// Sent, if not nil, checks the body of the request the provider sent.
	Sent func(t *testing.T, body []byte)
}

// Recordings is the replay of one provider's recorded replies, for
// [TestRecordings].
type Recordings struct {
	// Name names the recordings; see [RecordingsDir].
	Name string
	// Path reports whether the server answers a POST to path.
	Path func(path string) bool
	// Provider returns the provider to test, of a server at baseURL.
	Provider func(t *testing.T, baseURL string) llm.Provider
	// Forms are the ways each stream is served.
	Forms []StreamForm
	// Whole are the ways each whole reply is asked for; none means once,
	// with Provider.
	Whole []WholeForm
	// Seed is the seed of the random cuts; zero picks one, which is
	// logged.
	Seed uint64
	// Reasoning reports whether expected.json records the reasoning text
	// to compare.
	Reasoning bool
	// Usage returns the usage wanted of a reply that read as got, whose
	// expected usage is recorded; the fields the recordings do not give
	// may be taken from got, which leaves them unchecked.
	Usage func(recorded json.RawMessage, got llm.Usage) (llm.Usage, error)
	// Stop, if not nil, returns the stop reason a finish reason stands
	// for in a reply with calls calls.
	Stop func(finishReason string, calls int) llm.StopReason
	// Check, if not nil, checks what else holds for a reply read from
	// the recording raw.
	Check func(t *testing.T, r Result, raw []byte)
}

// An Expectation is one entry of a recordings' expected.json: what the
// reply of a recording reads as.
type Expectation struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	Model     string `json:"model"`
	Text      string `json:"text"`
	Reasoning string `json:"reasoning"`
	ToolCalls []struct {
		// ID is the call's id; nil means any.
		ID        *string         `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	FinishReason *string         `json:"finishReason"`
	Usage        json.RawMessage `json:"usage"`
	// Error, if not empty, is what the error a recording ends in says.
	Error   string `json:"error"`
	Partial struct {
		Reasoning string `json:"reasoning"`
	} `json:"partial"`
	Notes string `json:"notes"`
}

// A Result is what a test observes of one Stream call.
type Result struct {
	Resp      *llm.Response
	Err       error
	Text      string // the text events, joined
	Reasoning string // the reasoning events, joined
	Calls     []llm.ToolCall
}

// Stream sends req to p and collects its events.
func Stream(t *testing.T, p llm.Provider, req *llm.Request) Result {
	t.Helper()
	var r Result
	r.Resp, r.Err = p.Stream(t.Context(), req, func(e llm.Event) {
		switch e.Kind {
		case llm.EventText:
			r.Text += e.Text
		case llm.EventReasoning:
			r.Reasoning += e.Text
		case llm.EventToolCall:
			r.Calls = append(r.Calls, *e.ToolCall)
		}
	})
	return r
}

// recordedRequest is the request every recording answers.
var recordedRequest = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "What is the weather in San Francisco?"}},
	Tools: []llm.ToolDef{{Name: "weather", Description: "Weather for a place.", InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}}}

// TestRecordings replays every recorded reply of rec over HTTP, each
// stream in every form (whole, cut at random places, …) and each whole
// reply in every whole form, and compares what the provider reads with
// expected.json, which must cover every recorded stream.
func TestRecordings(t *testing.T, rec Recordings) {
	dir := requireRecordings(t, rec.Name)
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]Expectation
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("expected.json: %v", err)
	}
	files := make([]string, 0, len(want))
	for name := range want {
		files = append(files, name)
	}
	sort.Strings(files)
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*.chunks.txt"))
	seed := rec.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("random seed %d (rerun with -seed=%d)", seed, seed)
	whole := rec.Whole
	if len(whole) == 0 {
		whole = []WholeForm{{Provider: rec.Provider}}
	}
	var streams, responses int
	for _, name := range files {
		exp := want[name]
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.HasSuffix(name, ".chunks.txt") {
			streams++
			for i, form := range rec.Forms {
				t.Run(name+"/"+form.Name, func(t *testing.T) {
					var rng *rand.Rand
					if form.Split {
						rng = rand.New(rand.NewPCG(seed, uint64(i)))
					}
					srv := ServeBody(t, rec.Path, cmp.Or(form.ContentType, "text/event-stream"), form.Body(Payloads(raw)), rng)
					rec.check(t, Stream(t, rec.Provider(t, srv.URL), &recordedRequest), exp, raw)
				})
			}
			continue
		}
		responses++
		for _, form := range whole {
			sub := name
			if form.Name != "" {
				sub += "/" + form.Name
			}
			t.Run(sub, func(t *testing.T) {
				srv := ServeBody(t, rec.Path, "application/json", raw, nil)
				rec.check(t, Stream(t, form.Provider(t, srv.URL), &recordedRequest), exp, raw)
				if form.Sent != nil {
					form.Sent(t, srv.Requests()[0].Body)
				}
			})
		}
	}
	if streams != len(onDisk) || responses == 0 {
		t.Errorf("expected.json covers %d of the %d recorded streams and %d whole responses; want all of them", streams, len(onDisk), responses)
	}
	t.Logf("%d recorded streams in %d forms and %d whole responses checked", streams, len(rec.Forms), responses)
}

// check compares what a provider read of a recording with its
// expectation.
func (rec *Recordings) check(t *testing.T, r Result, exp Expectation, raw []byte) {
	t.Helper()
	if exp.Error != "" {
		if r.Err == nil {
			t.Fatalf("Stream succeeded, want an error (%s)", exp.Error)
		}
		if !errors.Is(r.Err, llm.ErrProtocol) || !strings.Contains(r.Err.Error(), exp.Error) {
			t.Errorf("Stream error = %v, want a protocol error saying %q", r.Err, exp.Error)
		}
		if len(r.Calls) != 0 {
			t.Errorf("tool call events %v for a failed reply", r.Calls)
		}
		if r.Reasoning != exp.Partial.Reasoning {
			t.Errorf("reasoning events %q before the error, want %q", r.Reasoning, exp.Partial.Reasoning)
		}
		return
	}
	if r.Err != nil {
		t.Fatalf("Stream: %v\nnotes: %s", r.Err, exp.Notes)
	}
	m := r.Resp.Message
	if m.Content != exp.Text {
		t.Errorf("text = %q, want %q", wire.Clip(m.Content, 300), wire.Clip(exp.Text, 300))
	}
	if rec.Reasoning && m.Reasoning != exp.Reasoning {
		t.Errorf("reasoning = %q, want %q", wire.Clip(m.Reasoning, 300), wire.Clip(exp.Reasoning, 300))
	}
	if r.Text != m.Content || r.Reasoning != m.Reasoning {
		t.Errorf("the text and reasoning events do not add up to the message")
	}
	if diff := gocmp.Diff(m.ToolCalls, r.Calls); diff != "" {
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
		if diff := gocmp.Diff(w, g); diff != "" {
			t.Errorf("call %d: arguments (-want +got):\n%s", i, diff)
		}
	}
	if exp.FinishReason == nil || r.Resp.FinishReason != *exp.FinishReason {
		t.Errorf("finish reason %q, want %v", r.Resp.FinishReason, exp.FinishReason)
	} else if rec.Stop != nil {
		if want := rec.Stop(*exp.FinishReason, len(exp.ToolCalls)); r.Resp.Stop != want {
			t.Errorf("stop %q for %q, want %q", r.Resp.Stop, *exp.FinishReason, want)
		}
	}
	if r.Resp.ID != exp.ID || r.Resp.Model != exp.Model {
		t.Errorf("id, model = %q, %q; want %q, %q", r.Resp.ID, r.Resp.Model, exp.ID, exp.Model)
	}
	recorded := exp.Usage
	if len(recorded) == 0 {
		recorded = json.RawMessage(`{}`) // none recorded: all zero
	}
	if wantUsage, err := rec.Usage(recorded, r.Resp.Usage); err != nil {
		t.Errorf("expected usage %s: %v", exp.Usage, err)
	} else if r.Resp.Usage != wantUsage {
		t.Errorf("usage %+v, want %+v", r.Resp.Usage, wantUsage)
	}
	if rec.Check != nil {
		rec.Check(t, r, raw)
	}
}

// A BodyServer answers every request with one body, as a recording
// does, and keeps the requests. Its methods are safe for concurrent use.
type BodyServer struct {
	*httptest.Server
	mu   sync.Mutex
	sent []Sent
}

// A Sent is a request a [BodyServer] got.
type Sent struct {
	URL    *url.URL
	Header http.Header
	Body   []byte
}

// Requests returns the requests the server got, oldest first. The caller
// owns the slice.
func (s *BodyServer) Requests() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

// ServeBody starts a server that answers a POST to a path that path
// accepts with body, of contentType, cut at random places (each piece
// flushed) when rng is not nil, and anything else with 404. It is closed
// when the test ends.
func ServeBody(t testing.TB, path func(string) bool, contentType string, body []byte, rng *rand.Rand) *BodyServer {
	t.Helper()
	var cuts []int
	if rng != nil {
		for i := 0; i < len(body); {
			i += 1 + rng.IntN(64)
			cuts = append(cuts, min(i, len(body)))
		}
	}
	s := &BodyServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !path(r.URL.Path) {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		data, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.sent = append(s.sent, Sent{URL: r.URL, Header: r.Header.Clone(), Body: data})
		s.mu.Unlock()
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
	t.Cleanup(s.Close)
	return s
}

// SSE renders payloads as data-only server-sent events ending in eol.
func SSE(eol string, payloads ...string) []byte {
	var b bytes.Buffer
	for _, p := range payloads {
		b.WriteString("data: " + p + eol + eol)
	}
	return b.Bytes()
}
