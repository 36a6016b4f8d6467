package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

// A Reader reads one reply from r, passing its events to handle, as a
// provider's stream reader or whole-reply reader does.
type Reader func(r io.Reader, handle func(llm.Event)) (*llm.Response, error)

// An Outcome is a comparable summary of one read of a reply.
type Outcome struct {
	Resp *llm.Response
	// Err is the error's text, prefixed "unexpected error type: " when it
	// is none of the errors the reader may return.
	Err    string
	Events []llm.Event
}

// A ReaderTest is what must hold of a provider's reader for any body, for
// its fuzz targets: it never panics, whatever it returns is well formed,
// and it reads a body the same however the body arrives.
type ReaderTest struct {
	// Read is the reader under test.
	Read Reader
	// Errors are the errors besides [llm.ErrProtocol] and an
	// [*llm.APIError] that Read may return (such as [llm.ErrBlocked]).
	Errors []error
	// Thinking, if not nil, reports whether a thinking block of a reply is
	// one the provider can take back.
	Thinking func(llm.Thinking) bool
	// Stop and FinishReason report whether every reply must say why it
	// stopped, in wield's terms and in the provider's.
	Stop, FinishReason bool
	// CutCalls reports whether a reply stopped at max_tokens must have
	// dropped a call cut off in its arguments.
	CutCalls bool
	// Pieces reports whether [ReaderTest.CheckBody] also reads a body in
	// random pieces.
	Pieces bool
}

// Outcome reads r.
func (rt ReaderTest) Outcome(r io.Reader) Outcome {
	var o Outcome
	handle := func(e llm.Event) {
		if e.ToolCall != nil {
			c := *e.ToolCall
			e.ToolCall = &c
		}
		o.Events = append(o.Events, e)
	}
	var err error
	o.Resp, err = rt.Read(r, handle)
	if err != nil {
		o.Err = err.Error()
		_, api := errors.AsType[*llm.APIError](err)
		known := api || errors.Is(err, llm.ErrProtocol)
		for _, e := range rt.Errors {
			known = known || errors.Is(err, e)
		}
		if !known {
			o.Err = "unexpected error type: " + o.Err
		}
	}
	return o
}

// Check fails t when o is not well formed: an error of a type the reader
// may not return, an empty text event, neither a reply nor an error, a
// tool call event for a failed reply, events that do not add up to the
// message, an incomplete call, and what the test's fields ask for.
func (rt ReaderTest) Check(t *testing.T, o Outcome) {
	t.Helper()
	if strings.HasPrefix(o.Err, "unexpected error type") {
		t.Fatal(o.Err)
	}
	for _, e := range o.Events {
		if e.Kind != llm.EventToolCall && e.Text == "" {
			t.Fatalf("empty %s event", e.Kind)
		}
	}
	if o.Resp == nil {
		if o.Err == "" {
			t.Fatal("no response and no error")
		}
		for _, e := range o.Events {
			if e.Kind == llm.EventToolCall {
				t.Fatalf("tool call event %v for a failed reply", e.ToolCall)
			}
		}
		return
	}
	var text, reasoning strings.Builder
	var calls []llm.ToolCall
	for _, e := range o.Events {
		switch e.Kind {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		case llm.EventToolCall:
			calls = append(calls, *e.ToolCall)
		}
	}
	m := o.Resp.Message
	if text.String() != m.Content || reasoning.String() != m.Reasoning {
		t.Fatalf("events %q / %q do not add up to the message %q / %q", text.String(), reasoning.String(), m.Content, m.Reasoning)
	}
	if diff := cmp.Diff(m.ToolCalls, calls); diff != "" {
		t.Fatalf("tool call events differ from the message (-message +events):\n%s", diff)
	}
	for _, c := range m.ToolCalls {
		if c.ID == "" || c.Name == "" || len(bytes.TrimSpace(c.Arguments)) == 0 {
			t.Fatalf("incomplete tool call %+v", c)
		}
		if rt.CutCalls && o.Resp.Stop == llm.StopMaxTokens && !json.Valid(c.Arguments) {
			t.Fatalf("a cut-off call %+v kept at max_tokens", c)
		}
	}
	if rt.Thinking != nil {
		for _, th := range m.Thinking {
			if !rt.Thinking(th) {
				t.Fatalf("thinking block %+v cannot be sent back", th)
			}
		}
	}
	if m.Role != llm.RoleAssistant || rt.Stop && o.Resp.Stop == "" || rt.FinishReason && o.Resp.FinishReason == "" {
		t.Fatalf("role %q, stop %q, finish reason %q", m.Role, o.Resp.Stop, o.Resp.FinishReason)
	}
}

// CheckBody reads body whole, one byte at a time and, with Pieces, in
// random pieces that seed chooses (each read in halves), and fails t
// when the whole read is not well formed or another read differs.
func (rt ReaderTest) CheckBody(t *testing.T, body []byte, seed uint64) {
	t.Helper()
	whole := rt.Outcome(bytes.NewReader(body))
	rt.Check(t, whole)
	bytewise := rt.Outcome(iotest.OneByteReader(bytes.NewReader(body)))
	if diff := cmp.Diff(whole, bytewise); diff != "" {
		t.Fatalf("reading one byte at a time differs (-whole +bytewise):\n%s", diff)
	}
	if !rt.Pieces {
		return
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var parts []io.Reader
	for rest := body; len(rest) > 0; {
		n := 1 + rng.IntN(len(rest))
		parts = append(parts, iotest.HalfReader(bytes.NewReader(rest[:n])))
		rest = rest[n:]
	}
	pieces := rt.Outcome(io.MultiReader(parts...))
	if diff := cmp.Diff(whole, pieces); diff != "" {
		t.Fatalf("reading in random pieces differs (-whole +pieces):\n%s", diff)
	}
}
