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
	var pictures []openaisdk.ChatCompletionContentPartUnionParam
	for i, m := range req.Messages {
		msg, err := message(m, names)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i+1, err)
		}
		params.Messages = append(params.Messages, msg)
		if m.Role == llm.RoleTool {
			pictures = append(pictures, imageParts(m)...)
		}
		// A tool message takes no picture: the pictures of a run of results
		// follow it in one user message, so that the results stay together
		// after their calls.
		if len(pictures) > 0 && (i+1 == len(req.Messages) || req.Messages[i+1].Role != llm.RoleTool) {
			params.Messages = append(params.Messages, openaisdk.UserMessage(pictures))
			pictures = nil
		}
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

// imageParts returns the parts of the user message that carries a tool
// message's pictures on chat completions: a line saying which call they
// belong to, then each picture as a data URL.
func imageParts(m llm.Message) []openaisdk.ChatCompletionContentPartUnionParam {
	var parts []openaisdk.ChatCompletionContentPartUnionParam
	for _, img := range m.Images {
		if len(img.Data) == 0 {
			continue
		}
		parts = append(parts, openaisdk.TextContentPart(ImageNote(m.ToolCallID, m.ToolName, img)),
			openaisdk.ImageContentPart(openaisdk.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)}))
	}
	return parts
}

// ImageNote is the line before each tool picture in the user message
// that carries them on chat completions, which takes no picture in a tool
// message.
func ImageNote(callID, toolName string, img llm.Image) string {
	return fmt.Sprintf("[the image below is the result of call %s (%s): %s]", callID, toolName, img.Describe())
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
