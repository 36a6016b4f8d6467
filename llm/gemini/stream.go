package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// providerName marks the [llm.Thinking] blocks this package makes.
const providerName = "gemini"

// errNoEvents is returned by readStream for a body without any event.
var errNoEvents = fmt.Errorf("%w: the reply has no stream events", llm.ErrProtocol)

// response is one GenerateContentResponse of a stream (or a whole reply):
// genai's type with wire parts, and the error object a stream may carry.
type response struct {
	Candidates     []*candidate                                 `json:"candidates"`
	PromptFeedback *genai.GenerateContentResponsePromptFeedback `json:"promptFeedback"`
	UsageMetadata  *genai.GenerateContentResponseUsageMetadata  `json:"usageMetadata"`
	ModelVersion   string                                       `json:"modelVersion"`
	ResponseID     string                                       `json:"responseId"`
	Error          *rpcStatus                                   `json:"error"`
}

// candidate is genai.Candidate with wire content.
type candidate struct {
	Content       *content              `json:"content"`
	FinishReason  genai.FinishReason    `json:"finishReason"`
	FinishMessage string                `json:"finishMessage"`
	SafetyRatings []*genai.SafetyRating `json:"safetyRatings"`
	Index         int32                 `json:"index"`
}

// readStream reads a streamed reply (alt=sse) and assembles it.
func readStream(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	a := newAssembler(names, handle)
	sse := wire.NewSSEReader(r)
	for n := 1; ; n++ {
		_, data, err := sse.Next()
		if err == io.EOF {
			if n == 1 {
				return nil, errNoEvents
			}
			break
		}
		if err != nil {
			return nil, err
		}
		payload := bytes.TrimSpace(data)
		if string(payload) == "[DONE]" {
			break // a proxy's end marker; Gemini itself just ends the body
		}
		if err := a.chunk(payload); err != nil {
			return nil, fmt.Errorf("stream event %d: %w", n, err)
		}
	}
	return a.finish()
}

// readResponse reads a reply that came whole: one GenerateContentResponse,
// or the JSON array of them that streamGenerateContent sends without
// alt=sse.
func readResponse(r io.Reader, names *wire.Names, handle func(llm.Event)) (*llm.Response, error) {
	data, err := wire.ReadAll(r)
	if err != nil {
		return nil, err
	}
	a := newAssembler(names, handle)
	if len(data) > 0 && data[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("%w: the reply is not a JSON array of responses: %w (data %q)", llm.ErrProtocol, err, wire.Clip(string(data), 200))
		}
		for i, item := range items {
			if err := a.chunk(item); err != nil {
				return nil, fmt.Errorf("response %d of the array: %w", i+1, err)
			}
		}
	} else if err := a.chunk(data); err != nil {
		return nil, err
	}
	return a.finish()
}

// An assembler builds a response from the chunks of the first candidate.
type assembler struct {
	names  *wire.Names
	handle func(llm.Event)

	id, model    string
	text         strings.Builder
	reasoning    strings.Builder
	thoughtStart int // where in reasoning the thought text not yet signed starts
	thinking     []llm.Thinking
	calls        []*callState
	open         *callState // the call whose arguments are still streaming
	finishReason genai.FinishReason
	finishMsg    string
	ratings      []*genai.SafetyRating
	usage        llm.Usage
}

// A callState is one function call being assembled.
type callState struct {
	id, name, sig string
	args          json.RawMessage // whole arguments, as sent
	partial       *argTree        // arguments streamed as partialArgs
}

func newAssembler(names *wire.Names, handle func(llm.Event)) *assembler {
	if handle == nil {
		handle = func(llm.Event) {}
	}
	return &assembler{names: names, handle: handle}
}

// chunk applies one GenerateContentResponse. Its errors wrap
// [llm.ErrProtocol] or [llm.ErrBlocked], or are an [*llm.APIError] for an
// error object in the stream.
func (a *assembler) chunk(data []byte) error {
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%w: not a GenerateContentResponse: %w (data %q)", llm.ErrProtocol, err, wire.Clip(string(data), 200))
	}
	if r.Error != nil {
		return r.Error.apiError("error in the reply stream: ")
	}
	if a.id == "" {
		a.id = r.ResponseID
	}
	if a.model == "" {
		a.model = r.ModelVersion
	}
	if u := r.UsageMetadata; u != nil && (u.PromptTokenCount != 0 || u.CandidatesTokenCount != 0 || u.ThoughtsTokenCount != 0) {
		a.usage = llm.Usage{
			InputTokens:     int(u.PromptTokenCount),
			CachedTokens:    int(u.CachedContentTokenCount),
			OutputTokens:    int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
			ReasoningTokens: int(u.ThoughtsTokenCount),
		}
	}
	if f := r.PromptFeedback; f != nil && f.BlockReason != "" {
		detail := "the prompt was blocked (" + string(f.BlockReason) + ")"
		if f.BlockReasonMessage != "" {
			detail += ": " + f.BlockReasonMessage
		}
		return fmt.Errorf("gemini: %w: %s%s", llm.ErrBlocked, detail, categories(f.SafetyRatings))
	}
	for _, c := range r.Candidates {
		if c == nil || c.Index != 0 {
			continue // wield never asks for more than one candidate
		}
		if c.Content != nil {
			for i, p := range c.Content.Parts {
				if p == nil {
					continue
				}
				if err := a.part(p); err != nil {
					return fmt.Errorf("%w: part %d: %w", llm.ErrProtocol, i+1, err)
				}
			}
		}
		if c.FinishReason != "" {
			a.finishReason, a.finishMsg = c.FinishReason, c.FinishMessage
		}
		if len(c.SafetyRatings) > 0 {
			a.ratings = c.SafetyRatings
		}
	}
	return nil
}

// part applies one part: text, a thought, a function call or a piece of
// one. Other kinds (inline data, code execution) are ignored.
func (a *assembler) part(p *part) error {
	switch {
	case p.FunctionCall != nil:
		return a.functionCall(p.FunctionCall, p.ThoughtSignature)
	case p.Thought:
		if p.Text != nil && *p.Text != "" {
			a.reasoning.WriteString(*p.Text)
			a.handle(llm.Event{Kind: llm.EventReasoning, Text: *p.Text})
		}
		if p.ThoughtSignature != "" {
			// The signature signs the thought text since the last one.
			a.thinking = append(a.thinking, llm.Thinking{Provider: providerName,
				Text: a.reasoning.String()[a.thoughtStart:], Signature: p.ThoughtSignature})
			a.thoughtStart = a.reasoning.Len()
		}
	default:
		if p.Text != nil && *p.Text != "" {
			a.text.WriteString(*p.Text)
			a.handle(llm.Event{Kind: llm.EventText, Text: *p.Text})
		}
		if p.ThoughtSignature != "" {
			a.thinking = append(a.thinking, llm.Thinking{Provider: providerName, Signature: p.ThoughtSignature})
		}
	}
	return nil
}

// functionCall applies a functionCall part. In REST streaming a call
// usually comes whole in one part. With streamed arguments (Vertex AI's
// streamFunctionCallArguments, which recorded Gemini 3 streams show too),
// {name, willContinue: true} opens a call, parts with partialArgs fill its
// arguments by JSON path, and the call ends at a part without willContinue
// (often an empty {}); a part with nothing but willContinue is a
// keep-alive. A part with a name always begins a new call, unless it
// repeats the id of the open one.
func (a *assembler) functionCall(fc *functionCall, sig string) error {
	c := a.open
	if fc.Name != "" && (c == nil || fc.ID == "" || fc.ID != c.id) {
		c = &callState{id: fc.ID, name: fc.Name}
		a.calls = append(a.calls, c)
		a.open = nil
	}
	if c == nil {
		if len(fc.PartialArgs) > 0 || len(fc.Args) > 0 {
			return fmt.Errorf("function-call arguments without a call (no name, and no call is open)")
		}
		return nil // an empty or keep-alive part between calls
	}
	if c.sig == "" {
		c.sig = sig
	}
	if args := bytes.TrimSpace(fc.Args); len(args) > 0 && string(args) != "null" {
		c.args = slices.Clone(args)
	}
	for _, pa := range fc.PartialArgs {
		if pa == nil {
			continue
		}
		if c.partial == nil {
			c.partial = &argTree{}
		}
		if err := c.partial.set(pa); err != nil {
			return fmt.Errorf("function call %q: %w", c.name, err)
		}
	}
	if fc.WillContinue != nil && *fc.WillContinue {
		a.open = c
	} else {
		a.open = nil
	}
	return nil
}

// finish checks the assembled reply and returns it.
func (a *assembler) finish() (*llm.Response, error) {
	if a.finishReason == "" {
		return nil, fmt.Errorf("%w: the reply stream ended before the reply was complete (no finish reason)", llm.ErrProtocol)
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: a.text.String(), Reasoning: a.reasoning.String(), Thinking: a.thinking}
	stop, err := a.stopReason()
	if err != nil {
		return nil, err
	}
	for i, c := range a.calls {
		if stop == llm.StopMaxTokens && c == a.open {
			break // cut off at the output limit: its arguments are unfinished
		}
		id := c.id
		if id == "" {
			id = generatedIDPrefix + "call_" + strconv.Itoa(i+1)
			if a.id != "" {
				id = generatedIDPrefix + a.id + "_" + strconv.Itoa(i+1)
			}
		}
		args := c.args
		switch {
		case args != nil:
		case c.partial != nil:
			args = c.partial.json()
		default:
			args = json.RawMessage("{}") // a call without arguments
		}
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: a.names.Original(c.name), Arguments: args, Signature: c.sig})
	}
	if stop == llm.StopEnd && len(msg.ToolCalls) > 0 {
		stop = llm.StopToolUse
	}
	if stop == llm.StopOther && msg.Content == "" && len(msg.ToolCalls) == 0 {
		return nil, fmt.Errorf("%w: the reply ended with finish reason %s%s and no text or tool calls", llm.ErrProtocol, a.finishReason, a.finishNote())
	}
	for i := range msg.ToolCalls {
		a.handle(llm.Event{Kind: llm.EventToolCall, ToolCall: &msg.ToolCalls[i]})
	}
	return &llm.Response{ID: a.id, Model: a.model, Message: msg, FinishReason: string(a.finishReason), Stop: stop, Usage: a.usage}, nil
}

// blockedReasons explains the finish reasons of a withheld reply.
var blockedReasons = map[genai.FinishReason]string{
	genai.FinishReasonSafety:                 "the reply was flagged by the safety filters",
	genai.FinishReasonRecitation:             "the reply recited its training data too closely",
	genai.FinishReasonBlocklist:              "the reply contains terms on a blocklist",
	genai.FinishReasonProhibitedContent:      "the reply may contain prohibited content",
	genai.FinishReasonSPII:                   "the reply may contain sensitive personal information",
	genai.FinishReasonLanguage:               "the reply is in a language the model does not support",
	genai.FinishReasonImageSafety:            "a generated image was flagged by the safety filters",
	genai.FinishReasonImageProhibitedContent: "a generated image may contain prohibited content",
	genai.FinishReasonImageRecitation:        "a generated image recited its training data too closely",
}

// callFailures explains the finish reasons of a function call the model
// got wrong.
var callFailures = map[genai.FinishReason]string{
	genai.FinishReasonMalformedFunctionCall: "the model wrote a function call that is not valid",
	genai.FinishReasonUnexpectedToolCall:    "the model called a tool that is not enabled",
	genai.FinishReasonTooManyToolCalls:      "the model made too many tool calls in a row",
}

// stopReason maps the finish reason to wield's terms, or to the error for
// a withheld reply or a broken function call.
func (a *assembler) stopReason() (llm.StopReason, error) {
	r := a.finishReason
	if why, ok := blockedReasons[r]; ok {
		return "", fmt.Errorf("gemini: %w: finish reason %s: %s%s%s", llm.ErrBlocked, r, why, a.finishNote(), categories(a.ratings))
	}
	if why, ok := callFailures[r]; ok {
		return "", fmt.Errorf("%w: finish reason %s: %s%s", llm.ErrProtocol, r, why, a.finishNote())
	}
	switch r {
	case genai.FinishReasonStop:
		return llm.StopEnd, nil
	case genai.FinishReasonMaxTokens:
		return llm.StopMaxTokens, nil
	}
	return llm.StopOther, nil
}

// finishNote returns the candidate's finishMessage, for an error.
func (a *assembler) finishNote() string {
	if a.finishMsg == "" {
		return ""
	}
	return " (" + wire.Clip(a.finishMsg, 300) + ")"
}

// categories names the safety categories that blocked a reply or a
// prompt: those marked blocked, else those rated MEDIUM or HIGH.
func categories(ratings []*genai.SafetyRating) string {
	var blocked, likely []string
	for _, r := range ratings {
		if r == nil || r.Category == "" {
			continue
		}
		if r.Blocked {
			blocked = append(blocked, string(r.Category))
		}
		if r.Probability == genai.HarmProbabilityMedium || r.Probability == genai.HarmProbabilityHigh {
			likely = append(likely, string(r.Category)+" "+string(r.Probability))
		}
	}
	switch {
	case len(blocked) > 0:
		return "; safety categories: " + strings.Join(blocked, ", ")
	case len(likely) > 0:
		return "; safety ratings: " + strings.Join(likely, ", ")
	}
	return ""
}
