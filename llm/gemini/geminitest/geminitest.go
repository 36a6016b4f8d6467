// Package geminitest provides a scripted server that speaks the Gemini
// API's streamGenerateContent (and Vertex AI's), for tests of code that
// talks to a model through llm/gemini: the provider's own tests, and the
// CLI's, which point wield at it with --base-url.
//
//	srv := geminitest.NewServer(t, []replay.Entry{
//		{Round: 1, ToolCalls: []llm.ToolCall{{Name: "fs_read", Arguments: json.RawMessage(`{"path":"go.mod"}`), Signature: "c2ln"}}},
//		{Round: 2, Text: "It is module x."},
//	}, nil)
//	p, _ := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "test", Model: "gemini-test"})
//
// The server answers POST {URL}/v1beta/models/{model}:streamGenerateContent
// and POST {URL}/v1/projects/{p}/locations/{l}/publishers/google/models/
// {model}:streamGenerateContent, as server-sent events with alt=sse and
// as a JSON array of responses without it. Each request is answered with
// the [replay.Entry] matched on its turn and round, counted as
// [replay.Position] counts them in the conversation the request carries:
// a "user" content with text begins a turn, a "model" content is a round,
// and a "user" content of function responses is neither.
//
// An entry becomes a reply as Gemini streams one: its Reasoning as a
// thought part, its Text in a few text parts, its tool calls as
// functionCall parts (with the id only when the entry gives one, as Gemini
// 3 does, and the Signature as thoughtSignature), its Thinking blocks of
// provider "gemini" as signed thought parts (with Text) or as the empty
// text part that carries a signature (without), its Usage as
// usageMetadata. The finish reason is the entry's FinishReason, else
// MAX_TOKENS for the Stop max_tokens or the finish reasons "length" and
// "max_tokens", else STOP. With MAX_TOKENS the last tool call is streamed
// as Gemini ends a call at the output limit: opened with willContinue and
// cut off in its arguments. With [Options.StreamArguments], every call's
// arguments are streamed as partialArgs by JSON path.
//
// The requests are recorded, decoded, for the test to inspect
// ([Server.Requests]), and [Fault]s inject failures: an error status with
// a retry delay, a malformed event, a stream that stalls.
package geminitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// A Fault makes the server fail one request instead of answering it from
// the script.
type Fault struct {
	// Request is the number of the request it hits, counting from 1 over
	// all requests the server got.
	Request int
	// Status, if not zero, is the HTTP status of the answer, with a Google
	// error body carrying Message and the status name (RESOURCE_EXHAUSTED
	// for 429).
	Status  int
	Message string
	// RetryDelay is sent with Status as the retryDelay of a
	// google.rpc.RetryInfo detail in the body, as Gemini sends it.
	RetryDelay time.Duration
	// RetryAfter is sent with Status as the Retry-After header (whole
	// seconds, rounded up).
	RetryAfter time.Duration
	// Malformed answers with a stream that starts well and then has an
	// event whose data is not JSON.
	Malformed bool
	// Stall sends the first event of a stream, then nothing until the
	// client hangs up.
	Stall bool
}

// Options configures a [Server]; the zero value is the defaults.
type Options struct {
	// Faults fail the requests they name.
	Faults []Fault
	// StreamArguments streams every tool call's arguments as partialArgs
	// (Vertex AI's streamFunctionCallArguments) instead of whole args.
	StreamArguments bool
}

// A Request is one request the server got, decoded.
type Request struct {
	// Path is the URL path; Model the model named in it; Vertex reports
	// whether the path is Vertex AI's; SSE whether alt=sse was asked.
	Path   string
	Model  string
	Vertex bool
	SSE    bool
	Header http.Header
	// Body is the request body as sent.
	Body json.RawMessage
	// Contents, SystemInstruction and Tools are the body's, decoded.
	Contents          []Content
	SystemInstruction *Content
	Tools             []string // the function declarations' names
	// GenerationConfig is the body's generationConfig, as sent.
	GenerationConfig json.RawMessage
	// Messages is the conversation in wield's terms: the system
	// instruction as a system message, function responses as tool
	// messages, signatures on text and thought parts as [llm.Thinking]
	// blocks of provider "gemini", signatures on calls as
	// [llm.ToolCall.Signature].
	Messages []llm.Message
	// Turn and Round are the position the script was matched on.
	Turn, Round int
}

// Content is a content of a request.
type Content struct {
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is a part of a request's content, with the fields wield sends.
type Part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
}

// FunctionCall is a functionCall part's value.
type FunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// FunctionResponse is a functionResponse part's value.
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
	// Parts are the media parts of the response (pictures).
	Parts []FunctionResponsePart `json:"parts,omitempty"`
}

// FunctionResponsePart is one media part of a function response.
type FunctionResponsePart struct {
	InlineData *InlineData `json:"inlineData,omitempty"`
}

// InlineData is media sent inline: its type and bytes (base64 in JSON).
type InlineData struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

// A Server is a scripted Gemini server on 127.0.0.1. It is closed when the
// test ends. It is safe for concurrent use.
type Server struct {
	// URL is the API root to use as the base URL.
	URL string

	core *llmtest.Server[Request]
}

// NewServer starts a server that answers from entries. opts may be nil.
// It fails the test when an entry is invalid.
func NewServer(t testing.TB, entries []replay.Entry, opts *Options) *Server {
	t.Helper()
	d := &dialect{}
	var faults []llmtest.Fault
	if opts != nil {
		d.streamArgs = opts.StreamArguments
		for _, f := range opts.Faults {
			faults = append(faults, llmtest.Fault{Request: f.Request, Status: f.Status, Message: f.Message,
				RetryDelay: f.RetryDelay, RetryAfter: f.RetryAfter, Malformed: f.Malformed, Stall: f.Stall})
		}
	}
	core := llmtest.NewServer(t, "geminitest", llmtest.Dialect[Request](d), entries, faults)
	return &Server{URL: core.URL, core: core}
}

// Requests returns the requests the server got, oldest first. The caller
// owns the slice.
func (s *Server) Requests() []Request { return s.core.Requests() }

// Answered returns a channel that is closed when the server has finished
// answering request n, counting from 1: for a stream that stalls, once
// the client has hung up. See [llmtest.Server.Answered].
func (s *Server) Answered(n int) <-chan struct{} { return s.core.Answered(n) }

// dialect is streamGenerateContent for an [llmtest.Server].
type dialect struct {
	streamArgs bool
}

// Decode checks the path and decodes the request; see [llmtest.Dialect].
func (d *dialect) Decode(r *http.Request, body []byte) (req Request, turn, round int, err error) {
	req = Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, SSE: r.URL.Query().Get("alt") == "sse"}
	model, vertex, ok := parsePath(r.URL.Path)
	switch {
	case r.Method != http.MethodPost:
		return req, 0, 0, &llmtest.StatusError{Status: http.StatusMethodNotAllowed, Message: "geminitest: " + r.Method + " " + r.URL.Path + " is not served; POST to .../models/{model}:streamGenerateContent"}
	case !ok:
		return req, 0, 0, &llmtest.StatusError{Status: http.StatusNotFound, Message: "geminitest: no such method: POST " + r.URL.Path}
	}
	req.Model, req.Vertex = model, vertex
	err = decode(&req)
	return req, req.Turn, req.Round, err
}

// Answer prepares the chunks of e; see [llmtest.Dialect].
func (d *dialect) Answer(req *Request, n int, e replay.Entry) func(http.ResponseWriter, *http.Request, llmtest.Fault) {
	chunks := reply(e, fmt.Sprintf("geminitest-%d", n), req.Model, d.streamArgs)
	sse := req.SSE
	return func(w http.ResponseWriter, r *http.Request, fault llmtest.Fault) {
		if !sse {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, "[%s]", bytes.Join(chunks, []byte(",\n")))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ew := llmtest.EventWriter{W: w}
		for i, c := range chunks {
			fmt.Fprintf(w, "data: %s\r\n\r\n", c)
			ew.Flush()
			if i == 0 && fault.Malformed {
				io.WriteString(w, "data: {\"candidates\": [{\"content\": \r\n\r\n")
				return
			}
			if i == 0 && fault.Stall {
				<-r.Context().Done()
				return
			}
		}
	}
}

// parsePath returns the model of a streamGenerateContent path, and
// whether the path is Vertex AI's.
func parsePath(path string) (model string, vertex, ok bool) {
	rest, ok := strings.CutSuffix(path, ":streamGenerateContent")
	if !ok {
		return "", false, false
	}
	i := strings.LastIndex(rest, "/models/")
	if i < 0 || strings.Contains(rest[i+len("/models/"):], "/") {
		return "", false, false
	}
	return rest[i+len("/models/"):], strings.Contains(rest[:i], "/projects/") && strings.HasSuffix(rest[:i], "/publishers/google"), true
}

// statusNames are the google.rpc.Code names of HTTP statuses.
var statusNames = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

// WriteError answers with a Google error body; see [llmtest.Dialect].
func (d *dialect) WriteError(w http.ResponseWriter, f llmtest.Fault) {
	llmtest.SetRetryAfter(w.Header(), f.RetryAfter, false)
	status := map[string]any{"code": f.Status, "message": f.Message, "status": statusNames[f.Status]}
	if f.RetryDelay > 0 {
		status["details"] = []any{map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.FormatFloat(f.RetryDelay.Seconds(), 'f', -1, 64) + "s",
		}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	json.NewEncoder(w).Encode(map[string]any{"error": status})
}

// decode decodes the body of req and finds its position.
func decode(req *Request) error {
	var body struct {
		Contents          []Content       `json:"contents"`
		SystemInstruction *Content        `json:"systemInstruction"`
		GenerationConfig  json.RawMessage `json:"generationConfig"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	if err := dec.Decode(&body); err != nil {
		return fmt.Errorf("geminitest: the request is not a GenerateContentRequest: %v", err)
	}
	if len(body.Contents) == 0 {
		return fmt.Errorf("* GenerateContentRequest.contents: contents is not specified")
	}
	req.Contents, req.SystemInstruction, req.GenerationConfig = body.Contents, body.SystemInstruction, body.GenerationConfig
	for _, t := range body.Tools {
		for _, d := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, d.Name)
		}
	}
	if si := body.SystemInstruction; si != nil {
		var b strings.Builder
		for _, p := range si.Parts {
			if p.Text != nil {
				b.WriteString(*p.Text)
			}
		}
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleSystem, Content: b.String()})
	}
	for i, c := range body.Contents {
		msgs, err := messages(c)
		if err != nil {
			return fmt.Errorf("* GenerateContentRequest.contents[%d]: %v", i, err)
		}
		req.Messages = append(req.Messages, msgs...)
	}
	req.Turn, req.Round = replay.Position(&llm.Request{Messages: req.Messages})
	return nil
}

// messages converts one content to wield's messages, checking what the
// API checks: a known role, parts that hold exactly one kind of data.
func messages(c Content) ([]llm.Message, error) {
	switch c.Role {
	case "model":
		m := llm.Message{Role: llm.RoleAssistant}
		for j, p := range c.Parts {
			if err := checkPart(p); err != nil {
				return nil, fmt.Errorf("parts[%d]: %v", j, err)
			}
			switch {
			case p.FunctionCall != nil:
				m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Args, Signature: p.ThoughtSignature})
			case p.Thought:
				m.Reasoning += *p.Text
				if p.ThoughtSignature != "" {
					m.Thinking = append(m.Thinking, llm.Thinking{Provider: "gemini", Text: *p.Text, Signature: p.ThoughtSignature})
				}
			default:
				m.Content += *p.Text
				if p.ThoughtSignature != "" {
					m.Thinking = append(m.Thinking, llm.Thinking{Provider: "gemini", Signature: p.ThoughtSignature})
				}
			}
		}
		return []llm.Message{m}, nil
	case "user", "":
		var out []llm.Message
		var text strings.Builder
		hasText := false
		for j, p := range c.Parts {
			if err := checkPart(p); err != nil {
				return nil, fmt.Errorf("parts[%d]: %v", j, err)
			}
			if fr := p.FunctionResponse; fr != nil {
				var resp struct {
					Output json.RawMessage `json:"output"`
				}
				json.Unmarshal(fr.Response, &resp)
				content := string(fr.Response)
				var s string
				if json.Unmarshal(resp.Output, &s) == nil {
					content = s
				}
				msg := llm.Message{Role: llm.RoleTool, ToolCallID: fr.ID, ToolName: fr.Name, Content: content}
				for _, fp := range fr.Parts {
					if fp.InlineData != nil {
						msg.Images = append(msg.Images, llm.Image{MIMEType: fp.InlineData.MIMEType, Data: fp.InlineData.Data})
					}
				}
				out = append(out, msg)
				continue
			}
			if p.FunctionCall != nil {
				return nil, fmt.Errorf("parts[%d]: a function call in a user content", j)
			}
			hasText = true
			text.WriteString(*p.Text)
		}
		if hasText {
			out = append(out, llm.Message{Role: llm.RoleUser, Content: text.String()})
		}
		return out, nil
	default:
		return nil, fmt.Errorf("role %q is not user or model", c.Role)
	}
}

// checkPart reports a part without data or with two kinds of it, as the
// API rejects them.
func checkPart(p Part) error {
	n := 0
	for _, set := range []bool{p.Text != nil, p.FunctionCall != nil, p.FunctionResponse != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("required oneof field 'data' must have one initialized field")
	case n > 1:
		return fmt.Errorf("oneof field 'data' is already set; cannot set another")
	case p.FunctionCall != nil && p.FunctionCall.Name == "":
		return fmt.Errorf("function_call.name: name is required")
	case p.FunctionResponse != nil && p.FunctionResponse.Name == "":
		return fmt.Errorf("function_response.name: name is required")
	case p.FunctionCall != nil && len(p.FunctionCall.Args) > 0 && !json.Valid(p.FunctionCall.Args):
		return fmt.Errorf("function_call.args: invalid JSON")
	}
	return nil
}
