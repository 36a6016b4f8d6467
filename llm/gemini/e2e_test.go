package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/gemini"
	"github.com/wieldhq/wield/llm/gemini/geminitest"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

const testKey = "AIzaSy-test-key-0123456789"

func newProvider(t *testing.T, baseURL string, cfg gemini.Config) *gemini.Provider {
	t.Helper()
	cfg.BaseURL = baseURL
	if cfg.APIKey == "" && cfg.Vertex == nil {
		cfg.APIKey = testKey
	}
	if cfg.Model == "" {
		cfg.Model = "gemini-test"
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = time.Millisecond
	}
	p, err := gemini.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConformance runs llmtest's end-to-end scenarios against
// geminitest, with each call's arguments whole and streamed.
func TestConformance(t *testing.T) {
	for _, streamArgs := range []bool{false, true} {
		t.Run(fmt.Sprint("streamArguments=", streamArgs), func(t *testing.T) {
			t.Parallel() // the retries wait a second each: Retry-After is in whole seconds
			llmtest.Conformance(t, llmtest.Target{
				Serve: func(t *testing.T, entries []replay.Entry, faults []llmtest.Fault) llmtest.Scripted {
					var fs []geminitest.Fault
					for _, f := range faults {
						fs = append(fs, geminitest.Fault{Request: f.Request, Status: f.Status, Message: f.Message,
							RetryDelay: f.RetryDelay, RetryAfter: f.RetryAfter, Malformed: f.Malformed, Stall: f.Stall})
					}
					srv := geminitest.NewServer(t, entries, &geminitest.Options{Faults: fs, StreamArguments: streamArgs})
					return llmtest.Scripted{URL: srv.URL, Answered: srv.Answered, Requests: func() []llmtest.Received {
						var out []llmtest.Received
						for _, r := range srv.Requests() {
							var config struct{ MaxOutputTokens int }
							json.Unmarshal(r.GenerationConfig, &config)
							out = append(out, llmtest.Received{Messages: r.Messages, Tools: r.Tools, MaxTokens: config.MaxOutputTokens, Turn: r.Turn, Round: r.Round})
						}
						return out
					}}
				},
				New: func(t *testing.T, url string, log *slog.Logger) llm.Provider {
					return newProvider(t, url, gemini.Config{Logger: log})
				},
				Key: testKey, KeyVar: "GEMINI_API_KEY", RetryAfterSeconds: true, MaxTokensFinish: "MAX_TOKENS", Malformed: "stream event 2",
			})
		})
	}
}

var readTool = llm.ToolDef{Name: "fs.read", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

// run plays a conversation as the agent loop does, answering each tool
// call with "contents of <path>", until the model stops calling tools.
// It returns the responses.
func run(t *testing.T, p llm.Provider, msgs []llm.Message) []*llm.Response {
	t.Helper()
	c := &llmtest.Conversation{Provider: p, Request: llm.Request{Messages: msgs, Tools: []llm.ToolDef{readTool}}}
	c.Run(t, func(calls []llm.ToolCall) []llm.Message {
		// Answer in reverse order: the provider puts them back in order.
		var out []llm.Message
		for _, c := range slices.Backward(calls) {
			var in struct{ Path string }
			json.Unmarshal(c.Arguments, &in)
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "contents of " + in.Path})
		}
		return out
	})
	var out []*llm.Response
	for _, r := range c.Replies {
		out = append(out, r.Resp)
	}
	return out
}

// TestTwoRoundToolCall checks what Gemini's requests carry of a tool
// call and its result: the call's thought signature, without the id made
// up for it, the result as a function response under the call's name,
// the system instruction, and the usage of each round.
func TestTwoRoundToolCall(t *testing.T) {
	for _, streamArgs := range []bool{false, true} {
		name := "whole arguments"
		if streamArgs {
			name = "streamed arguments"
		}
		t.Run(name, func(t *testing.T) {
			srv := geminitest.NewServer(t, []replay.Entry{
				{Round: 1, ToolCalls: []llm.ToolCall{{Name: "fs_read", Arguments: json.RawMessage(`{"path":"go.mod","opts":{"lines":[1,2],"raw":true,"enc":null}}`), Signature: "c2lnLWNhbGw="}},
					Usage: llm.Usage{InputTokens: 20, OutputTokens: 12, ReasoningTokens: 7}},
				{Round: 2, Text: "The module is github.com/wieldhq/wield.", Usage: llm.Usage{InputTokens: 40, CachedTokens: 16, OutputTokens: 9}},
			}, &geminitest.Options{StreamArguments: streamArgs})
			p := newProvider(t, srv.URL, gemini.Config{})
			resps := run(t, p, []llm.Message{{Role: llm.RoleSystem, Content: "Be brief."}, {Role: llm.RoleUser, Content: "Which module?"}})
			if len(resps) != 2 {
				t.Fatalf("%d rounds, want 2", len(resps))
			}
			call := resps[0].Message.ToolCalls[0]
			if call.Name != "fs.read" || call.Signature != "c2lnLWNhbGw=" || resps[0].Stop != llm.StopToolUse {
				t.Errorf("round 1: call %+v, stop %q; want fs.read with its signature, tool_use", call, resps[0].Stop)
			}
			var args any
			if err := json.Unmarshal(call.Arguments, &args); err != nil || !cmp.Equal(args, map[string]any{"path": "go.mod",
				"opts": map[string]any{"lines": []any{1.0, 2.0}, "raw": true, "enc": nil}}) {
				t.Errorf("arguments %s", call.Arguments)
			}
			if got, want := resps[0].Usage, (llm.Usage{InputTokens: 20, OutputTokens: 12, ReasoningTokens: 7}); got != want {
				t.Errorf("round 1 usage %+v, want %+v", got, want)
			}
			if resps[1].Usage.CachedTokens != 16 {
				t.Errorf("round 2: %+v", resps[1])
			}
			reqs := srv.Requests()
			if reqs[0].Header.Get("X-Goog-Api-Key") != testKey || !reqs[0].SSE || reqs[0].Model != "gemini-test" || reqs[0].Vertex {
				t.Errorf("request 1: key header %q, sse %v, model %q, vertex %v", reqs[0].Header.Get("X-Goog-Api-Key"), reqs[0].SSE, reqs[0].Model, reqs[0].Vertex)
			}
			// The second request carries the call back with its signature,
			// without the id made up for it, and its result under its name.
			second := reqs[1].Contents
			if len(second) != 3 {
				t.Fatalf("request 2 has %d contents, want user, model, user: %+v", len(second), second)
			}
			fc := second[1].Parts[0]
			if fc.FunctionCall == nil || fc.FunctionCall.Name != "fs_read" || fc.FunctionCall.ID != "" || fc.ThoughtSignature != "c2lnLWNhbGw=" {
				t.Errorf("model part %+v, want the call fs_read with its signature and no id", fc)
			}
			fr := second[2].Parts[0].FunctionResponse
			if fr == nil || fr.Name != "fs_read" || string(fr.Response) != `{"output":"contents of go.mod"}` {
				t.Errorf("function response %+v", fr)
			}
			if reqs[1].SystemInstruction == nil || *reqs[1].SystemInstruction.Parts[0].Text != "Be brief." {
				t.Errorf("system instruction %+v", reqs[1].SystemInstruction)
			}
		})
	}
}

func TestParallelToolCalls(t *testing.T) {
	srv := geminitest.NewServer(t, []replay.Entry{
		{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "fc-a", Name: "fs_read", Arguments: json.RawMessage(`{"path":"a"}`), Signature: "c2lnLWE="},
			{ID: "fc-b", Name: "fs_read", Arguments: json.RawMessage(`{"path":"b"}`)},
			{ID: "fc-c", Name: "fs_read", Arguments: json.RawMessage(`{"path":"c"}`)},
		}},
		{Round: 2, Text: "Read three files."},
	}, nil)
	p := newProvider(t, srv.URL, gemini.Config{})
	resps := run(t, p, []llm.Message{{Role: llm.RoleUser, Content: "Read a, b and c."}})
	var ids []string
	for _, c := range resps[0].Message.ToolCalls {
		ids = append(ids, c.ID+"/"+c.Signature)
	}
	if diff := cmp.Diff([]string{"fc-a/c2lnLWE=", "fc-b/", "fc-c/"}, ids); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	second := srv.Requests()[1]
	last := second.Contents[len(second.Contents)-1]
	var got []string
	for _, p := range last.Parts {
		if p.FunctionResponse == nil {
			t.Fatalf("part %+v of the results content is not a function response", p)
		}
		got = append(got, p.FunctionResponse.ID+" "+p.FunctionResponse.Name+" "+string(p.FunctionResponse.Response))
	}
	want := []string{`fc-a fs_read {"output":"contents of a"}`, `fc-b fs_read {"output":"contents of b"}`, `fc-c fs_read {"output":"contents of c"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the results, in one content, in call order (-want +got):\n%s", diff)
	}
	var sigs []string
	for _, p := range second.Contents[1].Parts {
		sigs = append(sigs, p.ThoughtSignature)
	}
	if diff := cmp.Diff([]string{"c2lnLWE=", "", ""}, sigs); diff != "" {
		t.Errorf("signatures sent back (-want +got):\n%s", diff)
	}
}

func TestThinkingCarriedToTheNextRound(t *testing.T) {
	thinking := []llm.Thinking{
		{Provider: "gemini", Text: "I need the file.", Signature: "dGhvdWdodC1zaWc="},
		{Provider: "gemini", Signature: "dGV4dC1zaWc+/w=="},
	}
	srv := geminitest.NewServer(t, []replay.Entry{
		{Turn: 1, Round: 1, Reasoning: "Let me look. ", Thinking: thinking, Text: "Looking."},
		{Turn: 2, Round: 1, Text: "Done."},
	}, nil)
	p := newProvider(t, srv.URL, gemini.Config{IncludeThoughts: true, ThinkingBudget: new(1024)})
	var reasoning strings.Builder
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "Look."}}}, func(e llm.Event) {
		if e.Kind == llm.EventReasoning {
			reasoning.WriteString(e.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if m.Content != "Looking." || m.Reasoning != "Let me look. I need the file." || reasoning.String() != m.Reasoning {
		t.Errorf("content %q, reasoning %q (events %q)", m.Content, m.Reasoning, reasoning.String())
	}
	if diff := cmp.Diff([]llm.Thinking{
		{Provider: "gemini", Text: "Let me look. I need the file.", Signature: "dGhvdWdodC1zaWc="},
		{Provider: "gemini", Signature: "dGV4dC1zaWc+/w=="},
	}, m.Thinking); diff != "" {
		t.Errorf("thinking (-want +got):\n%s", diff)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "Look."}, m,
		// Another provider's block in the history is not sent to Gemini.
		{Role: llm.RoleAssistant, Content: "Noted.", Thinking: []llm.Thinking{{Provider: "anthropic", Text: "x", Signature: "y"}}},
		{Role: llm.RoleUser, Content: "Now finish."}}
	if _, err := p.Stream(t.Context(), &llm.Request{Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	second := srv.Requests()[1]
	if diff := cmp.Diff(m.Thinking, second.Messages[1].Thinking); diff != "" {
		t.Errorf("thinking sent back (-first reply +second request):\n%s", diff)
	}
	if len(second.Messages[2].Thinking) != 0 {
		t.Errorf("another provider's thinking was sent: %+v", second.Messages[2].Thinking)
	}
	if !strings.Contains(string(second.GenerationConfig), `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}`) {
		t.Errorf("generationConfig %s", second.GenerationConfig)
	}
}

// TestRetriesHonourTheRetryDelay: Gemini says how long to wait in a
// RetryInfo detail of the error body, which the provider honours as it
// honours Retry-After (checked by the conformance suite).
func TestRetriesHonourTheRetryDelay(t *testing.T) {
	srv := geminitest.NewServer(t, []replay.Entry{{Round: 1, Text: "ok"}}, &geminitest.Options{Faults: []geminitest.Fault{
		{Request: 1, Status: 429, Message: "Resource has been exhausted (e.g. check quota).", RetryDelay: 20 * time.Millisecond}}})
	// With a base of an hour, only the server's delay lets the retry come
	// in time.
	var log llmtest.RetryLog
	p := newProvider(t, srv.URL, gemini.Config{RetryBase: time.Hour, MaxRetryWait: time.Hour, Logger: slog.New(&log)})
	resp, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "ok" || len(srv.Requests()) != 2 {
		t.Fatalf("Stream = %v after %d requests; want ok on the second", err, len(srv.Requests()))
	}
	if waits := log.Waits(); !slices.Equal(waits, []time.Duration{20 * time.Millisecond}) {
		t.Errorf("retry waits %v, want the 20ms of the retry delay", waits)
	}
}

// TestMaxTokens: Gemini ends a call at the output limit inside its
// partialArgs, where the conformance suite's call is cut off before any.
func TestMaxTokens(t *testing.T) {
	srv := geminitest.NewServer(t, []replay.Entry{{Round: 1, Text: "I will read both.", Stop: llm.StopMaxTokens, ToolCalls: []llm.ToolCall{
		{Name: "fs_read", Arguments: json.RawMessage(`{"path":"a"}`)},
		{Name: "fs_read", Arguments: json.RawMessage(`{"path":"a/very/long/path"}`)},
	}}}, nil)
	p := newProvider(t, srv.URL, gemini.Config{})
	r := llmtest.Stream(t, p, &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "Read."}}, MaxTokens: 50})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Resp.Stop != llm.StopMaxTokens || r.Resp.FinishReason != "MAX_TOKENS" || r.Resp.Message.Content != "I will read both." {
		t.Errorf("stop %q (%q), content %q", r.Resp.Stop, r.Resp.FinishReason, r.Resp.Message.Content)
	}
	if calls := r.Resp.Message.ToolCalls; len(calls) != 1 || string(calls[0].Arguments) != `{"path":"a"}` || len(r.Calls) != 1 {
		t.Errorf("calls %+v (events %d); want only the complete one", calls, len(r.Calls))
	}
	if !strings.Contains(string(srv.Requests()[0].GenerationConfig), `"maxOutputTokens":50`) {
		t.Errorf("generationConfig %s", srv.Requests()[0].GenerationConfig)
	}
}

// TestErrorsNameTheStatus: an error carries the google.rpc status name
// beside the message.
func TestErrorsNameTheStatus(t *testing.T) {
	srv := geminitest.NewServer(t, []replay.Entry{
		{Turn: 1, Round: 1, Error: &replay.Error{Status: 400, Message: "Invalid JSON payload received. Unknown name \"foo\"."}},
	}, nil)
	p := newProvider(t, srv.URL, gemini.Config{})
	_, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	apiErr, ok := errors.AsType[*llm.APIError](err)
	if !ok || apiErr.Status != 400 || !strings.Contains(err.Error(), `Invalid JSON payload received. Unknown name "foo"`) || !strings.Contains(err.Error(), "INVALID_ARGUMENT") {
		t.Errorf("err = %v; want the provider's message and status", err)
	}
}

func TestVertex(t *testing.T) {
	srv := geminitest.NewServer(t, []replay.Entry{{Round: 1, Text: "ok"}}, nil)
	p := newProvider(t, srv.URL, gemini.Config{Vertex: &gemini.Vertex{Project: "proj", Location: "us-central1"},
		TokenSource: func(context.Context) (string, error) { return "ya29.token", nil }})
	if _, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if !r.Vertex || r.Header.Get("Authorization") != "Bearer ya29.token" || r.Path != "/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-test:streamGenerateContent" {
		t.Errorf("vertex %v, authorization %q, path %s", r.Vertex, r.Header.Get("Authorization"), r.Path)
	}

	// A token source that fails is an error that says what failed.
	p = newProvider(t, srv.URL, gemini.Config{Vertex: &gemini.Vertex{Project: "proj", Location: "us-central1"},
		TokenSource: func(context.Context) (string, error) { return "", errors.New("no credentials found") }})
	_, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "Vertex AI access token: no credentials found") {
		t.Errorf("err = %v", err)
	}
}
