// Package llm is wield's provider-neutral view of a chat model: messages,
// tool definitions, a streaming [Provider] interface and the errors
// providers return.
//
// Provider packages (llm/openai, llm/replay) translate to and from their
// wire formats, including the tool-schema dialect and provider-legal tool
// names: a [Request] carries tools under their wield names, and a
// [Response]'s tool calls come back under the same names.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Role says who wrote a [Message].
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one entry of a conversation.
type Message struct {
	Role Role `json:"role"`
	// Content is the text of the message; for RoleTool, the result the model
	// reads.
	Content string `json:"content,omitempty"`
	// Reasoning is an assistant's reasoning text, where the provider returns
	// it. It is never part of Content.
	Reasoning string `json:"reasoning,omitempty"`
	// Thinking holds the reasoning blocks a provider wants back unchanged
	// in later requests: Anthropic's signed thinking and redacted_thinking
	// blocks, Gemini's thought signatures on text, OpenAI's reasoning
	// items. A provider sends back only the blocks it made, in order; a
	// conversation that switches providers drops the others.
	Thinking []Thinking `json:"thinking,omitempty"`
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a RoleTool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// Images are the pictures a RoleTool message carries beside Content
	// (a screenshot, an image file read). Each provider sends them the way
	// its API takes pictures from a tool; other roles ignore them.
	Images []Image `json:"images,omitempty"`
}

// An Image is a picture in a tool [Message]: its encoded bytes and what
// they are.
type Image struct {
	// MIMEType is image/png, image/jpeg, image/gif or image/webp.
	MIMEType string `json:"mime_type"`
	// Width and Height are the picture's size in pixels, 0 when unknown.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Hash is the hex SHA-256 of the bytes, where known; a message read
	// back from a session carries it so that the bytes can be loaded.
	Hash string `json:"sha256,omitempty"`
	// Data is the encoded picture. Providers send only images with Data;
	// one without (its bytes were never loaded) is left out.
	Data []byte `json:"data,omitempty"`
}

// Format returns the short name of the image's type, "png" for
// image/png, or the MIME type itself when it is not image/*.
func (img Image) Format() string {
	if f, ok := strings.CutPrefix(img.MIMEType, "image/"); ok && f != "" {
		return f
	}
	if img.MIMEType == "" {
		return "image"
	}
	return img.MIMEType
}

// Describe returns a short description of the image: "1280x800 png", or
// "png" when its size is unknown.
func (img Image) Describe() string {
	if img.Width > 0 && img.Height > 0 {
		return fmt.Sprintf("%dx%d %s", img.Width, img.Height, img.Format())
	}
	return img.Format()
}

// A ToolCall is one call a model asked for.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON arguments object as the model wrote it. It may
	// be invalid JSON: the runner, not the provider, judges it, so the
	// model hears what was wrong.
	Arguments json.RawMessage `json:"arguments"`
	// Signature is an opaque token the provider attached to the call and
	// wants back with it (Gemini's thought signature); empty for most.
	Signature string `json:"signature,omitempty"`
}

// A Thinking block is reasoning a provider returned and wants back
// unchanged, kept in a [Message] across rounds and sessions.
type Thinking struct {
	// Provider names the provider that made the block ("anthropic",
	// "gemini", "openai"); others ignore it.
	Provider string `json:"provider"`
	// ID is the provider's id of the block, where it has one (an OpenAI
	// reasoning item).
	ID string `json:"id,omitempty"`
	// Text is the readable reasoning or its summary, if any.
	Text string `json:"text,omitempty"`
	// Signature is the provider's opaque signature of the block.
	Signature string `json:"signature,omitempty"`
	// Redacted is reasoning the provider encrypted (Anthropic's
	// redacted_thinking data, OpenAI's encrypted_content).
	Redacted string `json:"redacted,omitempty"`
}

// A ToolDef describes a tool to the model, in wield's form: a draft
// 2020-12 input schema. Providers rewrite it into their dialect.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// A Request asks a model for the next message.
type Request struct {
	// Model names the model; empty means the provider's default.
	Model    string    `json:"model,omitempty"`
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools,omitempty"`
	// MaxTokens caps the reply; zero means the provider's default.
	MaxTokens int `json:"max_tokens,omitempty"`
	// Temperature is the sampling temperature; nil means the default.
	Temperature *float64 `json:"temperature,omitempty"`
}

// Usage counts the tokens of one or more model calls, the same way for
// every provider, and what they cost.
type Usage struct {
	// InputTokens counts every prompt token, including those read from or
	// written to a prompt cache.
	InputTokens int `json:"input_tokens"`
	// OutputTokens counts every generated token, including reasoning.
	OutputTokens int `json:"output_tokens"`
	// ReasoningTokens is the part of OutputTokens spent on reasoning.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CachedTokens is the part of InputTokens read from the prompt cache.
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens is the part of InputTokens written to the prompt
	// cache (Anthropic bills these apart).
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// Cost is the price of these tokens in US dollars, where the model's
	// prices are known (see llm/catalog); zero otherwise.
	Cost float64 `json:"cost,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens,
		u.ReasoningTokens + v.ReasoningTokens, u.CachedTokens + v.CachedTokens,
		u.CacheWriteTokens + v.CacheWriteTokens, u.Cost + v.Cost}
}

// A Response is a model's complete reply.
type Response struct {
	ID    string `json:"id,omitempty"`
	Model string `json:"model,omitempty"`
	// Message is the assistant message, with every tool call assembled.
	Message Message `json:"message"`
	// FinishReason is the provider's raw value ("stop", "tool_calls",
	// "length", "end_turn", ...).
	FinishReason string `json:"finish_reason,omitempty"`
	// Stop is FinishReason in wield's terms.
	Stop  StopReason `json:"stop,omitempty"`
	Usage Usage      `json:"usage"`
}

// A StopReason says why a model stopped, the same for every provider.
type StopReason string

// The reasons a model stops.
const (
	// StopEnd: the model finished its reply.
	StopEnd StopReason = "end"
	// StopToolUse: the model waits for the results of its tool calls.
	StopToolUse StopReason = "tool_use"
	// StopMaxTokens: the reply was cut off at the output limit; it is
	// incomplete, and providers drop a tool call that was cut off.
	StopMaxTokens StopReason = "max_tokens"
	// StopRefusal: the model declined to answer (Anthropic's "refusal").
	StopRefusal StopReason = "refusal"
	// StopOther: any other reason; FinishReason has the provider's word.
	StopOther StopReason = "other"
)

// EventKind says what a streaming [Event] carries.
type EventKind string

// The kinds of streaming event.
const (
	// EventText carries a delta of visible text in Text.
	EventText EventKind = "text"
	// EventReasoning carries a delta of reasoning text in Text.
	EventReasoning EventKind = "reasoning"
	// EventToolCall carries one complete tool call, once its arguments are
	// fully received.
	EventToolCall EventKind = "tool_call"
)

// An Event is one piece of a streaming reply.
type Event struct {
	Kind     EventKind `json:"kind"`
	Text     string    `json:"text,omitempty"`
	ToolCall *ToolCall `json:"tool_call,omitempty"`
}

// A Provider talks to a chat model.
//
// Stream sends req and returns the complete response. If handle is not
// nil it is called, on the calling goroutine, for each event as the reply
// streams in. Stream returns an error only when there is no usable reply:
// the endpoint failed (see [APIError]) or broke the protocol. Implementations
// must be safe for concurrent use and must return promptly when ctx is done.
type Provider interface {
	Stream(ctx context.Context, req *Request, handle func(Event)) (*Response, error)
}

// APIError is returned by providers when the endpoint answered with an error
// status or could not be reached.
type APIError struct {
	// Status is the HTTP status, or 0 when the endpoint could not be reached.
	Status int
	// Message is the provider's error text.
	Message string
	// RetryAfter is the wait the provider asked for, if any.
	RetryAfter time.Duration
	// Err is the underlying error, if any.
	Err error
}

func (e *APIError) Error() string {
	switch {
	case e.Status == 0 && e.Err != nil:
		return fmt.Sprintf("model endpoint unreachable: %v", e.Err)
	case e.Message == "":
		return fmt.Sprintf("model endpoint answered %d", e.Status)
	default:
		return fmt.Sprintf("model endpoint answered %d: %s", e.Status, e.Message)
	}
}

func (e *APIError) Unwrap() error { return e.Err }

// Temporary reports whether retrying the request may succeed: rate limits,
// server errors and connection failures.
func (e *APIError) Temporary() bool {
	return e.Status == 0 || e.Status == 408 || e.Status == 409 || e.Status == 429 || e.Status >= 500
}

// ErrProtocol is wrapped by errors for replies that break the provider's
// protocol (a stream that stops mid-message, an impossible event order).
var ErrProtocol = errors.New("model reply broke the protocol")

// ErrBlocked is wrapped by errors for replies the provider withheld:
// safety filters, recitation stops, a prompt it refused to read. The
// error's message says which and why, as far as the provider said.
var ErrBlocked = errors.New("the provider blocked the reply")
