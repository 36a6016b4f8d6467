package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
	"github.com/wieldhq/wield/schema"
)

// A call is one request, ready to send.
type call struct {
	body  *wire.Body  // the JSON request
	names *wire.Names // the tool names in it
	model string
}

// buildRequest returns the call for req.
//
// The body is the SDK's encoding, assembled from pieces: each message and
// the tool list are encoded once and kept in the provider's cache, so
// that a round encodes only what is new (a conversation resends its whole
// history every round; a message sent at the same position by the last
// request of the conversation is found by comparing it, see
// [wire.Recent]), and the envelope (model, limits, stream options) is
// encoded once for each model and setting. The body is read from the
// pieces, not joined ([wire.Body]). It is the same JSON object the SDK
// makes of the whole request, with messages and tools first.
func (p *Provider) buildRequest(req *llm.Request) (*call, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return nil, errors.New("openai: no model named; set the model (for example gpt-4.1-mini, or a local model name for Ollama)")
	}
	names := &wire.Names{}
	tools, err := p.toolsJSON(req.Tools, names)
	if err != nil {
		return nil, err
	}
	parts := make([][]byte, 0, len(req.Messages)+1)
	var key wire.CacheKey
	var pictures []llm.Message // the tool messages of the current run that carry pictures
	recent := p.recent.Take(req.Messages)
	defer func() { recent.Done(len(req.Messages)) }()
	for i, m := range req.Messages {
		b, ok, err := recent.Lookup(i, m, names)
		if err == nil && !ok {
			if b, err = p.messageJSON(&key, m, names); err == nil {
				recent.Keep(i, m, b)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i+1, err)
		}
		parts = append(parts, b)
		if m.Role == llm.RoleTool && hasPicture(m) {
			pictures = append(pictures, m)
		}
		// A tool message takes no picture: the pictures of a run of results
		// follow it in one user message, so that the results stay together
		// after their calls.
		if len(pictures) > 0 && (i+1 == len(req.Messages) || req.Messages[i+1].Role != llm.RoleTool) {
			b, err := p.picturesJSON(pictures)
			if err != nil {
				return nil, fmt.Errorf("openai: message %d: pictures: %w", i+1, err)
			}
			parts = append(parts, b)
			pictures = nil
		}
	}
	// The envelope depends on these alone: it is encoded once for each.
	k := new(wire.CacheKey)
	p.enc.Reset(k)
	k.String("chat envelope")
	k.String(model)
	k.Int(req.MaxTokens)
	k.String(p.cfg.ReasoningEffort)
	k.Int(btoi(p.openAI) + 2*btoi(p.cfg.NoStream) + 4*btoi(req.Temperature != nil))
	if req.Temperature != nil {
		k.Int(int(math.Float64bits(*req.Temperature)))
	}
	envelope, err := p.enc.Encoded(k, func() ([]byte, error) {
		params := openaisdk.ChatCompletionNewParams{Model: shared.ChatModel(model)}
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
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("openai: encode request: %w", err)
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	body, err := wire.AssembleBody("messages", parts, tools, envelope)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return &call{body: body, names: names, model: model}, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// toolsJSON returns the encoded tool list of a request (nil for none),
// from the cache when the same list was sent before. It gives every tool
// its wire name in names, in order, either way.
func (p *Provider) toolsJSON(tools []llm.ToolDef, names *wire.Names) ([]byte, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	k := new(wire.CacheKey)
	p.enc.Reset(k)
	k.String("tools")
	wires, err := wire.ToolsKey(k, tools, names)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return p.enc.Encoded(k, func() ([]byte, error) {
		var list []openaisdk.ChatCompletionToolUnionParam
		for i, t := range tools {
			def := shared.FunctionDefinitionParam{Name: wires[i]}
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
			list = append(list, openaisdk.ChatCompletionFunctionTool(def))
		}
		b, err := json.Marshal(list)
		if err != nil {
			return nil, fmt.Errorf("openai: encode tools: %w", err)
		}
		return b, nil
	})
}

// messageJSON returns the encoding of one message, from the cache when it
// was sent before with the same wire names. k is scratch space for the
// key.
func (p *Provider) messageJSON(k *wire.CacheKey, m llm.Message, names *wire.Names) ([]byte, error) {
	p.enc.Reset(k)
	if err := wire.MessageKey(k, m, names); err != nil {
		return nil, err
	}
	if b, ok := p.enc.Get(k); ok {
		return b, nil
	}
	msg, err := message(m, names)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	p.enc.Put(k, b)
	return b, nil
}

// hasPicture reports whether a tool message carries a picture to send.
func hasPicture(m llm.Message) bool {
	for _, img := range m.Images {
		if len(img.Data) > 0 {
			return true
		}
	}
	return false
}

// picturesJSON returns the encoding of the user message that carries the
// pictures of a run of tool messages.
func (p *Provider) picturesJSON(ms []llm.Message) ([]byte, error) {
	k := new(wire.CacheKey)
	p.enc.Reset(k)
	k.String("pictures")
	for _, m := range ms {
		k.String(m.ToolCallID)
		k.String(m.ToolName)
		k.Int(len(m.Images))
		for _, img := range m.Images {
			k.String(img.MIMEType)
			k.Int(img.Width)
			k.Int(img.Height)
			k.Bytes(img.Data)
		}
	}
	return p.enc.Encoded(k, func() ([]byte, error) {
		var parts []openaisdk.ChatCompletionContentPartUnionParam
		for _, m := range ms {
			parts = append(parts, imageParts(m)...)
		}
		return json.Marshal(openaisdk.UserMessage(parts))
	})
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
