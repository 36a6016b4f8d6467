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
	body  []byte      // the JSON request
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
	params := anthropicsdk.MessageNewParams{Model: anthropicsdk.Model(model), MaxTokens: int64(maxTokens)}
	for i, t := range req.Tools {
		tool, err := toolParam(t, names)
		if err != nil {
			return nil, fmt.Errorf("anthropic: tool %d (%s): %w", i+1, t.Name, err)
		}
		params.Tools = append(params.Tools, anthropicsdk.ToolUnionParam{OfTool: tool})
	}
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
			params.Messages = append(params.Messages, anthropicsdk.NewUserMessage(anthropicsdk.NewTextBlock(m.Content)))
		case llm.RoleTool:
			// Consecutive results answer one assistant message: they go in one
			// user message, in the order of its calls.
			j := i
			for j < len(req.Messages) && req.Messages[j].Role == llm.RoleTool {
				j++
			}
			msg, err := toolResults(req.Messages[i:j], lastCalls(req.Messages[:i]))
			if err != nil {
				return nil, fmt.Errorf("anthropic: message %d: %w", i+1, err)
			}
			params.Messages = append(params.Messages, msg)
			i = j - 1
		case llm.RoleAssistant:
			msg, err := assistant(m, names)
			if err != nil {
				return nil, fmt.Errorf("anthropic: message %d: %w", i+1, err)
			}
			if len(msg.Content) > 0 { // an empty assistant message says nothing; the API rejects it
				params.Messages = append(params.Messages, msg)
			}
		default:
			return nil, fmt.Errorf("anthropic: message %d: unknown role %q", i+1, m.Role)
		}
	}
	if len(params.Messages) == 0 {
		return nil, errors.New("anthropic: the request has no user message; the API needs at least one")
	}
	if p.cfg.ThinkingBudget > 0 {
		params.Thinking = anthropicsdk.ThinkingConfigParamOfEnabled(int64(p.cfg.ThinkingBudget))
	} else if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if !p.cfg.NoCache {
		setBreakpoints(&params)
	}
	params.SetExtraFields(map[string]any{"stream": true})
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return &call{body: body, names: names, model: model}, nil
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
func lastCalls(msgs []llm.Message) []llm.ToolCall {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			return msgs[i].ToolCalls
		}
	}
	return nil
}

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

// setBreakpoints marks the prompt-cache breakpoints: the last system
// block, the last tool, and the last cacheable block of the last stable
// turn (the last assistant message before the newest user turn), three
// of the four the API allows.
func setBreakpoints(params *anthropicsdk.MessageNewParams) {
	ephemeral := anthropicsdk.NewCacheControlEphemeralParam()
	if n := len(params.System); n > 0 {
		params.System[n-1].CacheControl = ephemeral
	}
	if n := len(params.Tools); n > 0 {
		if cc := params.Tools[n-1].GetCacheControl(); cc != nil {
			*cc = ephemeral
		}
	}
	msgs := params.Messages
	for i := len(msgs) - 2; i >= 0; i-- {
		if msgs[i].Role != anthropicsdk.MessageParamRoleAssistant {
			continue
		}
		for j := len(msgs[i].Content) - 1; j >= 0; j-- {
			// Thinking blocks cannot be breakpoints; the text or tool_use
			// after them can.
			if cc := msgs[i].Content[j].GetCacheControl(); cc != nil {
				*cc = ephemeral
				return
			}
		}
		return
	}
}
