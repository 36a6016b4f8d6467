package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic"
)

// fakeServer stands in for the Messages API, answering every request with
// the given events.
func fakeServer(events ...string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			var v struct{ Type string }
			json.Unmarshal([]byte(e), &v)
			io.WriteString(w, "event: "+v.Type+"\ndata: "+e+"\n\n")
		}
	}))
}

func Example() {
	srv := fakeServer(
		`{"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":5,"cache_read_input_tokens":2000,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello,"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world!"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}`,
		`{"type":"message_stop"}`,
	)
	defer srv.Close()

	// An empty BaseURL means api.anthropic.com; an empty APIKey means
	// ANTHROPIC_API_KEY.
	p, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-example"})
	if err != nil {
		log.Fatal(err)
	}
	req := &llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are terse."},
		{Role: llm.RoleUser, Content: "Say hello."},
	}}
	resp, err := p.Stream(context.Background(), req, func(e llm.Event) {
		if e.Kind == llm.EventText {
			fmt.Print(e.Text)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	u := resp.Usage
	fmt.Println(resp.Stop, u.InputTokens, u.CachedTokens, u.OutputTokens)
	// Output:
	// Hello, world!
	// end 2005 2000 4
}

// A reply with thinking on: the signed thinking block comes back in
// Message.Thinking, to be sent back unchanged with the tool results, and
// the call comes back under wield's name for the tool.
func Example_thinking() {
	srv := fakeServer(
		`{"type":"message_start","message":{"id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":50,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I need go.mod."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIAxgCIkD"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"fs_read","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"go.mod\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}`,
		`{"type":"message_stop"}`,
	)
	defer srv.Close()

	p, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-example", ThinkingBudget: 2048})
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
	m := resp.Message
	fmt.Printf("%s %q %s\n", m.Thinking[0].Provider, m.Thinking[0].Text, m.Thinking[0].Signature)
	for _, c := range m.ToolCalls {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	fmt.Println(resp.Stop)
	// Output:
	// anthropic "I need go.mod." EqQBCkYIAxgCIkD
	// toolu_01 fs.read {"path":"go.mod"}
	// tool_use
}
