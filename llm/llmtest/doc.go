// Package llmtest is the test kit of wield's model providers
// (llm/anthropic, llm/gemini, llm/openai): what each provider's tests
// would otherwise write again, with the provider's wire format supplied by
// a small dialect value. It is for tests only.
//
// # Scripted servers
//
// [Server] is the core of the scripted servers anthropictest, geminitest
// and openaitest: it listens on 127.0.0.1, records every request, fails
// the ones a [Fault] names and answers the others from [replay.Entry]
// scripts matched on the turn and round of the conversation a request
// carries. A [Dialect] says how a request is decoded and how an answer
// and an error are written:
//
//	srv := llmtest.NewServer(t, "mytest", dialect, entries, faults)
//	p := myprovider.New(myprovider.Config{BaseURL: srv.URL})
//	... srv.Requests() ...
//
// # End-to-end conformance
//
// [Conformance] is the suite of end-to-end scenarios every provider runs
// against its scripted server: streamed text, a tool call and its result
// over two rounds, parallel calls, retries that honour Retry-After, API
// errors that never show the key, a reply cut off at the output limit, a
// malformed event, cancellation mid-stream and pictures in tool results.
// A [Target] says how to start the server and the provider, and what the
// provider's words for a few things are:
//
//	llmtest.Conformance(t, llmtest.Target{
//		Serve: func(t *testing.T, entries []replay.Entry, faults []llmtest.Fault) llmtest.Scripted { ... },
//		New:   func(t *testing.T, url string, log *slog.Logger) llm.Provider { ... },
//		Key:   testKey, KeyVar: "MY_API_KEY", MaxTokensFinish: "length", Malformed: "stream event 2",
//	})
//
// A provider's own end-to-end tests keep what is particular to its wire
// format, and play their rounds with a [Conversation].
//
// # Recordings and properties
//
// [TestRecordings] replays the streams recorded from a provider's API
// (../shared/conformance/llm-streams beside the repository) in several
// forms, cut at random places, and compares what the provider reads with
// their expected.json. [ReaderTest] holds what a provider's reply readers
// must do for any body, for fuzz targets: never panic, return well-formed
// replies whose events add up, and read a body alike however it arrives.
// [Oracle], [Incremental] and [RunsChangeShape] check a provider that
// builds request bodies from cached pieces against a plain encoding and
// against a build from scratch.
package llmtest
