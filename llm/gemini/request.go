package gemini

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/schema"
)

// The wire types below are the REST JSON of generateContent where
// genai's types do not fit it (see the package documentation): a part
// keeps its thought signature as the exact string received, an empty text
// part can carry a signature, and function-call arguments stay raw JSON.

// request is the body of a generateContent request. genai's
// GenerateContentConfig is the SDK's own input, not the wire body: the
// SDK moves its fields to the top level and into generationConfig.
type request struct {
	Contents          []*content              `json:"contents"`
	SystemInstruction *content                `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
}

// content is genai.Content with wire parts.
type content struct {
	Role  string  `json:"role,omitempty"`
	Parts []*part `json:"parts"`
}

// part is genai.Part for text, thoughts and function calls and responses.
// Text is a pointer so that an empty text part, which the model uses to
// carry a signature, is sent as {"text": ""}, and a function-call part
// carries no text at all.
type part struct {
	Text             *string                 `json:"text,omitempty"`
	Thought          bool                    `json:"thought,omitempty"`
	ThoughtSignature string                  `json:"thoughtSignature,omitempty"`
	FunctionCall     *functionCall           `json:"functionCall,omitempty"`
	FunctionResponse *genai.FunctionResponse `json:"functionResponse,omitempty"`
}

// functionCall is genai.FunctionCall with the arguments as raw JSON, so
// that they reach the runner (and come back to the model) as written.
type functionCall struct {
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Args         json.RawMessage `json:"args,omitempty"`
	PartialArgs  []*partialArg   `json:"partialArgs,omitempty"`
	WillContinue *bool           `json:"willContinue,omitempty"`
}

// generatedIDPrefix starts the ids this package gives calls the model sent
// without one; such ids are not sent back to the model.
const generatedIDPrefix = "gemini_"

// A call is one request, ready to send.
type call struct {
	body  *wire.Body
	names *wire.Names
	model string
}

// buildRequest returns the call for req.
//
// The body is assembled from pieces: each content (a run of tool results
// is one) and the tool list are encoded once and kept in the provider's
// cache, so that a round encodes only what is new (a conversation resends
// its whole history every round; a content sent at the same position by
// the last request of the conversation is found by comparing its
// messages, see [wire.Recent]); the system instruction and the
// generation config are encoded each time. The body is read from the
// pieces, not joined ([wire.Body]). It is the JSON object json.Marshal
// makes of the whole request.
func (p *Provider) buildRequest(req *llm.Request) (*call, error) {
	model := modelName(req.Model)
	if model == "" {
		model = modelName(p.cfg.Model)
	}
	if model == "" {
		return nil, errors.New("gemini: no model named; set the model (for example gemini-2.5-pro or gemini-2.5-flash)")
	}
	if strings.ContainsAny(model, "/?#:") {
		return nil, fmt.Errorf("gemini: model name %q has a character a model name cannot have", model)
	}
	names := &wire.Names{}
	tools, err := p.toolsJSON(req.Tools, names)
	if err != nil {
		return nil, err
	}
	var rest struct {
		SystemInstruction *content                `json:"systemInstruction,omitempty"`
		GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
	}
	turns := make([]wire.Turn, 0, len(req.Messages))
	msgs := req.Messages
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		t := wire.Turn{Lo: i, Hi: i + 1}
		switch m.Role {
		case llm.RoleSystem:
			if rest.SystemInstruction == nil {
				rest.SystemInstruction = &content{}
			}
			rest.SystemInstruction.Parts = append(rest.SystemInstruction.Parts, textPart(m.Content))
			continue
		case llm.RoleUser:
		case llm.RoleAssistant:
			if emptyModelContent(m) {
				continue
			}
		case llm.RoleTool:
			for t.Hi < len(msgs) && msgs[t.Hi].Role == llm.RoleTool {
				t.Hi++
			}
			i = t.Hi - 1
		default:
			return nil, fmt.Errorf("gemini: message %d: unknown role %q", i+1, m.Role)
		}
		turns = append(turns, t)
	}
	var key wire.CacheKey
	parts, err := wire.Turns(&p.recent, msgs, turns, names, "gemini", func(k int) ([]byte, error) {
		return p.turnJSON(&key, msgs, turns[k], names)
	})
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		parts = nil // "contents": null, as json.Marshal writes it
	}
	gc := &genai.GenerationConfig{MaxOutputTokens: int32(min(req.MaxTokens, 1<<31-1))}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		gc.Temperature = &t
	}
	if p.cfg.ThinkingBudget != nil || p.cfg.ThinkingLevel != "" || p.cfg.IncludeThoughts {
		tc := &genai.ThinkingConfig{IncludeThoughts: p.cfg.IncludeThoughts, ThinkingLevel: genai.ThinkingLevel(p.cfg.ThinkingLevel)}
		if b := p.cfg.ThinkingBudget; b != nil {
			n := int32(max(min(*b, 1<<31-1), -1))
			tc.ThinkingBudget = &n
		}
		gc.ThinkingConfig = tc
	}
	if gc.MaxOutputTokens > 0 || gc.Temperature != nil || gc.ThinkingConfig != nil {
		rest.GenerationConfig = gc
	}
	tail, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("gemini: encode request: %w", err)
	}
	body, err := wire.AssembleBody("contents", parts, tools, tail)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &call{body: body, names: names, model: model}, nil
}

// emptyModelContent reports whether an assistant message has no part to
// send: no signed thought of this provider's, no text, no call.
func emptyModelContent(m llm.Message) bool {
	if m.Content != "" || len(m.ToolCalls) > 0 {
		return false
	}
	for _, t := range m.Thinking {
		if t.Provider == providerName && t.Signature != "" {
			return false
		}
	}
	return true
}

// turnJSON returns the encoding of one content of msgs, from the cache
// when it was sent before the same way. k is scratch space for the key.
func (p *Provider) turnJSON(k *wire.CacheKey, msgs []llm.Message, t wire.Turn, names *wire.Names) ([]byte, error) {
	p.enc.Reset(k)
	first := msgs[t.Lo]
	k.String(string(first.Role))
	var calls []llm.ToolCall
	if first.Role == llm.RoleTool {
		// A response is ordered by and named after the call it answers.
		calls = wire.LastCalls(msgs[:t.Lo])
		k.Int(len(calls))
		for _, c := range calls {
			w, err := names.Wire(c.Name)
			if err != nil {
				return nil, err
			}
			k.String(c.ID)
			k.String(w)
		}
	}
	for _, m := range msgs[t.Lo:t.Hi] {
		if err := wire.MessageKey(k, m, names); err != nil {
			return nil, err
		}
	}
	if b, ok := p.enc.Get(k); ok {
		return b, nil
	}
	var c *content
	switch first.Role {
	case llm.RoleUser:
		c = &content{Role: "user", Parts: []*part{textPart(first.Content)}}
	case llm.RoleAssistant:
		var err error
		if c, err = modelContent(first, names); err != nil {
			return nil, err
		}
	default:
		parts, err := responseParts(msgs[t.Lo:t.Hi], calls, names)
		if err != nil {
			return nil, err
		}
		c = &content{Role: "user", Parts: parts}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	p.enc.Put(k, b)
	return b, nil
}

// toolsJSON returns the encoded tools of a request (nil for none), from
// the cache when the same list was sent before. It gives every tool its
// wire name in names, in order, either way.
func (p *Provider) toolsJSON(tools []llm.ToolDef, names *wire.Names) ([]byte, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	k := new(wire.CacheKey)
	p.enc.Reset(k)
	k.String("tools")
	if _, err := wire.ToolsKey(k, tools, names); err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	if b, ok := p.enc.Get(k); ok {
		return b, nil
	}
	decls := make([]*genai.FunctionDeclaration, 0, len(tools))
	for i, t := range tools {
		d, err := declaration(t, names)
		if err != nil {
			return nil, fmt.Errorf("gemini: tool %d (%s): %w", i+1, t.Name, err)
		}
		decls = append(decls, d)
	}
	b, err := json.Marshal([]*genai.Tool{{FunctionDeclarations: decls}})
	if err != nil {
		return nil, fmt.Errorf("gemini: encode tools: %w", err)
	}
	p.enc.Put(k, b)
	return b, nil
}

// declaration converts a tool definition; its schema goes through
// [schema.Gemini] and must then fit genai.Schema, the API's own form.
func declaration(t llm.ToolDef, names *wire.Names) (*genai.FunctionDeclaration, error) {
	wireName, err := names.Wire(t.Name)
	if err != nil {
		return nil, err
	}
	d := &genai.FunctionDeclaration{Name: wireName, Description: t.Description}
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		return d, nil // a tool without parameters
	}
	raw, err := schema.Gemini(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var s genai.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("input schema in Gemini's form %s: %w", wire.Clip(string(raw), 200), err)
	}
	if s.Type == "object" && len(s.Properties) == 0 {
		return d, nil // Gemini rejects an object schema without properties
	}
	d.Parameters = &s
	return d, nil
}

func textPart(s string) *part { return &part{Text: &s} }

// modelContent converts an assistant message. Its parts are, in order: the
// signed thought parts ([llm.Thinking] blocks with Text), the text as one
// part carrying the first text signature (further ones follow on empty
// text parts; with no text, each goes on an empty text part, the shape the
// model sent it in), then the function calls with their signatures.
// Blocks of other providers are dropped.
func modelContent(m llm.Message, names *wire.Names) (*content, error) {
	c := &content{Role: "model"}
	var textSigs []string
	for _, t := range m.Thinking {
		if t.Provider != providerName || t.Signature == "" {
			continue
		}
		if t.Text != "" {
			text := t.Text
			c.Parts = append(c.Parts, &part{Text: &text, Thought: true, ThoughtSignature: t.Signature})
			continue
		}
		textSigs = append(textSigs, t.Signature)
	}
	if m.Content != "" {
		p := textPart(m.Content)
		if len(textSigs) > 0 {
			p.ThoughtSignature, textSigs = textSigs[0], textSigs[1:]
		}
		c.Parts = append(c.Parts, p)
	}
	for _, sig := range textSigs {
		p := textPart("")
		p.ThoughtSignature = sig
		c.Parts = append(c.Parts, p)
	}
	for _, tc := range m.ToolCalls {
		wireName, err := names.Wire(tc.Name)
		if err != nil {
			return nil, err
		}
		args := bytes.TrimSpace(tc.Arguments)
		if len(args) == 0 || string(args) == "null" || !json.Valid(args) || args[0] != '{' {
			// The API wants an object; arguments the model got wrong were
			// answered with an error the model reads in the result.
			args = []byte("{}")
		}
		fc := &functionCall{Name: wireName, Args: json.RawMessage(args)}
		if !strings.HasPrefix(tc.ID, generatedIDPrefix) {
			fc.ID = tc.ID
		}
		c.Parts = append(c.Parts, &part{FunctionCall: fc, ThoughtSignature: tc.Signature})
	}
	return c, nil
}

// responseParts converts the results of one round into functionResponse
// parts, ordered as the calls they answer and matched to them by id; the
// name comes from the call. Results of calls the message did not make
// (a conversation edited by hand) follow under their own names.
func responseParts(results []llm.Message, calls []llm.ToolCall, names *wire.Names) ([]*part, error) {
	order := make(map[string]int, len(calls))
	for i, c := range calls {
		if _, dup := order[c.ID]; !dup {
			order[c.ID] = i
		}
	}
	type result struct {
		pos  int
		part *part
	}
	var rs []result
	for k, r := range results {
		name := r.ToolName
		pos := len(calls) + k
		if i, ok := order[r.ToolCallID]; ok {
			name, pos = calls[i].Name, i
		}
		if name == "" {
			return nil, fmt.Errorf("the result of tool call %q answers no call of the previous message and names no tool", r.ToolCallID)
		}
		wireName, err := names.Wire(name)
		if err != nil {
			return nil, err
		}
		fr := &genai.FunctionResponse{Name: wireName, Response: map[string]any{"output": r.Content}}
		// Pictures travel inside the function response, as inline data
		// parts of their own.
		for _, img := range r.Images {
			if len(img.Data) > 0 {
				fr.Parts = append(fr.Parts, genai.NewFunctionResponsePartFromBytes(img.Data, img.MIMEType))
			}
		}
		if !strings.HasPrefix(r.ToolCallID, generatedIDPrefix) {
			fr.ID = r.ToolCallID
		}
		rs = append(rs, result{pos, &part{FunctionResponse: fr}})
	}
	slices.SortStableFunc(rs, func(a, b result) int { return cmp.Compare(a.pos, b.pos) })
	parts := make([]*part, len(rs))
	for i, r := range rs {
		parts[i] = r.part
	}
	return parts, nil
}
