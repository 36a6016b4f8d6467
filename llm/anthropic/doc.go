// Package anthropic is an [llm.Provider] for Anthropic's Messages API
// (POST {BaseURL}/v1/messages), and for the proxies and gateways that
// speak it.
//
//	p, err := anthropic.New(anthropic.Config{
//		Model:          "claude-sonnet-4-5", // the default
//		ThinkingBudget: 4096,                // extended thinking; 0 is off
//	})
//	if errors.Is(err, anthropic.ErrNoKey) { ... } // ANTHROPIC_API_KEY is not set
//	resp, err := p.Stream(ctx, &llm.Request{Messages: msgs, Tools: defs}, func(e llm.Event) {
//		if e.Kind == llm.EventText {
//			fmt.Print(e.Text)
//		}
//	})
//
// # Requests
//
// Requests are built with the types of github.com/anthropics/anthropic-sdk-go
// (MessageNewParams and its block unions) and always stream. The key goes
// in x-api-key, and anthropic-version is [APIVersion]. System messages,
// wherever they are in the conversation, become the top-level system
// field, one text block each. Tool schemas are sent in Anthropic's dialect
// ([schema.Anthropic]) and tool names in the form the API accepts
// ([schema.Names]); calls in the reply come back under wield's names.
// Consecutive tool results become one user message of tool_result blocks,
// in the order of the calls they answer; a result's pictures
// ([llm.Message.Images]) follow its text inside its tool_result, as image
// blocks of base64 data. An assistant message is sent as
// its thinking blocks (unchanged, see below), its text, then its tool_use
// blocks; arguments that are not a JSON object (the model wrote broken
// JSON, and the runner told it so) are sent back as {}. An assistant
// message with nothing in it is left out, as the API rejects it.
//
// The API requires max_tokens on every request: the request's MaxTokens,
// else [Config.MaxTokens], else [DefaultMaxTokensFor] the model. With
// [Config.ThinkingBudget] set, "thinking" is enabled with that budget, no
// temperature is sent (the API allows none with thinking), and a
// max_tokens that does not exceed the budget is an error before anything
// is sent.
//
// # Prompt caching
//
// Unless [Config.NoCache] is set, three cache_control breakpoints
// ({"type": "ephemeral"}) mark what stays the same from one round to the
// next: the last system block, the last tool definition, and the last
// block of the last stable turn, which is the last assistant message
// before the newest user or tool turn (a thinking block cannot be a
// breakpoint; the text or tool_use after it is). The API allows four. So
// each round reads the conversation so far from the cache and writes only
// what the previous round added, and a long session pays the full price
// for its prefix once. The usage of a reply counts cache reads in
// [llm.Usage.CachedTokens] and cache writes in
// [llm.Usage.CacheWriteTokens]; both are part of InputTokens.
//
// # Replies
//
// The event stream is read with wield's own reader and each event decoded
// into the SDK's MessageStreamEventUnion: message_start, content_block_start,
// content_block_delta (text_delta, input_json_delta, thinking_delta,
// signature_delta), content_block_stop, message_delta, message_stop, ping
// and error. Unknown event types, unknown block types and their deltas
// (server tools, citations, blocks yet to come) are skipped, as the API
// asks. A whole JSON message, as a proxy may answer, is read too.
//
// Text deltas are [llm.EventText] events; thinking deltas are
// [llm.EventReasoning] events and make up [llm.Message.Reasoning]. Tool
// calls are assembled from their input_json_delta pieces (a call with none
// gets {}) and delivered as [llm.EventToolCall] events once the reply is
// complete, in the order of their blocks, so parallel calls come in the
// order the model wrote them. stop_reason is kept in
// [llm.Response.FinishReason] and mapped to [llm.Response.Stop]: end_turn
// and stop_sequence are [llm.StopEnd], tool_use [llm.StopToolUse],
// max_tokens (and model_context_window_exceeded) [llm.StopMaxTokens],
// refusal [llm.StopRefusal], pause_turn and anything else
// [llm.StopOther]. At max_tokens the text is kept and a tool_use block
// cut off before its input was complete is dropped.
//
// Usage follows [llm.Usage]: InputTokens is input_tokens plus
// cache_read_input_tokens plus cache_creation_input_tokens. message_start
// gives the first counts; every count message_delta carries replaces the
// one before (they are cumulative), and a count it leaves out stays.
//
// What cannot be read as a reply is an error that wraps [llm.ErrProtocol]:
// an event that is not JSON, content before message_start, a delta or stop
// for a block that never began, a block started twice, a tool_use without
// a name, a stream that ends before its stop_reason. A second
// message_start for the same message before any content is a repeat and
// is skipped; one for another message, or after content began, means two
// replies were spliced into one stream and is an error: nothing of it is
// returned, and no tool call event is delivered.
//
// # What is kept across rounds
//
// Thinking and redacted_thinking blocks come back in
// [llm.Message.Thinking] as [llm.Thinking] values with Provider
// "anthropic" and Text and Signature, or Redacted for the encrypted data.
// They are sent back unchanged, in order, before the text and tool_use
// blocks of their assistant message, as the API requires when thinking is
// on and tools are used. Blocks of other providers, and blocks without a
// signature or data, are dropped. Tool call ids are the API's own
// (toolu_…) and tie each tool_result to its call.
//
// # Failures and retries
//
// An error status is an [*llm.APIError] with the API's message and what
// to check: the key for 401 and 403, the model and the URL for 404. An
// error event in the stream is an [*llm.APIError] too, with the error's
// type and message, and the status the API sends that type with
// (overloaded_error is 529, rate_limit_error 429, api_error 500), so it is
// retried like the status would be. Rate limits (429), overload (529),
// other server errors, 408, 409, timeouts and connection failures are
// retried up to [Config.MaxRetries] times with exponential backoff,
// honouring retry-after, but only while none of the reply has reached the
// event handler: a reply is never shown twice. The key never appears in
// an error.
//
// # Why the SDK's client is not used
//
// The package uses the SDK's request types (MessageNewParams, the content
// block and tool unions, CacheControlEphemeralParam, the thinking config)
// and its response types (MessageStreamEventUnion, Message), but sends
// requests with net/http through wield's shared client and reads the
// stream with its own reader:
//
//   - anthropic.NewClient reads ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN,
//     ANTHROPIC_PROFILE and ANTHROPIC_CONFIG_DIR, and OpenTelemetry
//     settings, from the environment, so a key or a URL the user did not
//     give wield could be used.
//   - Its retries start at a fixed half second, do not retry a stream that
//     fails before anything of it was used, and have no idle timeout for
//     a stream that stalls.
//   - Its accumulator (Message.Accumulate) starts over at every
//     message_start, so a reply spliced into another passes as one, and
//     its errors do not say which event broke the protocol.
//
// The test server in [github.com/wieldhq/wield/llm/anthropic/anthropictest]
// speaks the same wire format without the SDK, so the two check each other.
package anthropic
