// Package openaitest provides a scripted server that speaks OpenAI's chat
// completions API and its Responses API, for tests of code that talks to
// a model through llm/openai: the provider's own tests, and the CLI's,
// which point wield at it with --base-url.
//
//	srv := openaitest.NewServer(t, []replay.Entry{
//		{Round: 1, ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(`{"path":"go.mod"}`)}}},
//		{Round: 2, Text: "It is module x."},
//	})
//	p, _ := openai.New(openai.Config{BaseURL: srv.URL, Model: "gpt-test", API: openai.Responses})
//
// The server answers POST {URL}/chat/completions as chat completions and
// POST {URL}/responses as the Responses API, streamed or whole as the
// request asks. Each request is answered with the [replay.Entry] matched
// on its turn and round, counted as [replay.Position] counts them in the
// conversation the request carries (for a Responses request with
// previous_response_id, the stored conversation it continues). The
// requests are recorded, decoded, for the test to inspect ([Server.Requests]),
// and [Fault]s inject failures: an error status with Retry-After, a
// malformed event, a stream that stalls.
package openaitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// The APIs a [Request] can be for.
const (
	ChatCompletions = "chat"
	Responses       = "responses"
)

// A Fault makes the server fail one request instead of answering it from
// the script.
type Fault struct {
	// Request is the number of the request it hits, counting from 1 over
	// all requests the server got.
	Request int
	// Status, if not zero, is the HTTP status of the answer, with an
	// OpenAI error body carrying Message.
	Status  int
	Message string
	// RetryAfter is sent with Status as Retry-After (whole seconds,
	// rounded up) and retry-after-ms.
	RetryAfter time.Duration
	// Malformed answers with a stream that starts well and then has an
	// event whose data is not JSON.
	Malformed bool
	// Stall sends the first event of a stream and a text delta "…", then
	// nothing until the client hangs up.
	Stall bool
}

// A Request is one request the server got, decoded.
type Request struct {
	// API is [ChatCompletions] or [Responses], chosen by the path; empty
	// for a path the server does not serve, answered with 404.
	API    string
	Path   string
	Header http.Header
	// Body is the request body as sent.
	Body json.RawMessage
	// Model, Stream and MaxTokens (max_tokens, max_completion_tokens or
	// max_output_tokens) are the request's.
	Model     string
	Stream    bool
	MaxTokens int
	// Tools are the names of the tools offered, as sent.
	Tools []string
	// Messages is the conversation the request carries, in wield's terms:
	// instructions as a system message, reasoning items as [llm.Thinking]
	// blocks on the assistant message they precede. For a request with
	// previous_response_id, it begins with the stored conversation.
	Messages []llm.Message
	// PreviousResponseID and Store are the Responses API fields.
	PreviousResponseID string
	Store              bool
	// Turn and Round are the position the script was matched on.
	Turn, Round int
}

// A Server is a scripted OpenAI server on 127.0.0.1. It is closed when
// the test ends.
type Server struct {
	// URL is the API root to use as the base URL, ending in /v1.
	URL string

	core *llmtest.Server[Request]
}

// NewServer starts a server that answers from entries and fails the
// requests faults name. It fails the test when an entry is invalid.
func NewServer(t testing.TB, entries []replay.Entry, faults ...Fault) *Server {
	t.Helper()
	var fs []llmtest.Fault
	for _, f := range faults {
		fs = append(fs, llmtest.Fault{Request: f.Request, Status: f.Status, Message: f.Message, RetryAfter: f.RetryAfter, Malformed: f.Malformed, Stall: f.Stall})
	}
	d := &dialect{stored: map[string][]llm.Message{}}
	core := llmtest.NewServer(t, "openaitest", llmtest.Dialect[Request](d), entries, fs)
	return &Server{URL: core.URL + "/v1", core: core}
}

// Requests returns the requests the server got, oldest first. The caller
// owns the slice.
func (s *Server) Requests() []Request { return s.core.Requests() }

// Answered returns a channel that is closed when the server has finished
// answering request n, counting from 1: for a stream that stalls, once
// the client has hung up. See [llmtest.Server.Answered].
func (s *Server) Answered(n int) <-chan struct{} { return s.core.Answered(n) }

// dialect is chat completions and the Responses API, by path, for an
// [llmtest.Server]. The server's lock guards stored.
type dialect struct {
	stored map[string][]llm.Message // stored Responses conversations by response id
}

// Decode decodes the request by its path; see [llmtest.Dialect].
func (d *dialect) Decode(r *http.Request, body []byte) (req Request, turn, round int, err error) {
	req = Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		req.API = ChatCompletions
		err = decodeChat(&req)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		req.API = Responses
		err = d.decodeResponses(&req)
	}
	req.Turn, req.Round = replay.Position(&llm.Request{Messages: req.Messages})
	if req.API == "" {
		err = &llmtest.StatusError{Status: http.StatusNotFound, Message: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"}
	}
	return req, req.Turn, req.Round, err
}

// Answer prepares the answer to e in the request's API, storing a
// Responses conversation the request asks to store; see [llmtest.Dialect].
func (d *dialect) Answer(req *Request, n int, e replay.Entry) func(http.ResponseWriter, *http.Request, llmtest.Fault) {
	rp := newReply(e, n, req)
	stream := req.Stream
	if req.API != Responses {
		return func(w http.ResponseWriter, r *http.Request, f llmtest.Fault) { rp.writeChat(w, r, stream, f) }
	}
	if req.Store {
		conv := append([]llm.Message{}, req.Messages...)
		if len(conv) > 0 && conv[0].Role == llm.RoleSystem {
			conv = conv[1:] // instructions are not carried over
		}
		d.stored[rp.responseID()] = append(conv, rp.message())
	}
	return func(w http.ResponseWriter, r *http.Request, f llmtest.Fault) { rp.writeResponses(w, r, stream, f) }
}

// WriteError answers with an OpenAI error body; see [llmtest.Dialect].
func (d *dialect) WriteError(w http.ResponseWriter, f llmtest.Fault) {
	llmtest.SetRetryAfter(w.Header(), f.RetryAfter, true)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	typ := "invalid_request_error"
	switch {
	case f.Status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case f.Status >= 500:
		typ = "server_error"
	}
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": f.Message, "type": typ, "param": nil, "code": nil}})
}

// badRequest is an error message worded as OpenAI words it.
type badRequest string

func (b badRequest) Error() string { return string(b) }

// text returns the text of a content value: a string, or parts with text.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// ImageNotePrefix begins the text part that names the call of each
// picture in the user message the openai provider sends after tool
// results on chat completions; the server folds such a message back into
// the tool messages, as the provider's input had them.
const ImageNotePrefix = "[the image below is the result of call "

// images returns the pictures of a content value given as parts:
// image_url parts (chat completions) and input_image parts (the Responses
// API) with base64 data URLs.
func images(raw json.RawMessage) []llm.Image {
	var parts []struct {
		Type     string          `json:"type"`
		ImageURL json.RawMessage `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []llm.Image
	for _, p := range parts {
		var url string
		switch p.Type {
		case "image_url":
			var v struct {
				URL string `json:"url"`
			}
			json.Unmarshal(p.ImageURL, &v)
			url = v.URL
		case "input_image":
			json.Unmarshal(p.ImageURL, &url)
		default:
			continue
		}
		if img, ok := decodeDataURL(url); ok {
			out = append(out, img)
		}
	}
	return out
}

// decodeDataURL decodes a base64 data URL of an image.
func decodeDataURL(url string) (llm.Image, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	mime, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return llm.Image{}, false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return llm.Image{}, false
	}
	return llm.Image{MIMEType: mime, Data: b}, true
}

// foldImages attaches the pictures of a chat completions user message
// that follows tool results, and names their calls, to those results; it
// reports whether the message was one.
func foldImages(msgs []llm.Message, raw json.RawMessage) bool {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleTool || json.Unmarshal(raw, &parts) != nil || len(parts) == 0 {
		return false
	}
	var calls []string
	for _, p := range parts {
		switch {
		case p.Type == "image_url":
		case p.Type == "text" && strings.HasPrefix(p.Text, ImageNotePrefix):
			id, _, _ := strings.Cut(strings.TrimPrefix(p.Text, ImageNotePrefix), " ")
			calls = append(calls, id)
		default:
			return false
		}
	}
	imgs := images(raw)
	if len(imgs) != len(calls) {
		return false
	}
	for i, id := range calls {
		for j := len(msgs) - 1; j >= 0 && msgs[j].Role == llm.RoleTool; j-- {
			if msgs[j].ToolCallID == id {
				msgs[j].Images = append(msgs[j].Images, imgs[i])
				break
			}
		}
	}
	return true
}

// decodeChat decodes a chat completions request.
func decodeChat(req *Request) error {
	var body struct {
		Model               string `json:"model"`
		Stream              bool   `json:"stream"`
		MaxTokens           int    `json:"max_tokens"`
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		Messages            []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("openaitest: the request is not a chat completions request: %v", err)
	}
	req.Model, req.Stream, req.MaxTokens = body.Model, body.Stream, max(body.MaxTokens, body.MaxCompletionTokens)
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range body.Messages {
		if m.Role == "user" && foldImages(req.Messages, m.Content) {
			continue
		}
		msg := llm.Message{Role: llm.Role(m.Role), Content: text(m.Content), ToolCallID: m.ToolCallID}
		if m.Role == "developer" {
			msg.Role = llm.RoleSystem
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
		}
		req.Messages = append(req.Messages, msg)
	}
	return nil
}

// decodeResponses decodes a Responses API request.
func (d *dialect) decodeResponses(req *Request) error {
	var body struct {
		Model              string          `json:"model"`
		Stream             bool            `json:"stream"`
		MaxOutputTokens    int             `json:"max_output_tokens"`
		Instructions       string          `json:"instructions"`
		PreviousResponseID string          `json:"previous_response_id"`
		Store              *bool           `json:"store"`
		Input              json.RawMessage `json:"input"`
		Tools              []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("openaitest: the request is not a Responses API request: %v", err)
	}
	req.Model, req.Stream, req.MaxTokens = body.Model, body.Stream, body.MaxOutputTokens
	req.PreviousResponseID = body.PreviousResponseID
	req.Store = body.Store == nil || *body.Store // the API stores unless told not to
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	if body.Instructions != "" {
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: body.Instructions})
	}
	if id := body.PreviousResponseID; id != "" {
		conv, ok := d.stored[id]
		if !ok {
			return badRequest(fmt.Sprintf("Previous response with id '%s' not found.", id))
		}
		req.Messages = append(req.Messages, conv...)
	}
	var items []struct {
		Type             string          `json:"type"`
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ID               string          `json:"id"`
		CallID           string          `json:"call_id"`
		Name             string          `json:"name"`
		Arguments        string          `json:"arguments"`
		Output           json.RawMessage `json:"output"`
		EncryptedContent string          `json:"encrypted_content"`
		Summary          []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	var input string
	if json.Unmarshal(body.Input, &input) == nil {
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: input})
		return nil
	}
	if err := json.Unmarshal(body.Input, &items); err != nil {
		return fmt.Errorf("openaitest: input: %v", err)
	}
	// assistant returns the assistant message that output items of this
	// turn belong to, beginning one after anything else.
	assistant := func() *llm.Message {
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleAssistant {
			return &req.Messages[n-1]
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant})
		return &req.Messages[len(req.Messages)-1]
	}
	for i, it := range items {
		switch it.Type {
		case "", "message":
			switch it.Role {
			case "assistant":
				a := assistant()
				a.Content += text(it.Content)
			case "user", "system", "developer":
				role := llm.Role(it.Role)
				if role == "developer" {
					role = llm.RoleSystem
				}
				req.Messages = append(req.Messages, llm.Message{Role: role, Content: text(it.Content)})
			default:
				return badRequest(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'. (input[%d].role)", it.Role, i))
			}
		case "reasoning":
			if it.ID == "" {
				return badRequest(fmt.Sprintf("Missing required parameter: 'input[%d].id'.", i))
			}
			var parts []string
			for _, p := range it.Summary {
				parts = append(parts, p.Text)
			}
			a := assistant()
			a.Thinking = append(a.Thinking, llm.Thinking{Provider: "openai", ID: it.ID, Text: strings.Join(parts, "\n\n"), Redacted: it.EncryptedContent})
		case "function_call":
			if it.CallID == "" {
				return badRequest(fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i))
			}
			a := assistant()
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Arguments)})
		case "function_call_output":
			if it.CallID == "" {
				return badRequest(fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i))
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Content: text(it.Output), Images: images(it.Output)})
		default:
			return fmt.Errorf("openaitest: input[%d]: item type %q is not supported", i, it.Type)
		}
	}
	return nil
}
