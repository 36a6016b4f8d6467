// Package replay is a scripted [llm.Provider]: it plays responses from a
// script instead of calling a model. It serves tests, demos and bug
// reproductions: record what a model said once, replay it forever.
//
// A script is JSON Lines, one [Entry] per line:
//
//	{"turn": 1, "round": 1, "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "go.mod"}}]}
//	{"turn": 1, "round": 2, "text": "The module is github.com/wieldhq/wield."}
//
// Tool-call arguments are a JSON object, or a string holding the raw
// argument text as OpenAI sends it, which may be malformed on purpose.
//
// Matching is stateless, so one script serves concurrent and resumed runs:
// a request's turn is the number of user messages in it, and its round is
// one more than the number of assistant messages after the last user
// message. An entry with turn 0 matches any turn. Requests that match no
// entry fail with an error and are kept for inspection ([Provider.Unmatched]).
//
// # Several conversations in one script
//
// Subagents talk to the same model as their parent, each in a conversation
// of its own that starts again at turn 1, round 1. An entry with "when"
// answers only the requests whose system prompt or first user message
// contains that text, so a script can tell them apart by a phrase of the
// child's prompt or of the task it was given:
//
//	{"turn": 1, "round": 1, "tool_calls": [{"name": "agent", "arguments": {"type": "reviewer", "prompt": "Review main.go"}}]}
//	{"when": "Review main.go", "round": 1, "tool_calls": [{"name": "complete_task", "arguments": {"status": "done", "result": "LGTM"}}]}
//
// Among the entries for a request's round, one whose "when" holds beats
// one without "when", and an exact turn beats turn 0; the first in the
// script wins a tie. An entry whose "when" does not hold is never used.
package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/wieldhq/wield/llm"
)

// An Entry is one scripted response.
type Entry struct {
	// Turn and Round select the requests this entry answers; see the
	// package documentation. Round must be at least 1.
	Turn  int `json:"turn,omitempty"`
	Round int `json:"round"`
	// When, if set, restricts the entry to the requests whose system
	// prompt or first user message contains it; see the package
	// documentation.
	When string `json:"when,omitempty"`
	// Text, Reasoning, Thinking and ToolCalls make up the assistant
	// message; Thinking blocks and call signatures are played back as a
	// provider sent them, so a recorded Claude or Gemini run replays whole.
	Text      string         `json:"text,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
	Thinking  []llm.Thinking `json:"thinking,omitempty"`
	ToolCalls []llm.ToolCall `json:"tool_calls,omitempty"`
	// Model is the model that answered; empty means "replay".
	Model string `json:"model,omitempty"`
	// FinishReason defaults to "tool_calls" when there are tool calls and
	// "stop" otherwise.
	FinishReason string `json:"finish_reason,omitempty"`
	// Stop defaults to max_tokens for the finish reasons "length" and
	// "max_tokens", tool_use when there are tool calls, and end otherwise.
	Stop  llm.StopReason `json:"stop,omitempty"`
	Usage llm.Usage      `json:"usage,omitzero"`
	// Error, if set, makes the request fail with an [llm.APIError] of this
	// status and message instead.
	Error *Error `json:"error,omitempty"`
}

// Error is a scripted endpoint failure.
type Error struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// A Provider replays a script. It is safe for concurrent use.
type Provider struct {
	entries []Entry

	mu        sync.Mutex
	unmatched []llm.Request
	requests  []llm.Request
}

// New returns a provider that replays entries.
func New(entries []Entry) (*Provider, error) {
	for i, e := range entries {
		if e.Round < 1 {
			return nil, fmt.Errorf("replay entry %d: round must be at least 1", i+1)
		}
		if e.Turn < 0 {
			return nil, fmt.Errorf("replay entry %d: turn must not be negative", i+1)
		}
		for _, c := range e.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("replay entry %d: a tool call has no name", i+1)
			}
		}
	}
	return &Provider{entries: entries}, nil
}

// Load reads a JSON Lines script from path. Blank lines and lines starting
// with '#' or "//" are skipped.
func Load(path string) (*Provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay script: %w", err)
	}
	entries, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("replay script %s: %w", path, err)
	}
	return New(entries)
}

// Parse decodes a JSON Lines script.
func Parse(data []byte) ([]Entry, error) {
	var entries []Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		// One entry a line: anything after the entry is a mistake (two
		// entries joined, a stray character), not something to ignore.
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("line %d: unexpected text after the entry", n)
		}
		entries = append(entries, e)
	}
	return entries, sc.Err()
}

// Position returns the turn and round of req, as matching uses them.
func Position(req *llm.Request) (turn, round int) {
	round = 1
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleUser:
			turn++
			round = 1
		case llm.RoleAssistant:
			round++
		}
	}
	return turn, round
}

// Stream answers req from the script; see [llm.Provider].
func (p *Provider) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	turn, round := Position(req)
	p.mu.Lock()
	p.requests = append(p.requests, *req)
	p.mu.Unlock()
	e, ok := p.match(req, turn, round)
	if !ok {
		p.mu.Lock()
		p.unmatched = append(p.unmatched, *req)
		p.mu.Unlock()
		return nil, fmt.Errorf("replay: no scripted response for turn %d, round %d", turn, round)
	}
	if e.Error != nil {
		return nil, &llm.APIError{Status: e.Error.Status, Message: e.Error.Message}
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: e.Text, Reasoning: e.Reasoning, Thinking: e.Thinking}
	for i, c := range e.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("replay_%d_%d_%d", turn, round, i+1)
		}
		var raw string
		if json.Unmarshal(c.Arguments, &raw) == nil {
			c.Arguments = json.RawMessage(raw) // a string holds the raw text, possibly malformed
		}
		msg.ToolCalls = append(msg.ToolCalls, c)
	}
	if handle != nil {
		if e.Reasoning != "" {
			handle(llm.Event{Kind: llm.EventReasoning, Text: e.Reasoning})
		}
		for _, w := range splitWords(e.Text) {
			handle(llm.Event{Kind: llm.EventText, Text: w})
		}
		for i := range msg.ToolCalls {
			handle(llm.Event{Kind: llm.EventToolCall, ToolCall: &msg.ToolCalls[i]})
		}
	}
	finish := e.FinishReason
	if finish == "" {
		finish = "stop"
		if len(msg.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	stop := e.Stop
	if stop == "" {
		switch {
		case finish == "length" || finish == "max_tokens":
			stop = llm.StopMaxTokens
		case len(msg.ToolCalls) > 0:
			stop = llm.StopToolUse
		default:
			stop = llm.StopEnd
		}
	}
	return &llm.Response{ID: fmt.Sprintf("replay-%d-%d", turn, round), Model: cmp.Or(e.Model, "replay"), Message: msg,
		FinishReason: finish, Stop: stop, Usage: e.Usage}, nil
}

// match returns the entry that answers req, at turn and round: the best
// by the ranking in the package documentation.
func (p *Provider) match(req *llm.Request, turn, round int) (Entry, bool) {
	best, bestRank := -1, 0
	for i := range p.entries {
		e := &p.entries[i]
		if e.Round != round || e.Turn != 0 && e.Turn != turn {
			continue
		}
		rank := 1
		if e.Turn == turn {
			rank++
		}
		if e.When != "" {
			if !mentions(req, e.When) {
				continue
			}
			rank += 2
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	if best < 0 {
		return Entry{}, false
	}
	return p.entries[best], true
}

// mentions reports whether the system prompt or the first user message of
// req contains text.
func mentions(req *llm.Request, text string) bool {
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleSystem:
			if strings.Contains(m.Content, text) {
				return true
			}
		case llm.RoleUser:
			return strings.Contains(m.Content, text)
		}
	}
	return false
}

// Unmatched returns the requests no entry answered, oldest first. The
// caller owns the slice.
func (p *Provider) Unmatched() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.unmatched...)
}

// Requests returns every request the provider received, oldest first, so
// tests can check what a model was shown. The caller owns the slice.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.requests...)
}

// splitWords cuts s into word-sized deltas that concatenate back to s.
func splitWords(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s[1:], ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
