package llmtest

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

// maxRounds bounds [Conversation.Run].
const maxRounds = 5

// A Conversation plays the agent's part against a provider, as wield's
// agent loop does: each round sends Request, appends the reply to its
// messages and then the results an answer function gives for the
// reply's tool calls.
//
//	c := &llmtest.Conversation{Provider: p, Request: llm.Request{Messages: msgs, Tools: tools}}
//	r := c.Round(t, answer) // the calls of round 1, answered
//	last := c.Run(t, answer) // until a reply makes no calls
type Conversation struct {
	Provider llm.Provider
	// Request is what the next round sends; each round appends to its
	// Messages.
	Request llm.Request
	// Replies are what each round observed, oldest first.
	Replies []Result
}

// Round sends the conversation and appends the reply, then the results
// answer returns for the reply's tool calls; a nil answer appends none.
// It fails t when the provider returns an error.
func (c *Conversation) Round(t *testing.T, answer func(calls []llm.ToolCall) []llm.Message) Result {
	t.Helper()
	r := Stream(t, c.Provider, &c.Request)
	if r.Err != nil {
		t.Fatalf("round %d: %v", len(c.Replies)+1, r.Err)
	}
	c.Replies = append(c.Replies, r)
	c.Request.Messages = append(c.Request.Messages, r.Resp.Message)
	if answer != nil {
		c.Request.Messages = append(c.Request.Messages, answer(r.Resp.Message.ToolCalls)...)
	}
	return r
}

// Run plays rounds until a reply makes no tool calls, and returns that
// reply. It fails t when the model still calls tools after 5 rounds.
func (c *Conversation) Run(t *testing.T, answer func(calls []llm.ToolCall) []llm.Message) Result {
	t.Helper()
	for range maxRounds {
		if r := c.Round(t, answer); len(r.Resp.Message.ToolCalls) == 0 {
			return r
		}
	}
	t.Fatalf("the model still called tools after %d rounds", maxRounds)
	return Result{}
}

// A RetryLog is a [slog.Handler] for a provider's logger that keeps the
// wait of each retry the provider logs (the record's "wait"), for tests
// of how long a provider waits before it retries. Its zero value is ready
// to use. It is safe for concurrent use.
type RetryLog struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Enabled reports true: every record is kept.
func (l *RetryLog) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps the wait of r, if it has one.
func (l *RetryLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "wait" {
			l.waits = append(l.waits, a.Value.Duration())
		}
		return true
	})
	return nil
}

// WithAttrs returns l.
func (l *RetryLog) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup returns l.
func (l *RetryLog) WithGroup(string) slog.Handler { return l }

// Waits returns the waits logged, oldest first. The caller owns the
// slice.
func (l *RetryLog) Waits() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.waits)
}

// Screenshot stands for a picture a tool returns: what matters is that
// its bytes arrive unchanged.
const Screenshot = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR a screenshot"

// Screenshots answers each call with a 2x1 PNG picture, [Screenshot]:
// the first result with the text "screenshot 2x1", the others with no
// text. It is an answer function for [Conversation.Round].
func Screenshots(calls []llm.ToolCall) []llm.Message {
	var out []llm.Message
	for i, c := range calls {
		text := "screenshot 2x1"
		if i > 0 {
			text = ""
		}
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text,
			Images: []llm.Image{{MIMEType: "image/png", Width: 2, Height: 1, Data: []byte(Screenshot)}}})
	}
	return out
}

// JSONDiff returns the difference between the JSON value want and got,
// encoded as JSON (raw JSON stays as it is), as cmp.Diff reports it
// "(-want +got)"; "" means they are the same value. It fails t when want
// is not JSON or got cannot be encoded.
func JSONDiff(t *testing.T, want string, got any) string {
	t.Helper()
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("JSONDiff: %v", err)
	}
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("JSONDiff: want: %v", err)
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("JSONDiff: got: %v", err)
	}
	return cmp.Diff(w, g)
}
