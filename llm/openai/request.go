package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/schema"
)

// A call is one request, ready to send.
type call struct {
	body  []byte      // the JSON request
	names *wire.Names // the tool names in it
	model string
}

// buildRequest returns the call for req.
func (p *Provider) buildRequest(req *llm.Request) (*call, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return nil, errors.New("openai: no model named; set the model (for example gpt-4.1-mini, or a local model name for Ollama)")
	}
	names := &wire.Names{}
	params := openaisdk.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	for i, t := range req.Tools {
		wire, err := names.Wire(t.Name)
		if err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		def := shared.FunctionDefinitionParam{Name: wire}
		if t.Description != "" {
			def.Description = param.NewOpt(t.Description)
		}
		if len(bytes.TrimSpace(t.InputSchema)) > 0 {
			raw, _, err := schema.OpenAI(t.InputSchema, false)
			if err != nil {
				return nil, fmt.Errorf("openai: tool %d (%s): input schema: %w", i+1, t.Name, err)
			}
			var ps shared.FunctionParameters
			if err := json.Unmarshal(raw, &ps); err != nil {
				return nil, fmt.Errorf("openai: tool %d (%s): input schema: %w", i+1, t.Name, err)
			}
			def.Parameters = ps
		} else {
			def.Parameters = shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		}
		params.Tools = append(params.Tools, openaisdk.ChatCompletionFunctionTool(def))
	}
	for i, m := range req.Messages {
		msg, err := message(m, names)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i+1, err)
		}
		params.Messages = append(params.Messages, msg)
	}
	if req.MaxTokens > 0 {
		if p.openAI {
			params.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if p.cfg.ReasoningEffort != "" {
		params.ReasoningEffort = shared.ReasoningEffort(p.cfg.ReasoningEffort)
	}
	if p.cfg.NoStream {
		params.SetExtraFields(map[string]any{"stream": false})
	} else {
		params.StreamOptions.IncludeUsage = param.NewOpt(true)
		params.SetExtraFields(map[string]any{"stream": true})
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	return &call{body: body, names: names, model: model}, nil
}

// message converts one wield message.
func message(m llm.Message, names *wire.Names) (openaisdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleSystem:
		return openaisdk.SystemMessage(m.Content), nil
	case llm.RoleUser:
		return openaisdk.UserMessage(m.Content), nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return openaisdk.ChatCompletionMessageParamUnion{}, errors.New("a tool result has no tool call id")
		}
		return openaisdk.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.RoleAssistant:
		var a openaisdk.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(m.Content)
		}
		for _, c := range m.ToolCalls {
			wire, err := names.Wire(c.Name)
			if err != nil {
				return openaisdk.ChatCompletionMessageParamUnion{}, err
			}
			args := string(bytes.TrimSpace(c.Arguments))
			if args == "" || args == "null" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openaisdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openaisdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: openaisdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: wire, Arguments: args},
				},
			})
		}
		return openaisdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	default:
		return openaisdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
	}
}
