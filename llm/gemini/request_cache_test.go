package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"google.golang.org/genai"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/llm/llmtest"
)

// oldContents converts the conversation the way buildRequest did before
// it cached its pieces, for the oracle below: system messages become the system
// instruction; user and tool messages user contents, assistant messages
// model contents. The results of one round go together in one user
// content, in the order of the calls they answer.
func oldContents(msgs []llm.Message, names *wire.Names) (*content, []*content, error) {
	var system *content
	var out []*content
	var lastCalls []llm.ToolCall // the calls of the latest assistant message
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case llm.RoleSystem:
			if system == nil {
				system = &content{}
			}
			system.Parts = append(system.Parts, textPart(m.Content))
		case llm.RoleUser:
			out = append(out, &content{Role: "user", Parts: []*part{textPart(m.Content)}})
		case llm.RoleAssistant:
			c, err := modelContent(m, names)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %w", i+1, err)
			}
			if len(c.Parts) > 0 {
				out = append(out, c)
			}
			lastCalls = m.ToolCalls
		case llm.RoleTool:
			j := i
			for j < len(msgs) && msgs[j].Role == llm.RoleTool {
				j++
			}
			parts, err := responseParts(msgs[i:j], lastCalls, names)
			if err != nil {
				return nil, nil, fmt.Errorf("messages %d to %d: %w", i+1, j, err)
			}
			out = append(out, &content{Role: "user", Parts: parts})
			i = j - 1
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i+1, m.Role)
		}
	}
	return system, out, nil
}

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

// sdkBody is the oracle for buildRequest: the whole request encoded in
// one json.Marshal, built the plain way.
func sdkBody(t *testing.T, p *Provider, req *llm.Request) []byte {
	t.Helper()
	names := &wire.Names{}
	body := request{}
	var decls []*genai.FunctionDeclaration
	for _, tl := range req.Tools {
		d, err := declaration(tl, names)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, d)
	}
	if len(decls) > 0 {
		body.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	var err error
	body.SystemInstruction, body.Contents, err = oldContents(req.Messages, names)
	if err != nil {
		t.Fatal(err)
	}
	if req.MaxTokens > 0 {
		body.GenerationConfig = &genai.GenerationConfig{MaxOutputTokens: int32(req.MaxTokens)}
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// randomConversation returns a conversation of n rounds: a task, then
// model messages with signed thoughts (this provider's and another's),
// zero to three calls (some with signatures and generated ids), results
// out of call order, some with pictures, and user turns.
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
	ms := []llm.Message{{Role: llm.RoleSystem, Content: "You are wield."}, {Role: llm.RoleSystem, Content: text()}, {Role: llm.RoleUser, Content: text()}}
	for i := range n {
		a := llm.Message{Role: llm.RoleAssistant, Content: text()}
		switch r.IntN(4) {
		case 0:
			a.Thinking = []llm.Thinking{{Provider: providerName, Text: text(), Signature: "sig"}, {Provider: providerName, Signature: "textsig"}}
		case 1:
			a.Thinking = []llm.Thinking{{Provider: "anthropic", Signature: "other"}}
		}
		for j := range r.IntN(4) {
			args := fmt.Sprintf(`{"path":%q,"n":%d}`, text(), j)
			if r.IntN(5) == 0 {
				args = "[1]"
			}
			id := fmt.Sprintf("c%d_%d", i, j)
			if r.IntN(4) == 0 {
				id = generatedIDPrefix + id
			}
			a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: id, Name: tools[r.IntN(len(tools))], Arguments: json.RawMessage(args), Signature: text()})
		}
		ms = append(ms, a)
		results := make([]llm.Message, 0, len(a.ToolCalls))
		for _, c := range a.ToolCalls {
			res := llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: text()}
			if r.IntN(4) == 0 {
				res.Images = []llm.Image{{MIMEType: "image/png", Width: 1, Height: 1, Data: []byte(text() + "x")}}
			}
			results = append(results, res)
		}
		r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
		ms = append(ms, results...)
		if len(a.ToolCalls) == 0 || r.IntN(3) == 0 {
			ms = append(ms, llm.Message{Role: llm.RoleUser, Content: text()})
		}
	}
	return ms
}

// TestBuildRequestMatchesTheOracle checks the assembled body against the
// encoding of the whole request in one piece, round after round of
// growing conversations (so that most contents come from the cache),
// with the cache cleared often by a small bound now and then.
func TestBuildRequestMatchesTheOracle(t *testing.T) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "run_shell_command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "mcp:server/tool name", Description: "A name that needs a wire form.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "a.b", Description: "Dots."},
	}
	for seed := range uint64(24) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			p, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			if seed%4 == 3 {
				p.enc.Max = 2 << 10
			}
			request := func(msgs []llm.Message) *llm.Request {
				return &llm.Request{Model: "gemini-test", Messages: msgs, Tools: tools[:r.IntN(len(tools)+1)], MaxTokens: 50 * r.IntN(2)}
			}
			llmtest.Oracle(t, r, randomConversation(r, 12), 0, request, build(p), func(req *llm.Request) ([]byte, error) { return sdkBody(t, p, req), nil })
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
	cfg := Config{BaseURL: "http://127.0.0.1:1", APIKey: "k", IncludeThoughts: seed%2 == 1}
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
	llmtest.Incremental(t, r, convs, 3, "gemini-test", providerName, tools, build(p), fromScratch)
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
	llmtest.RunsChangeShape(t, "gemini-test", build(p), func(req *llm.Request) ([]byte, error) { return build(newProvider())(req) })
}
