// Package openai is an [llm.Provider] for the OpenAI chat completions API
// and the many servers that speak it: OpenAI itself, Ollama, vLLM,
// LM Studio, the llama.cpp server, OpenRouter, Groq, DeepSeek and others.
// It also speaks OpenAI's Responses API, when [Config.API] is [Responses]
// (see "The Responses API" below); chat completions stay the default.
//
//	p, err := openai.New(openai.Config{
//		BaseURL: "http://localhost:11434/v1", // Ollama; empty means OpenAI
//		Model:   "qwen3:8b",
//	})
//	if err != nil { ... }
//	resp, err := p.Stream(ctx, &llm.Request{Messages: msgs, Tools: defs}, func(e llm.Event) {
//		if e.Kind == llm.EventText {
//			fmt.Print(e.Text)
//		}
//	})
//
// # Requests
//
// Requests are built with the types of github.com/openai/openai-go/v3.
// Tool schemas are sent in OpenAI's non-strict form ([schema.OpenAI]), and
// tool names are rewritten to the names OpenAI accepts ([schema.Names]);
// tool calls in the reply come back under wield's names. A request that
// names no model uses [Config.Model]. max_tokens is sent as
// max_completion_tokens to OpenAI itself, which rejects the older name, and
// as max_tokens elsewhere, which every compatible server knows.
//
// A tool message takes no picture on chat completions, so the pictures of
// a round's results ([llm.Message.Images]) follow the results in one user
// message: before each picture (an image_url part with a data URL) a text
// part names the call it belongs to ([ImageNote]).
//
// # Replies
//
// Replies are streamed ("stream": true, with usage in a last chunk) unless
// [Config.NoStream] is set; a server that answers a streaming request with
// a whole JSON reply is understood too. The stream reader is
// tolerant of what real servers send: keep-alive comments, "event:" lines,
// CRLF or CR line endings, a missing final empty line, chunks with no
// choices, usage only under x_groq, reasoning under "reasoning_content" or
// "reasoning" (delivered as [llm.EventReasoning], never mixed into the
// text), null content, tool-call arguments split across chunks, tool-call
// indexes that start at 1, skip values or are missing, later deltas that
// repeat the type or carry an empty id or name, and calls with no
// arguments (given "{}").
//
// What cannot be read as a reply is an error that wraps [llm.ErrProtocol]:
// a chunk that is not JSON, a stream that ends without a finish reason or
// [DONE], a tool call without a name, or an unknown finish reason with
// neither text nor tool calls. Arguments that are not valid JSON are passed
// on unchanged, as [llm.ToolCall] asks, so the runner can tell the model
// what was wrong. An error object inside the stream is an [*llm.APIError].
//
// # Failures and retries
//
// An error status is an [*llm.APIError] whose message says what to check:
// the API key for 401 and 403, the model name and the URL used for 404.
// Rate limits (429), server errors (5xx), 408, 409, timeouts and connection
// failures are retried up to [Config.MaxRetries] times with exponential
// backoff from [Config.RetryBase], honouring Retry-After and
// retry-after-ms, but only while none of the reply has reached the event
// handler: a reply is never shown twice. [Config.Timeout] bounds each wait
// for the endpoint, not the length of a reply that keeps streaming.
//
// # Why the SDK's client is not used
//
// The package builds requests with openai-go's types (ChatCompletionNewParams
// and its message and tool unions) and decodes chunks and whole replies into
// its ChatCompletionChunk and ChatCompletion, but it sends the request with
// net/http and reads the event stream with its own small reader. The SDK's
// client and decoder fall short here in four ways:
//
//   - openai.NewClient reads OPENAI_BASE_URL, OPENAI_ADMIN_KEY,
//     OPENAI_ORG_ID and OPENAI_CUSTOM_HEADERS from the environment, and the
//     option that turns this off is internal, so it could send an admin key
//     or headers meant for OpenAI to a local or third-party server.
//   - Its retry backoff starts at a fixed half second, it does not retry a
//     stream that breaks before anything of it was used, and it has no idle
//     timeout for a stream that stalls.
//   - Its stream decoder ends a stream that was cut off mid-event as if it
//     were complete, does not end lines at a lone CR, and cannot tell a
//     whole JSON reply from an event stream.
//   - Its error for a chunk that is not JSON names neither the event nor
//     its data.
//
// Reasoning text in an assistant message is not sent back in later
// requests: most servers ignore or reject it.
//
// # The Responses API
//
// With [Config.API] set to [Responses], requests go to POST
// {BaseURL}/responses, built with the types of openai-go's responses
// package (ResponseNewParams and its input item and tool unions). Leading
// system messages become the instructions; user messages, assistant
// messages, function_call items (with the call id as call_id) and
// function_call_output items make up the input; the output of a result
// with pictures is a list of an input_text item and input_image items
// (data URLs). Tools are function tools
// with the same non-strict schemas and provider-legal names as in chat
// completions. max_tokens is sent as max_output_tokens,
// [Config.ReasoningEffort] and [Config.ReasoningSummary] as reasoning.effort
// and reasoning.summary. Requests ask for "store": false and include
// "reasoning.encrypted_content", so that reasoning survives between rounds
// without any state on OpenAI's side.
//
// The event stream (response.created, response.output_item.added and
// .done, response.output_text.delta, response.reasoning_summary_text.delta,
// response.function_call_arguments.delta and .done, response.completed,
// response.incomplete, response.failed, error) is read with the shared
// event reader and each event decoded into the SDK's event type
// (ResponseTextDeltaEvent and so on); unknown events are skipped. A reply
// that came whole is a Response object.
//
// What is kept across rounds: each reasoning output item becomes an
// [llm.Thinking] block {Provider: "openai", ID: the item id, Text: its
// summary, Redacted: its encrypted_content}, in order, and is sent back as
// a reasoning input item (id, summary, encrypted_content) before that
// turn's message and function calls. Blocks of other providers are
// dropped; in chat completions mode no block is sent.
//
// [Config.PreviousResponseID] trades that for server state: responses
// are stored, each response's id is kept in a block whose Signature is
// [ResponseMarker], and a request whose last assistant message carries
// one sends only the items after that message, with previous_response_id
// and the instructions and tools again.
//
// Outcomes: response.completed is [llm.StopEnd], or [llm.StopToolUse] with
// function calls, or [llm.StopRefusal] when the model refused.
// response.incomplete for max_output_tokens is [llm.StopMaxTokens]: the
// text is kept and a function call that was cut off is dropped; for
// content_filter it is [llm.StopRefusal]; otherwise [llm.StopOther].
// FinishReason is "completed" or the reason the reply is incomplete.
// response.failed is an [*llm.APIError] with the error's message and
// code (status 500 for server_error, which is retried while nothing has
// been shown, 429 for rate_limit_exceeded, 400 otherwise); so is an error
// event. Usage: input_tokens (which includes
// input_tokens_details.cached_tokens, reported as CachedTokens) and
// output_tokens (which includes output_tokens_details.reasoning_tokens,
// reported as ReasoningTokens).
//
// No recorded Responses streams exist under ../shared/conformance yet:
// the streams in testdata/responses were written by hand from the
// documented event format, with the field names of the SDK's event
// types. Package openaitest serves both APIs for end-to-end tests.
package openai
