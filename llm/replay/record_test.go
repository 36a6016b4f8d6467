package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
)

// fixed is a provider that answers every request with the same response
// (or error), as a real provider with thinking and signatures would.
type fixed struct {
	resp *llm.Response
	err  error
}

func (f fixed) Stream(context.Context, *llm.Request, func(llm.Event)) (*llm.Response, error) {
	if f.err != nil {
		return nil, f.err
	}
	r := *f.resp
	return &r, nil
}

func TestRecordThenReplay(t *testing.T) {
	resp := &llm.Response{Model: "claude-sonnet-4-5", FinishReason: "tool_use", Stop: llm.StopToolUse,
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Reading it.",
			Thinking: []llm.Thinking{{Provider: "anthropic", Text: "I should read go.mod", Signature: "EqQBCkYIARgC"}},
			ToolCalls: []llm.ToolCall{
				{ID: "toolu_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"go.mod"}`), Signature: "sig"},
				{ID: "toolu_2", Name: "read_file", Arguments: json.RawMessage(`{"path":`)},
			}},
		Usage: llm.Usage{InputTokens: 1200, OutputTokens: 40, CachedTokens: 1000, CacheWriteTokens: 150, Cost: 0.00123}}
	var buf bytes.Buffer
	rec := replay.Record(fixed{resp: resp}, &buf)
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "what module?"}}}
	got, err := rec.Stream(t.Context(), req, nil)
	if err != nil || string(got.Message.ToolCalls[1].Arguments) != `{"path":` {
		t.Fatalf("recorded call = %+v, %v; the caller must see the provider's response unchanged", got, err)
	}
	if _, err := replay.Record(fixed{err: &llm.APIError{Status: 529, Message: "Overloaded"}}, &buf).Stream(t.Context(),
		&llm.Request{Messages: append(req.Messages, resp.Message, llm.Message{Role: llm.RoleTool, Content: "x"})}, nil); err == nil {
		t.Fatal("the recorder swallowed the provider's error")
	}

	entries, err := replay.Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("the recording is not a valid script: %v\n%s", err, buf.Bytes())
	}
	p, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	played, err := p.Stream(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	played.ID = ""
	if diff := cmp.Diff(resp, played); diff != "" {
		t.Errorf("replayed response differs from the recorded one (-recorded +replayed):\n%s", diff)
	}
	_, err = p.Stream(t.Context(), &llm.Request{Messages: append(req.Messages, resp.Message, llm.Message{Role: llm.RoleTool, Content: "x"})}, nil)
	if e, ok := err.(*llm.APIError); !ok || e.Status != 529 || e.Message != "Overloaded" {
		t.Errorf("replayed error = %v, want the recorded 529", err)
	}
}
