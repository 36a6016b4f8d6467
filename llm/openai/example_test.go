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
