package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/schema"
)

// sdkBody is the oracle for buildRequest: the whole request as the SDK
// encodes it in one json.Marshal, built the plain way.
func sdkBody(t *testing.T, p *Provider, req *llm.Request) []byte {
	t.Helper()
	names := &wire.Names{}
	params := openaisdk.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	for _, tl := range req.Tools {
		w, err := names.Wire(tl.Name)
		if err != nil {
			t.Fatal(err)
		}
		def := shared.FunctionDefinitionParam{Name: w}
		if tl.Description != "" {
			def.Description = param.NewOpt(tl.Description)
		}
		raw, _, err := schema.OpenAI(tl.InputSchema, false)
		if err != nil {
			t.Fatal(err)
		}
		var ps shared.FunctionParameters
		if err := json.Unmarshal(raw, &ps); err != nil {
			t.Fatal(err)
		}
		def.Parameters = ps
		params.Tools = append(params.Tools, openaisdk.ChatCompletionFunctionTool(def))
	}
	var pictures []openaisdk.ChatCompletionContentPartUnionParam
	for i, m := range req.Messages {
		msg, err := message(m, names)
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, msg)
		if m.Role == llm.RoleTool {
			pictures = append(pictures, imageParts(m)...)
		}
		if len(pictures) > 0 && (i+1 == len(req.Messages) || req.Messages[i+1].Role != llm.RoleTool) {
			params.Messages = append(params.Messages, openaisdk.UserMessage(pictures))
			pictures = nil
		}
	}
	if req.MaxTokens > 0 {
		params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	params.StreamOptions.IncludeUsage = param.NewOpt(true)
	params.SetExtraFields(map[string]any{"stream": true})
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randomConversation returns a conversation of n rounds: a task, then
// assistant messages with zero to three calls (names that need wire
// forms among them), their results, some with pictures, and text.
func randomConversation(r *rand.Rand, n int) []llm.Message {
	words := []string{"fix", "the", "bug", "in", "main.go", "ünïcode", "\"quoted\"", "<tag>", "\n", "\u2028", "tab\there"}
	text := func() string {
		var b bytes.Buffer
		for range r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	tools := []string{"read_file", "run_shell_command", "mcp:server/tool name", "a.b"}
	ms := []llm.Message{{Role: llm.RoleSystem, Content: "You are wield."}, {Role: llm.RoleUser, Content: text()}}
	for i := range n {
		a := llm.Message{Role: llm.RoleAssistant, Content: text()}
		for j := range r.IntN(4) {
			args := fmt.Sprintf(`{"path":%q,"n":%d}`, text(), j)
			if r.IntN(5) == 0 {
				args = "" // a call without arguments
			}
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("c%d_%d", i, j), Name: tools[r.IntN(len(tools))], Arguments: json.RawMessage(args)})
		}
		ms = append(ms, a)
		for _, c := range a.ToolCalls {
			res := llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text()}
			if r.IntN(4) == 0 {
				res.Images = []llm.Image{{MIMEType: "image/png", Width: 1 + r.IntN(9), Height: 1 + r.IntN(9), Data: []byte(text())}}
			}
			ms = append(ms, res)
		}
		if r.IntN(3) == 0 {
			ms = append(ms, llm.Message{Role: llm.RoleUser, Content: text()})
		}
	}
	return ms
}

// TestBuildRequestMatchesTheSDK checks the assembled body against the
// SDK's encoding of the whole request, round after round of growing
// conversations (so that most messages come from the cache), with the
// cache cleared now and then by a small bound.
func TestBuildRequestMatchesTheSDK(t *testing.T) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "run_shell_command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "mcp:server/tool name", Description: "A name that needs a wire form.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "a.b", Description: "Dots.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", NoKey: true})
			if err != nil {
				t.Fatal(err)
			}
			if seed%4 == 3 {
				p.enc.Max = 2 << 10 // small: the cache starts over often
			}
			request := func(msgs []llm.Message) *llm.Request {
				req := &llm.Request{Model: []string{"m", "n"}[r.IntN(2)], Messages: msgs, Tools: tools, MaxTokens: 100 * (len(msgs) % 2)}
				if temp := []float64{0, 0.5, 1}[r.IntN(4)%3]; r.IntN(2) == 0 {
					req.Temperature = &temp
				}
				return req
			}
			build := func(req *llm.Request) ([]byte, error) {
				c, err := p.buildRequest(req)
				if err != nil {
					return nil, err
				}
				return c.body.Bytes(), nil
			}
			llmtest.Oracle(t, r, randomConversation(r, 12), 2, request, build, func(req *llm.Request) ([]byte, error) { return sdkBody(t, p, req), nil })
		})
	}
}

// TestBuildRequestEncodesOnlyWhatIsNew checks that a round adds to the
// cache only the messages it appends.
func TestBuildRequestEncodesOnlyWhatIsNew(t *testing.T) {
	p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", NoKey: true})
	if err != nil {
		t.Fatal(err)
	}
	conv := randomConversation(rand.New(rand.NewPCG(7, 7)), 30)
	if _, err := p.buildRequest(&llm.Request{Model: "m", Messages: conv[:len(conv)-2]}); err != nil {
		t.Fatal(err)
	}
	before := p.enc.Len()
	if _, err := p.buildRequest(&llm.Request{Model: "m", Messages: conv}); err != nil {
		t.Fatal(err)
	}
	// Two new messages, and at most one new pictures message.
	if added := p.enc.Len() - before; added < 1 || added > 3 {
		t.Errorf("a round with two new messages added %d encodings to the cache, want 2 or 3", added)
	}
}

// sdkResponsesBody is the oracle for buildResponsesRequest: the whole
// request as the SDK encodes it in one json.Marshal, built the plain way.
func sdkResponsesBody(t *testing.T, p *Provider, req *llm.Request) []byte {
	t.Helper()
	names := &wire.Names{}
	params := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(req.Model),
		Store:   param.NewOpt(p.cfg.PreviousResponseID),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	for _, tl := range req.Tools {
		w, err := names.Wire(tl.Name)
		if err != nil {
			t.Fatal(err)
		}
		fn := responses.FunctionToolParam{Name: w, Strict: param.NewOpt(false)}
		if tl.Description != "" {
			fn.Description = param.NewOpt(tl.Description)
		}
		raw, _, err := schema.OpenAI(tl.InputSchema, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &fn.Parameters); err != nil {
			t.Fatal(err)
		}
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: &fn})
	}
	msgs := req.Messages
	var system []string
	for len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
		system = append(system, msgs[0].Content)
		msgs = msgs[1:]
	}
	if len(system) > 0 {
		params.Instructions = param.NewOpt(strings.Join(system, "\n\n"))
	}
	if p.cfg.PreviousResponseID {
		if i, id := storedResponse(msgs); id != "" {
			params.PreviousResponseID = param.NewOpt(id)
			msgs = msgs[i+1:]
		}
	}
	items := responses.ResponseInputParam{}
	for _, m := range msgs {
		var err error
		if items, err = inputItems(items, m, names); err != nil {
			t.Fatal(err)
		}
	}
	params.Input.OfInputItemList = items
	params.SetExtraFields(map[string]any{"stream": true})
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBuildResponsesRequestMatchesTheSDK is TestBuildRequestMatchesTheSDK
// for the Responses API, with reasoning items and stored responses.
func TestBuildResponsesRequestMatchesTheSDK(t *testing.T) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "mcp:server/tool name", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 4))
			p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", NoKey: true, API: Responses, PreviousResponseID: seed%3 == 2})
			if err != nil {
				t.Fatal(err)
			}
			if seed%4 == 3 {
				p.enc.Max = 2 << 10
			}
			conv := randomConversation(r, 12)
			for i := range conv {
				if conv[i].Role != llm.RoleAssistant {
					continue
				}
				switch r.IntN(4) {
				case 0:
					conv[i].Thinking = []llm.Thinking{{Provider: providerName, ID: fmt.Sprint("rs_", i), Text: "summary", Redacted: "enc"}}
				case 1:
					conv[i].Thinking = []llm.Thinking{{Provider: providerName, ID: fmt.Sprint("resp_", i), Signature: ResponseMarker}}
				}
			}
			request := func(msgs []llm.Message) *llm.Request {
				return &llm.Request{Model: "m", Messages: msgs, Tools: tools[:r.IntN(len(tools)+1)]}
			}
			build := func(req *llm.Request) ([]byte, error) {
				c, err := p.buildResponsesRequest(req)
				if err != nil {
					return nil, err
				}
				return c.body.Bytes(), nil
			}
			llmtest.Oracle(t, r, conv, 1, request, build, func(req *llm.Request) ([]byte, error) { return sdkResponsesBody(t, p, req), nil })
		})
	}
}

// TestBuildRequestSeesChangesInPlace changes messages a request sent, in
// the caller's own slices and strings, and checks that the next request
// encodes them as they are now, not as they were.
func TestBuildRequestSeesChangesInPlace(t *testing.T) {
	p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", NoKey: true})
	if err != nil {
		t.Fatal(err)
	}
	conv := []llm.Message{
		{Role: llm.RoleUser, Content: "add"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "add", Arguments: json.RawMessage(`{"a":1}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "add", Content: "1"},
	}
	changes := []func(){
		func() {},
		func() { conv[1].ToolCalls[0].Arguments[5] = '2' },
		func() { conv[1].ToolCalls[0].Name = "mcp:s/add" },
		func() { conv[2].Content = "2" },
		func() { conv[0], conv[2] = conv[2], conv[0] },
	}
	for i, change := range changes {
		change()
		req := &llm.Request{Model: "m", Messages: conv}
		got, err := p.buildRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		var gv, wv any
		if err := json.Unmarshal(got.body.Bytes(), &gv); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sdkBody(t, p, req), &wv); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gv, wv) {
			t.Fatalf("change %d: got %s, want %v", i, got.body.Bytes(), wv)
		}
	}
}
