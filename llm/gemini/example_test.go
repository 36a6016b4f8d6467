package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/gemini"
)

// fakeServer stands in for the Gemini API, answering every request with
// the given responses as an event stream.
func fakeServer(chunks ...string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			io.WriteString(w, "data: "+c+"\r\n\r\n")
		}
	}))
}

func Example() {
	srv := fakeServer(
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello,"}]},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r1"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":" world!"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"thoughtsTokenCount":20},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`,
	)
	defer srv.Close()

	// An empty BaseURL means the Gemini API, and an empty APIKey the key in
	// GEMINI_API_KEY or GOOGLE_API_KEY.
	p, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "example-key", Model: "gemini-2.5-flash"})
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
	fmt.Println(resp.FinishReason, resp.Stop, resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.ReasoningTokens)
	// Output:
	// Hello, world!
	// STOP end 9 24 20
}

// Tool names are sent in the form Gemini accepts ("fs.read" becomes
// "fs_read") and calls come back under wield's names. A call's thought
// signature is kept on it, to be sent back with it in the next request;
// Gemini gives no call id before Gemini 3, so one is made up.
func Example_toolCall() {
	srv := fakeServer(
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"fs_read","args":{"path":"go.mod"}},"thoughtSignature":"EqUCCqICAb4+9vsh"}]},"index":0}],"responseId":"r2"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"responseId":"r2"}`,
	)
	defer srv.Close()

	p, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "example-key", Model: "gemini-2.5-pro"})
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
		fmt.Println(c.ID, c.Name, string(c.Arguments), c.Signature)
	}
	fmt.Println(resp.Stop)
	// Output:
	// gemini_r2_1 fs.read {"path":"go.mod"} EqUCCqICAb4+9vsh
	// tool_use
}

// Without a key, New says which variables it looked in.
func ExampleNew_noKey() {
	_, err := gemini.New(gemini.Config{APIKey: " "})
	fmt.Println(errors.Is(err, gemini.ErrNoKey))
	// Output:
	// true
}

// On Vertex AI the model is served from a project and a location, and
// requests carry an OAuth2 access token from TokenSource.
func ExampleNew_vertex() {
	p, err := gemini.New(gemini.Config{
		Model:  "gemini-2.5-pro",
		Vertex: &gemini.Vertex{Project: "my-project", Location: "us-central1"},
		TokenSource: func(ctx context.Context) (string, error) {
			return "ya29.example-token", nil // for example, from golang.org/x/oauth2/google
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Endpoint())
	// Output:
	// https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse
}
