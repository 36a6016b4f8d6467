package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/replay"
)

// A Target is a provider under [Conformance] and its scripted server.
type Target struct {
	// Serve starts the provider's scripted server, answering from entries
	// and failing the requests faults name, for the test's life.
	Serve func(t *testing.T, entries []replay.Entry, faults []Fault) Scripted
	// New returns the provider under test, sending Key to the server at
	// baseURL and logging its retries to log. It keeps the provider's
	// default retries, with a backoff of about a millisecond.
	New func(t *testing.T, baseURL string, log *slog.Logger) llm.Provider
	// Key is the API key the provider sends, which no error may show.
	Key string
	// KeyVar names the environment variable of the key, which the error
	// for a key the server rejects must name.
	KeyVar string
	// RetryAfterSeconds reports whether the server sends Retry-After in
	// whole seconds only, without retry-after-ms: the 20ms the suite's
	// faults ask for are then asked for, and waited, as 1s.
	RetryAfterSeconds bool
	// MaxTokensFinish is the finish reason of a reply the output limit
	// cut off ("max_tokens").
	MaxTokensFinish string
	// Malformed is what the error for the server's malformed event says
	// (which event it was: "stream event 4").
	Malformed string
}

// A Scripted is a target's scripted server as [Conformance] sees it.
type Scripted struct {
	// URL is the base URL to give the provider.
	URL string
	// Requests returns the requests the server got, oldest first.
	Requests func() []Received
	// Answered returns a channel closed when the server has finished
	// answering request n, counting from 1 (see [Server.Answered]).
	Answered func(n int) <-chan struct{}
}

// A Received is a request a scripted server got, in wield's terms.
type Received struct {
	// Messages is the conversation the request carries, as the server
	// decoded it: tool names as sent, tool call ids as sent (none where
	// the provider sends none).
	Messages []llm.Message
	// Tools are the names of the tools offered, as sent.
	Tools []string
	// MaxTokens is the request's limit on the reply; 0 means none.
	MaxTokens int
	// Turn and Round are the position the script was matched on.
	Turn, Round int
}

// Conformance runs the end-to-end scenarios every provider must pass
// against its scripted server, each a subtest: streamed text, a tool
// call and its result over two rounds, parallel tool calls, retries of a
// 429 and a 503 that honour Retry-After, API errors (as an
// [*llm.APIError] that names the server's message and never shows the
// key), a reply cut off at the output limit, a malformed event,
// cancellation mid-stream and pictures in tool results.
func Conformance(t *testing.T, tg Target) {
	t.Run("text", tg.text)
	t.Run("tool call and result", tg.toolRounds)
	t.Run("parallel tool calls", tg.parallelCalls)
	t.Run("retry", tg.retry)
	t.Run("errors", tg.apiErrors)
	t.Run("max tokens", tg.maxTokens)
	t.Run("malformed event", tg.malformed)
	t.Run("cancel mid-stream", tg.cancel)
	t.Run("images in tool results", tg.images)
}

var (
	readTool  = llm.ToolDef{Name: "fs.read", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
	clockTool = llm.ToolDef{Name: "clock", Description: "The time."}
	hello     = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}
)

// start starts the target's server and a provider of it.
func (tg Target) start(t *testing.T, entries []replay.Entry, faults ...Fault) (Scripted, llm.Provider, *RetryLog) {
	t.Helper()
	srv := tg.Serve(t, entries, faults)
	log := &RetryLog{}
	return srv, tg.New(t, srv.URL, slog.New(log)), log
}

// requests returns the requests srv got, failing t unless there are n.
func requests(t *testing.T, srv Scripted, n int) []Received {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Fatalf("%d requests, want %d", len(reqs), n)
	}
	return reqs
}

// contents answers each call with "contents of <path>", or "result of
// <name>" for a call without a path.
func contents(calls []llm.ToolCall) []llm.Message {
	var out []llm.Message
	for _, c := range calls {
		var in struct{ Path string }
		json.Unmarshal(c.Arguments, &in)
		text := "result of " + c.Name
		if in.Path != "" {
			text = "contents of " + in.Path
		}
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text})
	}
	return out
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && cmp.Equal(va, vb)
}

// noKey fails t when err shows the target's key.
func (tg Target) noKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && tg.Key != "" && strings.Contains(err.Error(), tg.Key) {
		t.Errorf("error %q shows the key", err)
	}
}

// text: a reply streamed in pieces arrives as text events that add up
// to the message.
func (tg Target) text(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{{Round: 1, Text: "Hello there, how are you?"}})
	var events []llm.Event
	resp, err := p.Stream(t.Context(), &hello, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if m.Role != llm.RoleAssistant || m.Content != "Hello there, how are you?" || len(m.ToolCalls) != 0 {
		t.Errorf("message %+v, want the assistant's text", m)
	}
	if resp.Stop != llm.StopEnd || resp.FinishReason == "" {
		t.Errorf("stop %q (%q), want end with the provider's reason", resp.Stop, resp.FinishReason)
	}
	var text strings.Builder
	for _, e := range events {
		if e.Kind != llm.EventText || e.Text == "" {
			t.Errorf("event %+v, want only non-empty text", e)
		}
		text.WriteString(e.Text)
	}
	if text.String() != m.Content || len(events) < 2 {
		t.Errorf("%d text events %q, want the text in more than one piece", len(events), text.String())
	}
	req := requests(t, srv, 1)[0]
	if diff := cmp.Diff(hello.Messages, req.Messages); diff != "" || req.Turn != 1 || req.Round != 1 {
		t.Errorf("the server's view at turn %d round %d (-want +got):\n%s", req.Turn, req.Round, diff)
	}
}

// toolRounds: a call in round 1, its result in round 2.
func (tg Target) toolRounds(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{
		{Round: 1, Text: "Let me look.", ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
		{Round: 2, Text: "It is module x."},
	})
	c := &Conversation{Provider: p, Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: "What module is this?"}},
		Tools:    []llm.ToolDef{readTool, clockTool},
	}}
	r1 := c.Round(t, contents)
	m := r1.Resp.Message
	if r1.Resp.Stop != llm.StopToolUse || m.Content != "Let me look." || r1.Text != m.Content || len(m.ToolCalls) != 1 {
		t.Fatalf("round 1: stop %q, text %q (events %q), calls %+v", r1.Resp.Stop, m.Content, r1.Text, m.ToolCalls)
	}
	call := m.ToolCalls[0]
	if call.Name != "fs.read" || !sameJSON(call.Arguments, []byte(`{"path":"go.mod"}`)) || call.ID == "" {
		t.Errorf("call %+v, want fs.read {\"path\":\"go.mod\"} with an id", call)
	}
	if diff := cmp.Diff(m.ToolCalls, r1.Calls); diff != "" {
		t.Errorf("tool call events differ from the message (-message +events):\n%s", diff)
	}
	r2 := c.Round(t, nil)
	if r2.Resp.Stop != llm.StopEnd || r2.Resp.Message.Content != "It is module x." {
		t.Errorf("round 2: stop %q, text %q", r2.Resp.Stop, r2.Resp.Message.Content)
	}

	reqs := requests(t, srv, 2)
	first, second := reqs[0], reqs[1]
	if first.Turn != 1 || first.Round != 1 || second.Turn != 1 || second.Round != 2 {
		t.Errorf("positions (%d,%d) then (%d,%d), want (1,1) then (1,2)", first.Turn, first.Round, second.Turn, second.Round)
	}
	if len(first.Tools) != 2 || first.Tools[1] != "clock" {
		t.Errorf("tools offered %v, want fs.read's wire name and clock", first.Tools)
	}
	// The second request carries the conversation back: the call, and
	// its result linked to it.
	conv := second.Messages
	var roles []llm.Role
	for _, m := range conv {
		roles = append(roles, m.Role)
	}
	if !cmp.Equal(roles, []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool}) {
		t.Fatalf("the server's view of round 2 has roles %v, want system, user, assistant, tool: %+v", roles, conv)
	}
	if conv[0].Content != "You are terse." || conv[1].Content != "What module is this?" || conv[2].Content != "Let me look." {
		t.Errorf("the server's view of round 2: %+v", conv[:3])
	}
	sent := conv[2].ToolCalls
	if len(sent) != 1 || !sameJSON(sent[0].Arguments, call.Arguments) || sent[0].ID != "" && sent[0].ID != call.ID {
		t.Fatalf("calls sent back %+v, want the call of round 1", sent)
	}
	if res := conv[3]; res.Content != "contents of go.mod" || res.ToolCallID != sent[0].ID {
		t.Errorf("result %+v, want the contents for call %q", res, sent[0].ID)
	}
}

// parallelCalls: three calls in one reply, answered out of order.
func (tg Target) parallelCalls(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "call_a", Name: "fs.read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
			{ID: "call_b", Name: "fs.read", Arguments: json.RawMessage(`{"path":"b.go"}`)},
			{Name: "clock"}, // the server makes up its id
		}},
		{Round: 2, Text: "Done."},
	})
	c := &Conversation{Provider: p, Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Read a.go and b.go, and tell the time."}},
		Tools:    []llm.ToolDef{readTool, clockTool},
	}}
	r := c.Round(t, func(calls []llm.ToolCall) []llm.Message {
		out := contents(calls)
		out[0], out[2] = out[2], out[0] // results come back in another order
		return out
	})
	calls := r.Resp.Message.ToolCalls
	var got []string
	for _, call := range calls {
		got = append(got, call.ID+" "+call.Name+" "+string(call.Arguments))
	}
	if len(calls) != 3 || calls[2].ID == "" || calls[2].ID == "call_a" || calls[2].ID == "call_b" {
		t.Fatalf("calls %v, want three with distinct ids", got)
	}
	want := []string{`call_a fs.read {"path":"a.go"}`, `call_b fs.read {"path":"b.go"}`, calls[2].ID + ` clock {}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(calls, r.Calls); diff != "" || r.Resp.Stop != llm.StopToolUse {
		t.Errorf("stop %q; tool call events differ from the message (-message +events):\n%s", r.Resp.Stop, diff)
	}
	if last := c.Round(t, nil); last.Resp.Message.Content != "Done." {
		t.Errorf("round 2: %q", last.Resp.Message.Content)
	}
	conv := requests(t, srv, 2)[1].Messages
	if len(conv) < 3 {
		t.Fatalf("the server's view of round 2: %+v", conv)
	}
	// The results go back in call order or in the order given, each
	// linked to its call: the scripted ids come back, the made-up one may
	// be left out.
	results := conv[len(conv)-3:]
	var order []string
	for _, m := range results {
		order = append(order, m.Content)
	}
	inCallOrder := []string{"contents of a.go", "contents of b.go", "result of clock"}
	if !cmp.Equal(order, inCallOrder) && !cmp.Equal(order, []string{"result of clock", "contents of b.go", "contents of a.go"}) {
		t.Fatalf("results %q, want them in call order or as given", order)
	}
	for _, res := range results {
		i := slices.Index(inCallOrder, res.Content)
		if res.Role != llm.RoleTool || res.ToolCallID != calls[i].ID && (i < 2 || res.ToolCallID != "") {
			t.Errorf("result %+v, want it linked to call %q", res, calls[i].ID)
		}
	}
}

// retry: a 429 and a 503 with Retry-After are retried after the wait the
// server asked for, and the reply is shown once.
func (tg Target) retry(t *testing.T) {
	const after = 20 * time.Millisecond
	want := after
	if tg.RetryAfterSeconds {
		want = time.Second
	}
	for _, f := range []Fault{
		{Request: 1, Status: http.StatusTooManyRequests, Message: "Rate limit reached for requests.", RetryAfter: after},
		{Request: 1, Status: http.StatusServiceUnavailable, Message: "The model is overloaded.", RetryAfter: after},
	} {
		t.Run(fmt.Sprint(f.Status), func(t *testing.T) {
			t.Parallel() // each waits
			srv, p, log := tg.start(t, []replay.Entry{{Round: 1, Text: "Hello."}}, f)
			start := time.Now()
			r := Stream(t, p, &hello)
			waited := time.Since(start)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Resp.Message.Content != "Hello." || r.Text != "Hello." {
				t.Errorf("text %q, events %q; want Hello. once", r.Resp.Message.Content, r.Text)
			}
			requests(t, srv, 2)
			if waits := log.Waits(); len(waits) != 1 || waits[0] != want {
				t.Errorf("retry waits %v, want one of %v", waits, want)
			}
			if waited < want {
				t.Errorf("retried after %v, before the %v the server asked for", waited, want)
			}
		})
	}
}

// apiErrors: an error status is an *llm.APIError that says what the server
// said and never shows the key; one that retrying cannot help is not
// retried.
func (tg Target) apiErrors(t *testing.T) {
	attempts := wire.DefaultMaxRetries + 1
	tests := []struct {
		name     string
		entries  []replay.Entry
		fault    Fault
		status   int
		want     []string
		requests int
	}{
		{name: "bad request", entries: []replay.Entry{{Round: 1, Error: &replay.Error{Status: 400, Message: "messages.0.content: Input should be a valid list"}}},
			status: 400, want: []string{"messages.0.content: Input should be a valid list"}},
		{name: "the key in a message", entries: []replay.Entry{{Round: 1, Error: &replay.Error{Status: 400, Message: "key " + tg.Key + " is not allowed here"}}},
			status: 400, want: []string{"key [redacted] is not allowed here"}},
		{name: "key rejected", fault: Fault{Request: 1, Status: 401, Message: "Incorrect API key provided: " + tg.Key + "."},
			status: 401, want: []string{"Incorrect API key provided: [redacted]", tg.KeyVar}},
		{name: "key forbidden", fault: Fault{Request: 1, Status: 403, Message: "Method doesn't allow unregistered callers; key " + tg.Key + " is blocked."},
			status: 403, want: []string{"key [redacted] is blocked", tg.KeyVar}},
		{name: "no scripted reply", entries: []replay.Entry{{Round: 2, Text: "late"}},
			status: 400, want: []string{"no scripted response for turn 1, round 1"}},
		{name: "server error for good", entries: []replay.Entry{{Round: 1, Error: &replay.Error{Status: 503, Message: "The model is overloaded."}}},
			status: 503, want: []string{"The model is overloaded", fmt.Sprintf("gave up after %d attempts", attempts)}, requests: attempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.entries == nil {
				tt.entries = []replay.Entry{{Round: 1, Text: "Hello."}}
			}
			var faults []Fault
			if tt.fault.Request != 0 {
				faults = append(faults, tt.fault)
			}
			srv, p, _ := tg.start(t, tt.entries, faults...)
			r := Stream(t, p, &hello)
			apiErr, ok := errors.AsType[*llm.APIError](r.Err)
			if !ok || apiErr.Status != tt.status || r.Resp != nil || len(r.Calls) != 0 {
				t.Fatalf("Stream = %v, %v (calls %v); want an APIError with status %d", r.Resp, r.Err, r.Calls, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Err.Error(), w) {
					t.Errorf("error %q does not say %q", r.Err, w)
				}
			}
			tg.noKey(t, r.Err)
			requests(t, srv, max(1, tt.requests))
		})
	}
}

// maxTokens: a reply cut off at the output limit keeps its text and its
// complete calls, and drops the call cut off in its arguments.
func (tg Target) maxTokens(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{{Round: 1, Stop: llm.StopMaxTokens, Text: "I will read both files", ToolCalls: []llm.ToolCall{
		{ID: "call_1", Name: "fs.read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		{ID: "call_2", Name: "fs.read", Arguments: json.RawMessage(`"{\"path\": \"b.`)}, // cut off
	}}})
	r := Stream(t, p, &llm.Request{Messages: hello.Messages, Tools: []llm.ToolDef{readTool}, MaxTokens: 300})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Resp.Stop != llm.StopMaxTokens || r.Resp.FinishReason != tg.MaxTokensFinish {
		t.Errorf("stop %q (%q), want max_tokens (%q)", r.Resp.Stop, r.Resp.FinishReason, tg.MaxTokensFinish)
	}
	if r.Resp.Message.Content != "I will read both files" {
		t.Errorf("text %q, want it kept", r.Resp.Message.Content)
	}
	calls := r.Resp.Message.ToolCalls
	if len(calls) != 1 || calls[0].ID != "call_1" || string(calls[0].Arguments) != `{"path":"a.go"}` || len(r.Calls) != 1 {
		t.Errorf("calls %+v (events %+v), want only the complete one", calls, r.Calls)
	}
	if got := requests(t, srv, 1)[0].MaxTokens; got != 300 {
		t.Errorf("max tokens %d, want the request's 300", got)
	}
}

// malformed: an event that is not JSON fails the reply with an error
// that names it, and is not retried.
func (tg Target) malformed(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{{Round: 1, Text: "Hello there, how are you?"}}, Fault{Request: 1, Malformed: true})
	r := Stream(t, p, &hello)
	if !errors.Is(r.Err, llm.ErrProtocol) || r.Resp != nil || len(r.Calls) != 0 {
		t.Fatalf("Stream = %v, %v (calls %v); want no response and an error wrapping ErrProtocol", r.Resp, r.Err, r.Calls)
	}
	if !strings.Contains(r.Err.Error(), tg.Malformed) {
		t.Errorf("error %q does not say %q", r.Err, tg.Malformed)
	}
	tg.noKey(t, r.Err)
	requests(t, srv, 1) // a broken reply is not retried
}

// cancel: a context cancelled while the stream stalls ends the call at
// once with the context's error, no event comes after it, and the
// provider hangs up.
func (tg Target) cancel(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{{Round: 1, Text: "Hello there, how are you?"}}, Fault{Request: 1, Stall: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var events []llm.Event
	resp, err := p.Stream(ctx, &hello, func(e llm.Event) {
		events = append(events, e)
		cancel() // the first event arrived; the stream now stalls
	})
	if !errors.Is(err, context.Canceled) || resp != nil {
		t.Fatalf("Stream = %v, %v; want context.Canceled", resp, err)
	}
	if len(events) != 1 || events[0].Kind != llm.EventText || events[0].Text == "" {
		t.Errorf("events %+v, want the first text and nothing after the cancellation", events)
	}
	// The server's stalled answer ends only when the client hangs up:
	// the provider left nothing reading the stream.
	<-srv.Answered(1)
	requests(t, srv, 1)
}

// images: two calls whose results carry a picture each (the second with
// no text) send the pictures, unchanged, with the results.
func (tg Target) images(t *testing.T) {
	srv, p, _ := tg.start(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "desktop", Arguments: json.RawMessage(`{"action":"screenshot"}`)},
			{ID: "call_2", Name: "desktop", Arguments: json.RawMessage(`{"action":"zoom"}`)}}},
		{Round: 2, Text: "A terminal."},
	})
	c := &Conversation{Provider: p, Request: llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "You are terse."}, {Role: llm.RoleUser, Content: "What is on the screen?"}},
		Tools:    []llm.ToolDef{{Name: "desktop", Description: "The screen."}},
	}}
	c.Round(t, Screenshots)
	if last := c.Round(t, nil); last.Resp.Message.Content != "A terminal." {
		t.Errorf("round 2: %q", last.Resp.Message.Content)
	}
	req := requests(t, srv, 2)[1]
	if req.Round != 2 || len(req.Messages) < 2 {
		t.Fatalf("the server's view of round %d: %+v", req.Round, req.Messages)
	}
	picture := []llm.Image{{MIMEType: "image/png", Data: []byte(Screenshot)}}
	want := []llm.Message{
		{Role: llm.RoleTool, ToolCallID: "call_1", Content: "screenshot 2x1", Images: picture},
		{Role: llm.RoleTool, ToolCallID: "call_2", Images: picture},
	}
	// The size travels in no API; the server's view of a result may or
	// may not name its tool.
	opts := cmp.Options{cmpopts.IgnoreFields(llm.Message{}, "ToolName"), cmpopts.IgnoreFields(llm.Image{}, "Width", "Height")}
	if diff := cmp.Diff(want, req.Messages[len(req.Messages)-2:], opts); diff != "" {
		t.Errorf("the server's view of the results (-want +got):\n%s", diff)
	}
}
