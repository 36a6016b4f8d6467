package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// build returns the build of p's request bodies.
func build(p *Provider) llmtest.Build {
	return func(req *llm.Request) ([]byte, error) {
		c, err := p.buildRequest(req)
		if err != nil {
			return nil, err
		}
		return c.body.Bytes(), nil
	}
}

// sdkBody is the oracle for buildRequest: the whole request as the SDK
// encodes it in one json.Marshal, built the plain way.
func sdkBody(t *testing.T, p *Provider, req *llm.Request) []byte {
	t.Helper()
	maxTokens, err := p.maxTokens(req, req.Model)
	if err != nil {
		t.Fatal(err)
	}
	names := &wire.Names{}
	params := anthropicsdk.MessageNewParams{Model: anthropicsdk.Model(req.Model), MaxTokens: int64(maxTokens)}
	for _, tl := range req.Tools {
		tool, err := toolParam(tl, names)
		if err != nil {
			t.Fatal(err)
		}
		params.Tools = append(params.Tools, anthropicsdk.ToolUnionParam{OfTool: tool})
	}
	for i := 0; i < len(req.Messages); i++ {
		m := req.Messages[i]
		switch m.Role {
		case llm.RoleSystem:
			params.System = append(params.System, anthropicsdk.TextBlockParam{Text: m.Content})
		case llm.RoleUser:
			params.Messages = append(params.Messages, anthropicsdk.NewUserMessage(anthropicsdk.NewTextBlock(m.Content)))
		case llm.RoleTool:
			j := i
			for j < len(req.Messages) && req.Messages[j].Role == llm.RoleTool {
				j++
			}
			msg, err := toolResults(req.Messages[i:j], wire.LastCalls(req.Messages[:i]))
			if err != nil {
				t.Fatal(err)
			}
			params.Messages = append(params.Messages, msg)
			i = j - 1
		case llm.RoleAssistant:
			msg, err := assistant(m, names)
			if err != nil {
				t.Fatal(err)
			}
			if len(msg.Content) > 0 {
				params.Messages = append(params.Messages, msg)
			}
		}
	}
	if !p.cfg.NoCache {
		ephemeral := anthropicsdk.NewCacheControlEphemeralParam()
		if n := len(params.System); n > 0 {
			params.System[n-1].CacheControl = ephemeral
		}
		if n := len(params.Tools); n > 0 {
			*params.Tools[n-1].GetCacheControl() = ephemeral
		}
		for i := len(params.Messages) - 2; i >= 0; i-- {
			if params.Messages[i].Role == anthropicsdk.MessageParamRoleAssistant {
				markLastCacheable(&params.Messages[i])
				break
			}
		}
	}
	if req.Temperature != nil {
		params.Temperature = anthropicsdk.Float(*req.Temperature)
	}
	params.SetExtraFields(map[string]any{"stream": true})
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randomConversation returns a conversation of n rounds: a task, then
// assistant messages with thinking blocks (this provider's and another's),
// zero to three calls, results out of call order, some with pictures, and
// user turns.
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
	nonEmpty := func() string { return "x " + text() }
	tools := []string{"read_file", "run_shell_command", "mcp:server/tool name", "a.b"}
	ms := []llm.Message{{Role: llm.RoleSystem, Content: "You are wield."}, {Role: llm.RoleUser, Content: nonEmpty()}}
	for i := range n {
		a := llm.Message{Role: llm.RoleAssistant, Content: text()}
		switch r.IntN(4) {
		case 0:
			a.Thinking = []llm.Thinking{{Provider: providerName, Text: text(), Signature: "sig" + text()}}
		case 1:
			a.Thinking = []llm.Thinking{{Provider: providerName, Redacted: "data"}, {Provider: "gemini", Signature: "other"}}
		}
		for j := range r.IntN(4) {
			args := fmt.Sprintf(`{"path":%q,"n":%d}`, text(), j)
			if r.IntN(5) == 0 {
				args = "not json"
			}
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("c%d_%d", i, j), Name: tools[r.IntN(len(tools))], Arguments: json.RawMessage(args)})
		}
		ms = append(ms, a)
		results := make([]llm.Message, 0, len(a.ToolCalls))
		for _, c := range a.ToolCalls {
			res := llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text()}
			if r.IntN(4) == 0 {
				res.Images = []llm.Image{{MIMEType: "image/png", Width: 1 + r.IntN(9), Height: 1 + r.IntN(9), Data: []byte(nonEmpty())}}
			}
			results = append(results, res)
		}
		r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
		ms = append(ms, results...)
		if len(a.ToolCalls) == 0 || r.IntN(3) == 0 {
			ms = append(ms, llm.Message{Role: llm.RoleUser, Content: nonEmpty()})
		}
	}
	return ms
}

// TestBuildRequestMatchesTheSDK checks the assembled body against the
// SDK's encoding of the whole request, round after round of growing
// conversations (so that most turns come from the cache and the cache
// breakpoint moves), with caching off now and then and the cache cleared
// often by a small bound.
func TestBuildRequestMatchesTheSDK(t *testing.T) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "run_shell_command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "mcp:server/tool name", Description: "A name that needs a wire form.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "a.b", Description: "Dots.", InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
	}
	for seed := range uint64(24) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 2))
			p, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "k", NoCache: seed%3 == 1})
			if err != nil {
				t.Fatal(err)
			}
			if seed%4 == 3 {
				p.enc.Max = 2 << 10
			}
			request := func(msgs []llm.Message) *llm.Request {
				return &llm.Request{Model: "claude-test", Messages: msgs, Tools: tools[:r.IntN(len(tools)+1)]}
			}
			llmtest.Oracle(t, r, randomConversation(r, 12), 2, request, build(p), func(req *llm.Request) ([]byte, error) { return sdkBody(t, p, req), nil })
		})
	}
}

// TestBuildRequestIncrementalIsFromScratch builds the requests of
// conversations round after round on one provider, with edits, removals,
// moves and compaction between the rounds and two conversations taking
// turns (a subagent's), and checks that every body is byte for byte the
// one a new provider, with nothing cached, builds for the same request.
func TestBuildRequestIncrementalIsFromScratch(t *testing.T) {
	for seed := range uint64(30) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { buildIncrementally(t, seed, 5) })
	}
}

// FuzzBuildRequestIncremental is TestBuildRequestIncrementalIsFromScratch
// for the conversations and edits of any seed.
func FuzzBuildRequestIncremental(f *testing.F) {
	f.Add(uint64(0), uint64(5))
	f.Add(uint64(4), uint64(1))
	f.Fuzz(func(t *testing.T, seed, stream uint64) { buildIncrementally(t, seed, stream) })
}

// buildIncrementally is the test of TestBuildRequestIncrementalIsFromScratch
// for the conversations and edits the seed and the stream pick.
func buildIncrementally(t *testing.T, seed, stream uint64) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "run_shell_command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "mcp:server/tool name", Description: "A name that needs a wire form.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "a.b", Description: "Dots."},
	}
	r := rand.New(rand.NewPCG(seed, stream))
	cfg := Config{BaseURL: "http://127.0.0.1:1", APIKey: "k", NoCache: seed%3 == 1, ThinkingBudget: 1024 * int(seed%3/2)}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if seed%5 == 4 {
		p.enc.Max = 2 << 10 // small: the cache starts over often
	}
	// Two conversations, each sent up to a growing length.
	var convs [2][]llm.Message
	for k := range convs {
		convs[k] = randomConversation(r, 10+r.IntN(10))
	}
	fromScratch := func(req *llm.Request) ([]byte, error) {
		fresh, err := New(cfg)
		if err != nil {
			return nil, err
		}
		return build(fresh)(req)
	}
	llmtest.Incremental(t, r, convs, 2, "claude-test", providerName, tools, build(p), fromScratch)
}

// TestBuildRequestRunsChangeShape sends, in turn, conversations whose
// runs of tool results start, end and are ordered differently at the same
// positions, and checks each body byte for byte against one built from
// scratch: an encoding kept for a run must not serve a run of other
// messages or other calls.
func TestBuildRequestRunsChangeShape(t *testing.T) {
	newProvider := func() *Provider {
		p, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := newProvider()
	llmtest.RunsChangeShape(t, "claude-test", build(p), func(req *llm.Request) ([]byte, error) { return build(newProvider())(req) })
}
