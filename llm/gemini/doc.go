// Package gemini is an [llm.Provider] for Google's Gemini models, on the
// Gemini API (generativelanguage.googleapis.com, with an API key) or on
// Vertex AI (with an OAuth2 access token), through streamGenerateContent.
//
//	p, err := gemini.New(gemini.Config{Model: "gemini-2.5-pro"}) // key from GEMINI_API_KEY
//	if err != nil { ... } // errors.Is(err, gemini.ErrNoKey) when there is no key
//	resp, err := p.Stream(ctx, &llm.Request{Messages: msgs, Tools: defs}, func(e llm.Event) {
//		if e.Kind == llm.EventText {
//			fmt.Print(e.Text)
//		}
//	})
//
// For Vertex AI, set [Config.Vertex] (project and location) and
// [Config.TokenSource]. For either, [Config.BaseURL] reaches the API
// through a proxy or a gateway.
//
// # Requests
//
// A request is POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse
// with the key in the x-goog-api-key header (never in the URL), or, on
// Vertex AI, POST https://{location}-aiplatform.googleapis.com/v1/projects/
// {project}/locations/{location}/publishers/google/models/{model}:
// streamGenerateContent?alt=sse with "Authorization: Bearer".
//
// System messages become the systemInstruction. User messages are "user"
// contents and assistant messages "model" contents. Tool calls are
// functionCall parts, and the results of one round go back together in one
// "user" content of functionResponse parts ({"output": result}), in the
// order of the calls, each matched to its call by id and carrying the
// call's name; a result's pictures travel inside its functionResponse, as
// its inlineData parts (a multimodal function response). Ids the model did not give (Gemini before version 3 gives
// none) are made up here as "gemini_{responseId}_{n}" and are not sent
// back. Tool schemas are rewritten by [schema.Gemini] into the OpenAPI
// subset function declarations accept, and tool names into the names the
// API accepts ([schema.Names]); calls come back under wield's names.
// MaxTokens is maxOutputTokens; [Config.ThinkingBudget],
// [Config.ThinkingLevel] and [Config.IncludeThoughts] make up the
// thinkingConfig.
//
// # Replies
//
// Text parts are [llm.EventText] events and the message's Content. Thought
// parts ("thought": true, sent with [Config.IncludeThoughts]) are
// [llm.EventReasoning] events and the message's Reasoning, never Content.
// A function call usually arrives whole in one part. Streamed arguments,
// which recorded Gemini 3 and Vertex AI streams show, are assembled too:
// {name, willContinue: true} opens a call, partialArgs set values at JSON
// paths ("$.recipe.steps[1]"), a string continues while its willContinue
// is true, and the call ends with a part without willContinue (an empty
// functionCall {}, or the last partialArgs); parts with nothing but
// willContinue are ignored. Tool calls are [llm.EventToolCall] events once
// the reply is complete. A reply that came whole (application/json, one
// response or the array of them that a request without alt=sse gets) is
// read the same way.
//
// The finish reason maps to [llm.Response.Stop]: STOP is [llm.StopEnd], or
// [llm.StopToolUse] when there are calls; MAX_TOKENS is
// [llm.StopMaxTokens], the text is kept and a call whose arguments were
// still streaming is dropped; other reasons are [llm.StopOther].
// Usage: promptTokenCount is InputTokens (it includes
// cachedContentTokenCount, which is CachedTokens), OutputTokens is
// candidatesTokenCount plus thoughtsTokenCount, and ReasoningTokens is
// thoughtsTokenCount. The last usageMetadata with counts wins (early chunks
// may carry one with no counts).
//
// # What is kept across rounds
//
// Gemini signs its reasoning with thought signatures that later requests
// must carry back on the same parts; Gemini 3 rejects a round of function
// calls whose first call lacks its signature. A functionCall part's
// signature is the call's [llm.ToolCall.Signature]. A signature on a text
// part (often an empty last part) becomes an [llm.Thinking] block with
// Provider "gemini" and the Signature, in order; on a thought part, the
// block's Text is the thought text it signs (a block without Text goes
// back as a text part). In later requests a model
// content is rebuilt as: the signed thought parts, the text as one part
// carrying the first text signature (further ones, or all when there is
// no text, on empty text parts {"text": "", "thoughtSignature": ...}, the
// shape the model sends them in), then the function calls, each with its
// own signature. Signatures are strings, sent back byte for byte. Blocks of
// other providers are dropped.
//
// # Failures and retries
//
// A finish reason of SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT,
// SPII, LANGUAGE or an IMAGE_ one, and a promptFeedback.blockReason, is an
// error wrapping [llm.ErrBlocked] that names the reason and the safety
// categories that blocked it. MALFORMED_FUNCTION_CALL,
// UNEXPECTED_TOOL_CALL and TOO_MANY_TOOL_CALLS are errors wrapping
// [llm.ErrProtocol] with the model's finishMessage: no tool call can be
// made of them, and the caller decides whether to ask again. A chunk that
// is not JSON, arguments for no call, a bad JSON path, and a stream that
// ends without a finish reason wrap [llm.ErrProtocol] too, as do
// partialArgs that would build more than a million values. An error object
// inside the stream is an [*llm.APIError].
//
// An error status is an [*llm.APIError] with Google's message and status
// name (RESOURCE_EXHAUSTED). 429 and 5xx (and 408, 409, timeouts and
// connection failures) are retried up to [Config.MaxRetries] times while
// nothing of the reply has reached the event handler, waiting as the
// endpoint asks: Retry-After, or else the retryDelay of the
// google.rpc.RetryInfo in the error body ("30s"). A wait longer than
// [Config.MaxRetryWait] fails at once, with the wait in RetryAfter.
//
// # Why genai's client is not used, and which of its types are
//
// Requests are sent with net/http through the same plumbing as wield's
// other providers, not with genai.Client: the client reads
// GOOGLE_GEMINI_BASE_URL (which would send the key wherever it points),
// GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT and other variables and
// finds credentials on its own, has its own retries, and has no idle
// timeout for a stream that stalls.
//
// genai's JSON tags are the REST wire format (camelCase: functionCall,
// thoughtSignature, usageMetadata), so its types are used where they fit:
// Tool, FunctionDeclaration, Schema, FunctionResponse, GenerationConfig
// and ThinkingConfig in requests, GenerateContentResponseUsageMetadata,
// GenerateContentResponsePromptFeedback, SafetyRating and FinishReason in
// replies. Small local structs stand in where genai's types do not fit the
// wire: Part keeps ThoughtSignature as []byte, which re-encodes rather
// than passes through the string received, and its Text cannot send the
// empty text part a signature rides on; FunctionCall.Args is a map, which
// loses the order and the exact numbers of the arguments; PartialArg cannot
// tell an empty stringValue (which closes a streamed string) from none;
// and GenerateContentConfig is the SDK's input, not the request body (the
// SDK moves its fields into the body's top level and generationConfig).
// The request body, Content, Part, FunctionCall, PartialArg and the
// response and candidate wrappers are therefore local.
//
// # Testing
//
// Package [github.com/wieldhq/wield/llm/gemini/geminitest] is a scripted
// server that speaks this wire format, for tests here and in other
// packages (wield run --model gemini:... --base-url URL).
package gemini
