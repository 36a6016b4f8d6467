package openai

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/schema"
)

// providerName is the [llm.Thinking] Provider of the blocks this package
// makes and sends back.
const providerName = "openai"

// ResponseMarker is the Signature of the [llm.Thinking] block that records
// which stored response an assistant message came from, with the
// response's id in the block's ID. Only [Config.PreviousResponseID] adds
// and reads such blocks.
const ResponseMarker = "openai.response"

// buildResponsesRequest returns the call for req in the Responses API.
func (p *Provider) buildResponsesRequest(req *llm.Request) (*call, error) {
	model := cmp.Or(req.Model, p.cfg.Model)
	if model == "" {
		return nil, errors.New("openai: no model named; set the model (for example gpt-5-mini)")
	}
	names := &wire.Names{}
	params := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(model),
		Store:   param.NewOpt(p.cfg.PreviousResponseID),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	tools, err := p.responsesToolsJSON(req.Tools, names)
	if err != nil {
		return nil, err
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
	first := len(req.Messages) - len(msgs) // the number of the first message sent, less one
	if p.cfg.PreviousResponseID {
		if i, id := storedResponse(msgs); id != "" {
			params.PreviousResponseID = param.NewOpt(id)
			msgs = msgs[i+1:]
			first += i + 1
		}
	}
	parts := make([][]byte, 0, len(msgs))
	var key wire.CacheKey
	for i, m := range msgs {
		b, err := p.inputJSON(&key, m, names)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", first+i+1, err)
		}
		if len(b) > 0 {
			parts = append(parts, b)
		}
	}

	if req.MaxTokens > 0 {
		params.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if p.cfg.ReasoningEffort != "" {
		params.Reasoning.Effort = shared.ReasoningEffort(p.cfg.ReasoningEffort)
	}
	if p.cfg.ReasoningSummary != "" {
		params.Reasoning.Summary = shared.ReasoningSummary(p.cfg.ReasoningSummary)
	}
	params.SetExtraFields(map[string]any{"stream": !p.cfg.NoStream})
	envelope, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	body, err := wire.AssembleBody("input", parts, tools, envelope)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return &call{body: body, names: names, model: model}, nil
}

// responsesToolsJSON returns the encoded tool list of a Responses request
// (nil for none), from the cache when the same list was sent before. It
// gives every tool its wire name in names, in order, either way.
func (p *Provider) responsesToolsJSON(tools []llm.ToolDef, names *wire.Names) ([]byte, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	k := new(wire.CacheKey)
	p.enc.Reset(k)
	k.String("responses tools")
	wires, err := wire.ToolsKey(k, tools, names)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if b, ok := p.enc.Get(k); ok {
		return b, nil
	}
	list := make([]responses.ToolUnionParam, 0, len(tools))
	for i, t := range tools {
		fn := responses.FunctionToolParam{Name: wires[i], Strict: param.NewOpt(false),
			Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if len(bytes.TrimSpace(t.InputSchema)) > 0 {
			raw, _, err := schema.OpenAI(t.InputSchema, false)
			if err != nil {
				return nil, fmt.Errorf("openai: tool %d (%s): input schema: %w", i+1, t.Name, err)
			}
			fn.Parameters = nil
			if err := json.Unmarshal(raw, &fn.Parameters); err != nil {
				return nil, fmt.Errorf("openai: tool %d (%s): input schema: %w", i+1, t.Name, err)
			}
		}
		list = append(list, responses.ToolUnionParam{OfFunction: &fn})
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("openai: encode tools: %w", err)
	}
	p.enc.Put(k, b)
	return b, nil
}

// inputJSON returns the input items of one message, encoded and joined
// by commas (empty for none), from the cache when the message was sent
// before with the same wire names. k is scratch space for the key.
func (p *Provider) inputJSON(k *wire.CacheKey, m llm.Message, names *wire.Names) ([]byte, error) {
	p.enc.Reset(k)
	k.String("responses input")
	if err := wire.MessageKey(k, m, names); err != nil {
		return nil, err
	}
	if b, ok := p.enc.Get(k); ok {
		return b, nil
	}
	items, err := inputItems(nil, m, names)
	if err != nil {
		return nil, err
	}
	var b []byte
	for i, item := range items {
		e, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	if b == nil {
		b = []byte{}
	}
	p.enc.Put(k, b)
	return b, nil
}

// storedResponse returns the index of the last assistant message in msgs
// and the id of the stored response it came from, or "" when it came from
// none.
func storedResponse(msgs []llm.Message) (int, string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleAssistant {
			continue
		}
		for _, t := range msgs[i].Thinking {
			if t.Provider == providerName && t.Signature == ResponseMarker && t.ID != "" {
				return i, t.ID
			}
		}
		return i, ""
	}
	return -1, ""
}

// outputItems returns a tool message with images as a function call's
// output list: its text as input_text, then each picture as an
// input_image with a data URL. It returns nil for a message without
// images, whose output stays a string.
func outputItems(m llm.Message) responses.ResponseFunctionCallOutputItemListParam {
	var list responses.ResponseFunctionCallOutputItemListParam
	for _, img := range m.Images {
		if len(img.Data) == 0 {
			continue
		}
		if list == nil && m.Content != "" {
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: m.Content}})
		}
		list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: param.NewOpt(dataURL(img))}})
	}
	return list
}

// dataURL returns img as a base64 data URL.
func dataURL(img llm.Image) string {
	return "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// inputItems appends the input items for one wield message to items.
func inputItems(items responses.ResponseInputParam, m llm.Message, names *wire.Names) (responses.ResponseInputParam, error) {
	switch m.Role {
	case llm.RoleSystem:
		return append(items, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleSystem)), nil
	case llm.RoleUser:
		return append(items, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleUser)), nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return nil, errors.New("a tool result has no tool call id")
		}
		out := responses.ResponseInputItemParamOfFunctionCallOutput(m.Content)
		out.OfFunctionCallOutput.CallID = param.NewOpt(m.ToolCallID)
		if list := outputItems(m); list != nil {
			out.OfFunctionCallOutput.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list}
		}
		return append(items, out), nil
	case llm.RoleAssistant:
		n := len(items)
		for _, t := range m.Thinking {
			if t.Provider != providerName || t.Signature == ResponseMarker {
				continue
			}
			if t.ID == "" {
				return nil, errors.New("an OpenAI reasoning block has no id")
			}
			r := &responses.ResponseReasoningItemParam{ID: t.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}
			if t.Text != "" {
				r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: t.Text})
			}
			if t.Redacted != "" {
				r.EncryptedContent = param.NewOpt(t.Redacted)
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: r})
		}
		if m.Content != "" || len(m.ToolCalls) == 0 && len(items) == n {
			items = append(items, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleAssistant))
		}
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				return nil, fmt.Errorf("the call to %s has no id", c.Name)
			}
			wire, err := names.Wire(c.Name)
			if err != nil {
				return nil, err
			}
			args := string(bytes.TrimSpace(c.Arguments))
			if args == "" || args == "null" {
				args = "{}"
			}
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(args, c.ID, wire))
		}
		return items, nil
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
}
