package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/schema"
)

// providerName is the [llm.Thinking.Provider] of the blocks this package
// makes and sends back.
const providerName = "anthropic"

// A call is one request, ready to send.
type call struct {
	body  *wire.Body  // the JSON request
	names *wire.Names // the tool names in it
	model string
}

// maxTokens returns the output cap of a request to model: the request's,
// else the configured one, else the default for the model.
func (p *Provider) maxTokens(req *llm.Request, model string) (int, error) {
	budget := p.cfg.ThinkingBudget
	n := req.MaxTokens
	if n <= 0 {
		n = p.cfg.MaxTokens
	}
	if n <= 0 {
		return DefaultMaxTokensFor(model, budget), nil
	}
	if budget > 0 && n <= budget {
		return 0, fmt.Errorf("anthropic: max tokens %d must be larger than the thinking budget %d; raise the one or lower the other", n, budget)
	}
	return n, nil
}

// DefaultMaxTokensFor returns the output cap sent for model when neither
// the request nor [Config.MaxTokens] sets one: [Claude3MaxTokens] for
// claude-3-opus, claude-3-sonnet and claude-3-haiku, [DefaultMaxTokens]
// for the rest, plus thinkingBudget when it is not zero.
func DefaultMaxTokensFor(model string, thinkingBudget int) int {
	n := DefaultMaxTokens
	for _, old := range []string{"claude-3-opus", "claude-3-sonnet", "claude-3-haiku"} {
		if strings.HasPrefix(model, old) {
			n = Claude3MaxTokens
		}
	}
	return n + max(thinkingBudget, 0)
}

// buildRequest returns the call for req.
//
// The body is the SDK's encoding, assembled from pieces: each message the
// API sees (a run of tool results is one) and the tool list are encoded
// once and kept in the provider's cache, so that a round encodes only
// what is new (a conversation resends its whole history every round; a
// message sent at the same position by the last request of the
// conversation is found by comparing it, see [wire.Recent]), and the
// envelope (model, limits, system, thinking) is encoded without them. The
// body is read from the pieces, not joined ([wire.Body]). It is the same
// JSON object the SDK makes of the whole request, with messages and tools
// first.
func (p *Provider) buildRequest(req *llm.Request) (*call, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	maxTokens, err := p.maxTokens(req, model)
	if err != nil {
		return nil, err
	}
	names := &wire.Names{}
	tools, err := p.toolsJSON(req.Tools, names)
	if err != nil {
		return nil, err
	}
	params := anthropicsdk.MessageNewParams{Model: anthropicsdk.Model(model), MaxTokens: int64(maxTokens)}
	turns := make([]wire.Turn, 0, len(req.Messages))
	for i := 0; i < len(req.Messages); i++ {
		m := req.Messages[i]
		switch m.Role {
		case llm.RoleSystem:
			if m.Content != "" {
				params.System = append(params.System, anthropicsdk.TextBlockParam{Text: m.Content})
			}
		case llm.RoleUser:
			if m.Content == "" {
				return nil, fmt.Errorf("anthropic: message %d: a user message has no text, which the API rejects", i+1)
			}
			turns = append(turns, wire.Turn{Lo: i, Hi: i + 1})
		case llm.RoleTool:
			// Consecutive results answer one assistant message: they go in one
			// user message, in the order of its calls.
			j := i
			for j < len(req.Messages) && req.Messages[j].Role == llm.RoleTool {
				j++
			}
			turns = append(turns, wire.Turn{Lo: i, Hi: j})
			i = j - 1
		case llm.RoleAssistant:
			if !emptyAssistant(m) { // an empty assistant message says nothing; the API rejects it
				turns = append(turns, wire.Turn{Lo: i, Hi: i + 1})
			}
		default:
			return nil, fmt.Errorf("anthropic: message %d: unknown role %q", i+1, m.Role)
		}
	}
	if len(turns) == 0 {
		return nil, errors.New("anthropic: the request has no user message; the API needs at least one")
	}
	// The last stable turn, the last assistant message before the newest
	// turn, carries a prompt-cache breakpoint.
	if !p.cfg.NoCache {
		for k := len(turns) - 2; k >= 0; k-- {
			if req.Messages[turns[k].Lo].Role == llm.RoleAssistant {
				turns[k].Flag = true // the breakpoint
				break
			}
		}
	}
	var key wire.CacheKey
	parts, err := wire.Turns(&p.recent, req.Messages, turns, names, "anthropic", func(k int) ([]byte, error) {
		return p.turnJSON(&key, req.Messages, turns[k], names)
	})
	if err != nil {
		return nil, err
	}
	if p.cfg.ThinkingBudget > 0 {
		params.Thinking = anthropicsdk.ThinkingConfigParamOfEnabled(int64(p.cfg.ThinkingBudget))
	} else if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if n := len(params.System); n > 0 && !p.cfg.NoCache {
		params.System[n-1].CacheControl = anthropicsdk.NewCacheControlEphemeralParam()
	}
	params.SetExtraFields(map[string]any{"stream": true})
	envelope, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	body, err := wire.AssembleBody("messages", parts, tools, envelope)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return &call{body: body, names: names, model: model}, nil
}

// emptyAssistant reports whether an assistant message has nothing the
// API would be sent: no thinking block of this provider's, no text, no
// call.
func emptyAssistant(m llm.Message) bool {
	if m.Content != "" || len(m.ToolCalls) > 0 {
		return false
	}
	for _, t := range m.Thinking {
		if t.Provider == providerName && (t.Redacted != "" || t.Signature != "") {
			return false
		}
	}
	return true
}

// turnJSON returns the encoding of one turn of msgs, from the cache when
// it was sent before the same way. k is scratch space for the key.
func (p *Provider) turnJSON(k *wire.CacheKey, msgs []llm.Message, t wire.Turn, names *wire.Names) ([]byte, error) {
	p.enc.Reset(k)
	if t.Flag { // the prompt-cache breakpoint
		k.Int(1)
	} else {
		k.Int(0)
	}
	first := msgs[t.Lo]
	k.String(string(first.Role))
	var calls []llm.ToolCall
	if first.Role == llm.RoleTool {
		// The order of the results follows the calls they answer.
		calls = wire.LastCalls(msgs[:t.Lo])
		k.Int(len(calls))
		for _, c := range calls {
			k.String(c.ID)
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
	var msg anthropicsdk.MessageParam
	var err error
	switch first.Role {
	case llm.RoleUser:
		msg = anthropicsdk.NewUserMessage(anthropicsdk.NewTextBlock(first.Content))
	case llm.RoleTool:
		msg, err = toolResults(msgs[t.Lo:t.Hi], calls)
	default:
		msg, err = assistant(first, names)
	}
	if err != nil {
		return nil, err
	}
	if t.Flag {
		markLastCacheable(&msg)
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	p.enc.Put(k, b)
	return b, nil
}

// toolsJSON returns the encoded tool list of a request (nil for none),
// the last tool carrying a prompt-cache breakpoint unless caching is off,
// from the cache when the same list was sent before. It gives every tool
// its wire name in names, in order, either way.
func (p *Provider) toolsJSON(tools []llm.ToolDef, names *wire.Names) ([]byte, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	k := new(wire.CacheKey)
	p.enc.Reset(k)
	k.String("tools")
	if p.cfg.NoCache {
		k.Int(0)
	} else {
		k.Int(1)
	}
	if _, err := wire.ToolsKey(k, tools, names); err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	if b, ok := p.enc.Get(k); ok {
		return b, nil
	}
	list := make([]anthropicsdk.ToolUnionParam, 0, len(tools))
	for i, t := range tools {
		tool, err := toolParam(t, names)
		if err != nil {
			return nil, fmt.Errorf("anthropic: tool %d (%s): %w", i+1, t.Name, err)
		}
		list = append(list, anthropicsdk.ToolUnionParam{OfTool: tool})
	}
	if !p.cfg.NoCache {
		if cc := list[len(list)-1].GetCacheControl(); cc != nil {
			*cc = anthropicsdk.NewCacheControlEphemeralParam()
		}
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode tools: %w", err)
	}
	p.enc.Put(k, b)
	return b, nil
}

// toolParam converts one tool definition.
func toolParam(t llm.ToolDef, names *wire.Names) (*anthropicsdk.ToolParam, error) {
	wire, err := names.Wire(t.Name)
	if err != nil {
		return nil, err
	}
	tool := &anthropicsdk.ToolParam{Name: wire}
	if t.Description != "" {
		tool.Description = param.NewOpt(t.Description)
	}
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		tool.InputSchema = anthropicsdk.ToolInputSchemaParam{Properties: map[string]any{}}
		return tool, nil
	}
	raw, err := schema.Anthropic(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	// The SDK's schema type has the common keywords as fields; the rest
	// ride along as extra fields, so every keyword is sent as it was.
	s := anthropicsdk.ToolInputSchemaParam{Properties: fields["properties"]}
	if req, ok := fields["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	delete(fields, "type")
	delete(fields, "properties")
	delete(fields, "required")
	if len(fields) > 0 {
		s.ExtraFields = fields
	}
	if s.Properties == nil {
		s.Properties = map[string]any{}
	}
	tool.InputSchema = s
	return tool, nil
}

// lastCalls returns the tool calls of the last assistant message in msgs.

// toolResults converts a run of tool messages into one user message of
// tool_result blocks, in the order of calls (results for unknown ids
// last, in their own order).
func toolResults(results []llm.Message, calls []llm.ToolCall) (anthropicsdk.MessageParam, error) {
	order := func(m llm.Message) int {
		if i := slices.IndexFunc(calls, func(c llm.ToolCall) bool { return c.ID == m.ToolCallID }); i >= 0 {
			return i
		}
		return len(calls)
	}
	results = slices.Clone(results)
	slices.SortStableFunc(results, func(a, b llm.Message) int { return order(a) - order(b) })
	var blocks []anthropicsdk.ContentBlockParamUnion
	for _, m := range results {
		if m.ToolCallID == "" {
			return anthropicsdk.MessageParam{}, errors.New("a tool result has no tool call id")
		}
		b := anthropicsdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
		if m.Content != "" {
			b.Content = []anthropicsdk.ToolResultBlockParamContentUnion{{OfText: &anthropicsdk.TextBlockParam{Text: m.Content}}}
		}
		// Pictures go in the tool_result itself, after its text, as
		// image blocks of base64 data.
		for _, img := range m.Images {
			if len(img.Data) == 0 {
				continue
			}
			b.Content = append(b.Content, anthropicsdk.ToolResultBlockParamContentUnion{OfImage: &anthropicsdk.ImageBlockParam{
				Source: anthropicsdk.ImageBlockParamSourceUnion{OfBase64: &anthropicsdk.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(img.Data), MediaType: anthropicsdk.Base64ImageSourceMediaType(img.MIMEType)}}}})
		}
		blocks = append(blocks, anthropicsdk.ContentBlockParamUnion{OfToolResult: &b})
	}
	return anthropicsdk.NewUserMessage(blocks...), nil
}

// assistant converts an assistant message: its thinking blocks first,
// unchanged, then its text, then its tool calls.
func assistant(m llm.Message, names *wire.Names) (anthropicsdk.MessageParam, error) {
	var blocks []anthropicsdk.ContentBlockParamUnion
	for _, t := range m.Thinking {
		switch {
		case t.Provider != providerName:
			// Another provider's reasoning means nothing here.
		case t.Redacted != "":
			blocks = append(blocks, anthropicsdk.NewRedactedThinkingBlock(t.Redacted))
		case t.Signature != "":
			blocks = append(blocks, anthropicsdk.NewThinkingBlock(t.Signature, t.Text))
		}
		// A block without signature or data would be rejected: dropped.
	}
	if m.Content != "" {
		blocks = append(blocks, anthropicsdk.NewTextBlock(m.Content))
	}
	for _, c := range m.ToolCalls {
		wire, err := names.Wire(c.Name)
		if err != nil {
			return anthropicsdk.MessageParam{}, err
		}
		blocks = append(blocks, anthropicsdk.NewToolUseBlock(c.ID, callInput(c.Arguments), wire))
	}
	return anthropicsdk.NewAssistantMessage(blocks...), nil
}

// callInput returns a call's arguments as the API wants them back: a JSON
// object. Arguments that are not one (the model wrote broken JSON, and the
// runner told it so in the result) are sent as {}.
func callInput(args json.RawMessage) json.RawMessage {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
		return json.RawMessage("{}")
	}
	return args
}

// markLastCacheable puts the prompt-cache breakpoint on the last block of
// msg that can carry one (thinking blocks cannot; the text or tool_use
// after them can).
func markLastCacheable(msg *anthropicsdk.MessageParam) {
	for j := len(msg.Content) - 1; j >= 0; j-- {
		if cc := msg.Content[j].GetCacheControl(); cc != nil {
			*cc = anthropicsdk.NewCacheControlEphemeralParam()
			return
		}
	}
}
