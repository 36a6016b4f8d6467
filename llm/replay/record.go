package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/wieldhq/wield/llm"
)

// A Recorder is an [llm.Provider] that passes every request to another
// provider and writes its answer as a script [Entry], one JSON line each:
// a run against Claude, Gemini or OpenAI recorded once replays offline,
// thinking blocks and call signatures included. A failed request is
// recorded as an entry with Error when the provider answered with an
// [*llm.APIError], and not at all otherwise (a cancelled request says
// nothing about the model). It is safe for concurrent use.
type Recorder struct {
	p  llm.Provider
	mu sync.Mutex
	w  io.Writer
}

// Record returns a Recorder that answers with p and writes entries to w.
func Record(p llm.Provider, w io.Writer) *Recorder { return &Recorder{p: p, w: w} }

// Stream calls the recorded provider and writes the entry; see
// [llm.Provider]. A failure to write the entry is returned with the
// response, joined to no model error, so a recording never passes as
// complete when it is not.
func (r *Recorder) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	turn, round := Position(req)
	resp, err := r.p.Stream(ctx, req, handle)
	e := Entry{Turn: turn, Round: round}
	switch apiErr, ok := errors.AsType[*llm.APIError](err); {
	case err == nil:
		m := resp.Message
		e.Text, e.Reasoning, e.Thinking, e.ToolCalls = m.Content, m.Reasoning, m.Thinking, slices.Clone(m.ToolCalls)
		e.Model, e.FinishReason, e.Stop, e.Usage = resp.Model, resp.FinishReason, resp.Stop, resp.Usage
		for i, c := range e.ToolCalls {
			if !json.Valid(c.Arguments) {
				raw, _ := json.Marshal(string(c.Arguments)) // kept as the raw text, as scripts allow
				e.ToolCalls[i].Arguments = raw
			}
		}
	case ok:
		e.Error = &Error{Status: apiErr.Status, Message: apiErr.Message}
	default:
		return resp, err
	}
	line, merr := json.Marshal(e)
	if merr != nil {
		return resp, errors.Join(err, fmt.Errorf("replay: record turn %d round %d: %w", turn, round, merr))
	}
	r.mu.Lock()
	_, werr := r.w.Write(append(line, '\n'))
	r.mu.Unlock()
	if werr != nil {
		return resp, errors.Join(err, fmt.Errorf("replay: record turn %d round %d: %w", turn, round, werr))
	}
	return resp, err
}
