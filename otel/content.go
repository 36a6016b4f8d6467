package otel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/wieldhq/wield/llm"
)

// A part is one part of a message in the GenAI conventions' JSON form of
// gen_ai.input.messages and gen_ai.output.messages.
type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`
}

// A message is a message in the conventions' JSON form.
type message struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

// messagesJSON returns msgs in the conventions' JSON form.
func messagesJSON(msgs []llm.Message) string {
	out := make([]message, 0, len(msgs))
	for _, m := range msgs {
		mm := message{Role: string(m.Role), Parts: []part{}}
		switch {
		case m.Role == llm.RoleTool:
			mm.Parts = append(mm.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Result: m.Content})
		case m.Content != "":
			mm.Parts = append(mm.Parts, part{Type: "text", Content: m.Content})
		}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if !json.Valid(args) {
				args, _ = json.Marshal(string(args))
			}
			mm.Parts = append(mm.Parts, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: args})
		}
		out = append(out, mm)
	}
	b, _ := json.Marshal(out) // cannot fail: strings and valid raw JSON
	return string(b)
}

// errorType returns the error.type of err: the HTTP status of a model
// endpoint's error, "timeout" or "cancelled" for a context's end, and
// "_OTHER" for anything else (the value is low-cardinality by contract).
func errorType(err error) string {
	if ae, ok := errors.AsType[*llm.APIError](err); ok {
		if ae.Status == 0 {
			return "unreachable"
		}
		return strconv.Itoa(ae.Status)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return errOther
}
