// Package anthropictest provides a scripted server that speaks Anthropic's
// Messages API, for tests of code that talks to a model through
// llm/anthropic: the provider's own tests, and the CLI's, which point
// wield at it with --base-url.
//
//	srv := anthropictest.NewServer(t, []replay.Entry{
//		{Round: 1, ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
//		{Round: 2, Text: "It is module x."},
//	})
//	p, _ := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "test"})
//
// The server answers POST {URL}/v1/messages with a stream of the API's
// events (message_start, content_block_start/delta/stop, message_delta,
// message_stop, ping). Each request is answered with the [replay.Entry]
// matched on its turn and round, counted as [replay.Position] counts them
// in the conversation the request carries: a user message with text is a
// turn, tool results are not. The requests are recorded, decoded, for the
// test to inspect ([Server.Requests]), and [Fault]s inject failures: an
// error status with retry-after, an error event, a malformed event, a
// stream that stalls.
//
// # The reply
//
// An entry's thinking blocks come first (those of provider "anthropic", or
// none; an entry with only Reasoning gets one thinking block signed
// "sig-" and a hash of its text), then its text, then a tool_use block per
// call, its input streamed in pieces. Tool names the request offered are
// used as sent; others are sanitized as llm/anthropic sanitizes them. A
// call whose arguments are a JSON string is streamed as that raw text, so
// a script can send broken JSON; with stop max_tokens, such a call's block
// is left unfinished, as the API leaves a call cut off at the output
// limit. The stop_reason is the entry's FinishReason when it is one of the
// API's, else Stop's equivalent (end → end_turn, tool_use, max_tokens,
// refusal, other → pause_turn), else tool_use with calls and end_turn
// without.
//
// # Checks
//
// The server rejects, with a 400 invalid_request_error as the API words
// it, what the API rejects and a provider could get wrong: no
// anthropic-version header, no x-api-key (or another key than
// [Options.Key]), a missing model or max_tokens, no messages, more than
// four cache_control breakpoints, a thinking budget below 1024 or not
// below max_tokens, a thinking block without signature, and a tool_use
// whose tool_result is not in the next message.
//
// # Prompt caching
//
// The server simulates the API's prompt cache, so tests can measure what
// caching saves. A request's tokens are counted as ceil(bytes/4) of each
// of its parts (each tool definition, system block and content block, as
// JSON without cache_control), in the API's cache order: tools, system,
// messages. The server remembers the prefix up to every cache_control
// breakpoint it has seen. A new request reads from the cache the longest
// remembered prefix it starts with (cache_read_input_tokens), writes the
// part from there up to its own last breakpoint
// (cache_creation_input_tokens), and pays input_tokens for the rest. A
// request without breakpoints reads nothing and writes nothing. Unlike
// the API, there is no minimum cacheable length and nothing expires. An
// entry with a non-zero Usage reports that usage instead.
package anthropictest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// A Fault makes the server fail one request instead of answering it from
// the script.
type Fault struct {
	// Request is the number of the request it hits, counting from 1 over
	// all requests the server got.
	Request int
	// Status, if not zero, is the HTTP status of the answer, with an
	// Anthropic error body of Type and Message.
	Status int
	// Type is the error's type, such as "overloaded_error"; empty means
	// the one the API sends with Status (for ErrorEvent,
	// "overloaded_error").
	Type    string
	Message string
	// RetryAfter is sent with Status as retry-after (whole seconds,
	// rounded up) and retry-after-ms.
	RetryAfter time.Duration
	// ErrorEvent answers with a stream that starts and then has an error
	// event of Type and Message, before any content.
	ErrorEvent bool
	// Malformed answers with a stream that starts well, with a first text
	// delta, and then has an event whose data is not JSON.
	Malformed bool
	// Stall sends message_start and a first text delta, then nothing until
	// the client hangs up.
	Stall bool
}

// Options configure a [Server]; nil means the zero Options.
type Options struct {
	// Key, if not empty, is the only x-api-key the server accepts;
	// empty means any non-empty key.
	Key string
	// Faults fail the requests they name.
	Faults []Fault
}

// A Server is a scripted Anthropic Messages API on 127.0.0.1. It is
// closed when the test ends. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API root to use as the base URL (without /v1).
	URL string

	core *llmtest.Server[Request]
}

// A Request is one request the server got, decoded.
type Request struct {
	Header http.Header
	// Body is the request body as sent.
	Body json.RawMessage
	// Model, MaxTokens, Stream and Temperature are the request's.
	Model       string
	MaxTokens   int
	Stream      bool
	Temperature *float64
	// ThinkingBudget is thinking.budget_tokens when thinking is enabled.
	ThinkingBudget int
	// System and Messages are as sent, block by block.
	System   []Block
	Messages []Message
	// Tools are the tools offered, as sent.
	Tools []Tool
	// Conversation is the request in wield's terms: the system blocks as
	// one system message, tool_result blocks as tool messages, thinking
	// blocks as [llm.Thinking] of provider "anthropic". Tool names are as
	// sent.
	Conversation []llm.Message
	// Turn and Round are the position the script was matched on.
	Turn, Round int
	// Breakpoints counts the cache_control marks in the request.
	Breakpoints int
	// Usage is what the server reported for the request's input: its
	// tokens (InputTokens, all of them), the part read from the simulated
	// cache and the part written to it.
	Usage llm.Usage
}

// A Message is one message of a request.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// UnmarshalJSON accepts content as a string or as blocks, as the API does.
func (m *Message) UnmarshalJSON(data []byte) error {
	var v struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	blocks, err := decodeBlocks(v.Content)
	if err != nil {
		return err
	}
	m.Role, m.Content = v.Role, blocks
	return nil
}

// decodeBlocks decodes content given as a string or as blocks.
func decodeBlocks(raw json.RawMessage) ([]Block, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Block{{Type: "text", Text: s}}, nil
	}
	var blocks []Block
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// A Block is one content block of a request, with the fields of every
// type the server understands.
type Block struct {
	Type string `json:"type"`
	// Text is a text block's text.
	Text string `json:"text,omitempty"`
	// ID, Name and Input are a tool_use block's.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// ToolUseID, Content and IsError are a tool_result block's; Content
	// is a string or blocks.
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	// Thinking and Signature are a thinking block's, Data a
	// redacted_thinking block's.
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	// CacheControl marks a prompt-cache breakpoint.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
	// Source is an image block's picture.
	Source *ImageSource `json:"source,omitempty"`
}

// An ImageSource is an image block's source: base64 data of a type.
type ImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
}

// ResultImages returns the pictures of a tool_result block's content
// that have base64 data.
func (b Block) ResultImages() []llm.Image {
	blocks, _ := decodeBlocks(b.Content)
	var out []llm.Image
	for _, c := range blocks {
		if c.Type != "image" || c.Source == nil || c.Source.Type != "base64" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(c.Source.Data)
		if err != nil {
			continue
		}
		out = append(out, llm.Image{MIMEType: c.Source.MediaType, Data: data})
	}
	return out
}

// ResultText returns the text of a tool_result block's content.
func (b Block) ResultText() string {
	blocks, _ := decodeBlocks(b.Content)
	var out strings.Builder
	for _, c := range blocks {
		out.WriteString(c.Text)
	}
	return out.String()
}

// A Tool is one tool definition of a request.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *CacheControl   `json:"cache_control,omitempty"`
}

// CacheControl is a cache_control mark.
type CacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// NewServer starts a server that answers from entries. It fails the test
// when an entry is invalid. opts may be nil.
func NewServer(t testing.TB, entries []replay.Entry, opts *Options) *Server {
	t.Helper()
	d := &dialect{}
	var faults []llmtest.Fault
	if opts != nil {
		d.key = opts.Key
		for _, f := range opts.Faults {
			faults = append(faults, llmtest.Fault{Request: f.Request, Status: f.Status, Type: f.Type, Message: f.Message,
				RetryAfter: f.RetryAfter, ErrorEvent: f.ErrorEvent, Malformed: f.Malformed, Stall: f.Stall})
		}
	}
	core := llmtest.NewServer(t, "anthropictest", llmtest.Dialect[Request](d), entries, faults)
	return &Server{URL: core.URL, core: core}
}

// Requests returns the requests the server got, oldest first. The caller
// owns the slice.
func (s *Server) Requests() []Request { return s.core.Requests() }

// Answered returns a channel that is closed when the server has finished
// answering request n, counting from 1: for a stream that stalls, once
// the client has hung up. See [llmtest.Server.Answered].
func (s *Server) Answered(n int) <-chan struct{} { return s.core.Answered(n) }

// Usage returns the sum of the usage the server reported, input and
// output, over all requests it answered.
func (s *Server) Usage() llm.Usage {
	var u llm.Usage
	for _, r := range s.core.Requests() {
		u = u.Add(r.Usage)
	}
	return u
}

// dialect is the Messages API for an [llmtest.Server]. The server's lock
// guards its cache.
type dialect struct {
	key   string
	cache cache
}

// Decode checks the headers and decodes the request; see [llmtest.Dialect].
func (d *dialect) Decode(r *http.Request, body []byte) (req Request, turn, round int, err error) {
	req = Request{Header: r.Header.Clone(), Body: body}
	switch {
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages"):
		err = &llmtest.StatusError{Status: http.StatusNotFound, Message: "Not Found: " + r.Method + " " + r.URL.Path + " (POST to /v1/messages)"}
	case r.Header.Get("X-Api-Key") == "" || d.key != "" && r.Header.Get("X-Api-Key") != d.key:
		err = &llmtest.StatusError{Status: http.StatusUnauthorized, Message: "invalid x-api-key"}
	case r.Header.Get("Anthropic-Version") == "":
		err = errors.New("anthropic-version: header is required")
	default:
		err = decode(&req)
	}
	if err == nil {
		req.Usage = d.cache.use(&req)
	}
	return req, req.Turn, req.Round, err
}

// Answer prepares the event stream of e; see [llmtest.Dialect].
func (d *dialect) Answer(req *Request, n int, e replay.Entry) func(http.ResponseWriter, *http.Request, llmtest.Fault) {
	if !req.Stream {
		return func(w http.ResponseWriter, _ *http.Request, _ llmtest.Fault) {
			d.WriteError(w, llmtest.Fault{Status: http.StatusBadRequest, Message: "anthropictest: only streamed requests are served; send \"stream\": true"})
		}
	}
	rp := newReply(e, n, req)
	req.Usage = rp.usage
	return rp.write
}

// statusType is the error type the API sends with a status.
func statusType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

// WriteError answers with an Anthropic error body; see [llmtest.Dialect].
func (d *dialect) WriteError(w http.ResponseWriter, f llmtest.Fault) {
	llmtest.SetRetryAfter(w.Header(), f.RetryAfter, true)
	typ := f.Type
	if typ == "" {
		typ = statusType(f.Status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": f.Message}})
}

// badRequest is an error message worded as the API words it.
type badRequest string

func (b badRequest) Error() string { return string(b) }

// decode decodes and checks a request, and fills in its conversation and
// position.
func decode(req *Request) error {
	var body struct {
		Model       *string         `json:"model"`
		MaxTokens   *int            `json:"max_tokens"`
		Stream      bool            `json:"stream"`
		Temperature *float64        `json:"temperature"`
		System      json.RawMessage `json:"system"`
		Messages    []Message       `json:"messages"`
		Tools       []Tool          `json:"tools"`
		Thinking    *struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("anthropictest: the request is not a Messages API request: %v", err)
	}
	switch {
	case body.Model == nil || *body.Model == "":
		return fmt.Errorf("model: Field required")
	case body.MaxTokens == nil:
		return fmt.Errorf("max_tokens: Field required")
	case len(body.Messages) == 0:
		return fmt.Errorf("messages: at least one message is required")
	}
	req.Model, req.MaxTokens, req.Stream, req.Temperature = *body.Model, *body.MaxTokens, body.Stream, body.Temperature
	req.Messages, req.Tools = body.Messages, body.Tools
	system, err := decodeBlocks(body.System)
	if err != nil {
		return fmt.Errorf("system: %v", err)
	}
	req.System = system
	if t := body.Thinking; t != nil && t.Type == "enabled" {
		req.ThinkingBudget = t.BudgetTokens
		switch {
		case t.BudgetTokens < 1024:
			return fmt.Errorf("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
		case t.BudgetTokens >= req.MaxTokens:
			return fmt.Errorf("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
		case req.Temperature != nil && *req.Temperature != 1:
			return fmt.Errorf("`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility")
		}
	}
	for _, b := range req.System {
		if b.CacheControl != nil {
			req.Breakpoints++
		}
	}
	for _, t := range req.Tools {
		if t.CacheControl != nil {
			req.Breakpoints++
		}
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		for j, b := range m.Content {
			if b.CacheControl != nil {
				req.Breakpoints++
			}
			switch {
			case b.Type == "text" && b.Text == "":
				return fmt.Errorf("messages.%d.content.%d: text content blocks must be non-empty", i, j)
			case b.Type == "thinking" && b.Signature == "":
				return fmt.Errorf("messages.%d.content.%d.thinking.signature: Field required", i, j)
			case (b.Type == "thinking" || b.Type == "redacted_thinking") && b.CacheControl != nil:
				return fmt.Errorf("messages.%d.content.%d.%s.cache_control: Extra inputs are not permitted", i, j, b.Type)
			}
		}
		if err := checkResults(req.Messages, i); err != nil {
			return err
		}
	}
	if req.Breakpoints > 4 {
		return badRequest(fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", req.Breakpoints))
	}
	req.Conversation = conversation(req)
	req.Turn, req.Round = replay.Position(&llm.Request{Messages: req.Conversation})
	return nil
}

// checkResults checks that every tool_use of message i is answered by a
// tool_result in message i+1, as the API requires.
func checkResults(msgs []Message, i int) error {
	if msgs[i].Role != "assistant" {
		return nil
	}
	var ids []string
	for _, b := range msgs[i].Content {
		if b.Type == "tool_use" {
			ids = append(ids, b.ID)
		}
	}
	if len(ids) == 0 || i+1 == len(msgs) {
		return nil
	}
	answered := map[string]bool{}
	for _, b := range msgs[i+1].Content {
		if b.Type == "tool_result" {
			answered[b.ToolUseID] = true
		}
	}
	var missing []string
	for _, id := range ids {
		if !answered[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return badRequest(fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", ")))
	}
	return nil
}

// conversation returns the request in wield's terms.
func conversation(req *Request) []llm.Message {
	var out []llm.Message
	var system []string
	for _, b := range req.System {
		system = append(system, b.Text)
	}
	if len(system) > 0 {
		out = append(out, llm.Message{Role: llm.RoleSystem, Content: strings.Join(system, "\n\n")})
	}
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			a := llm.Message{Role: llm.RoleAssistant}
			for _, b := range m.Content {
				switch b.Type {
				case "text":
					a.Content += b.Text
				case "thinking":
					a.Thinking = append(a.Thinking, llm.Thinking{Provider: "anthropic", Text: b.Thinking, Signature: b.Signature})
					a.Reasoning += b.Thinking
				case "redacted_thinking":
					a.Thinking = append(a.Thinking, llm.Thinking{Provider: "anthropic", Redacted: b.Data})
				case "tool_use":
					a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
				}
			}
			out = append(out, a)
			continue
		}
		var text []string
		for _, b := range m.Content {
			switch b.Type {
			case "tool_result":
				out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: b.ToolUseID, Content: b.ResultText(), Images: b.ResultImages()})
			case "text":
				text = append(text, b.Text)
			}
		}
		if len(text) > 0 {
			out = append(out, llm.Message{Role: llm.RoleUser, Content: strings.Join(text, "\n\n")})
		}
	}
	return out
}
