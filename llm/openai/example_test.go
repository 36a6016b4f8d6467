package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/openai"
)

// fakeServer stands in for an OpenAI-compatible server, answering every
// request with the given chunks as an event stream.
func fakeServer(chunks ...string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			io.WriteString(w, "data: "+c+"\n\n")
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
}

func Example() {
	srv := fakeServer(
		`{"id":"c1","model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello,"}}]}`,
		`{"id":"c1","model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" world!"},"finish_reason":"stop"}]}`,
		`{"id":"c1","model":"qwen3:8b","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}}`,
	)
	defer srv.Close()

	// For Ollama the base URL would be http://localhost:11434/v1; an empty
	// one means OpenAI, with the key from OPENAI_API_KEY.
	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "qwen3:8b"})
	if err != nil {
		log.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "Say hello."}}}
	resp, err := p.Stream(context.Background(), req, func(e llm.Event) {
		if e.Kind == llm.EventText {
			fmt.Print(e.Text)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	fmt.Println(resp.FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// Hello, world!
	// stop 9 4
}

// Tool names are sent in the form providers accept ("fs.read" becomes
// "fs_read"), and calls come back under wield's names, with their
// arguments assembled from the pieces they streamed in.
func Example_toolCall() {
	srv := fakeServer(
		`{"id":"c2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"fs_read","arguments":""}}]}}]}`,
		`{"id":"c2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}`,
		`{"id":"c2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"go.mod\"}"}}]}}]}`,
		`{"id":"c2","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	)
	defer srv.Close()

	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "gpt-4.1-mini"})
	if err != nil {
		log.Fatal(err)
	}
	req := &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "What module is this?"}},
		Tools: []llm.ToolDef{{Name: "fs.read", Description: "Read a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
	resp, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range resp.Message.ToolCalls {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	fmt.Println(resp.FinishReason)
	// Output:
	// call_1 fs.read {"path":"go.mod"}
	// tool_calls
}

// With API set to Responses, the provider speaks OpenAI's Responses API.
// A reasoning model's reasoning items come back as thinking blocks, which
// the next request sends back unchanged.
func Example_responses() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{
			`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-5-mini","output":[]}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
			`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Greet back."}`,
			`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Greet back."}],"encrypted_content":"gAAAA..."}}`,
			`{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hello!"}`,
			`{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5-mini","output":[],"usage":{"input_tokens":12,"output_tokens":20,"output_tokens_details":{"reasoning_tokens":14}}}}`,
		} {
			io.WriteString(w, "data: "+e+"\n\n")
		}
	}))
	defer srv.Close()

	p, err := openai.New(openai.Config{API: openai.Responses, BaseURL: srv.URL + "/v1", Model: "gpt-5-mini", ReasoningSummary: "auto"})
	if err != nil {
		log.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "Say hello."}}}
	resp, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		log.Fatal(err)
	}
	th := resp.Message.Thinking[0]
	fmt.Println(resp.Message.Content, resp.Stop)
	fmt.Println(th.Provider, th.ID, th.Text, th.Redacted)
	fmt.Println(resp.Usage.OutputTokens, resp.Usage.ReasoningTokens)
	// Output:
	// Hello! end
	// openai rs_1 Greet back. gAAAA...
	// 20 14
}
