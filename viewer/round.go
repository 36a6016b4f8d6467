package viewer

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
)

// The kinds of round.
const (
	kindTask       = "task"       // a person's task: a transaction begins
	kindResponse   = "response"   // a model response with its calls
	kindCalls      = "calls"      // calls recorded without a model response (MCP)
	kindCompaction = "compaction" // a compaction record, after its range
	kindSummary    = "summary"    // an older journal's compressed_history turn
)

// A round is one entry of the timeline as the page shows it.
type round struct {
	Kind string
	// Turn is the 1-based timeline number of the round's first turn.
	Turn int
	Time time.Time

	// Task, response and summary.
	Text      string
	Reasoning string
	Model     string
	Stop      string
	Usage     *llm.Usage
	Calls     []*call

	// Task: the transaction it opened.
	Pool *session.PoolRecord

	Compaction *session.Compaction
}

// A call is one tool call with what became of it.
type call struct {
	ID, Tool  string
	Arguments json.RawMessage
	Started   time.Time
	Ended     time.Time
	// Done reports whether a result arrived.
	Done        bool
	Status      string
	Output      string
	Data        json.RawMessage
	Interrupted bool
	// Pending reports that the call awaits a person's approval.
	Pending       bool
	PendingReason string
	// Child, Agent, ChildStatus, ChildReport and ChildUsage describe the
	// child agent the call started.
	Child, Agent, ChildStatus, ChildReport string
	ChildUsage                             *llm.Usage
	Files                                  []session.FileRecord
	// Diffs are the file changes shown, from Files or the arguments.
	Diffs []fileDiff
}

// Duration returns how long the call ran, or 0 when unknown.
func (c *call) Duration() time.Duration {
	if !c.Done || c.Started.IsZero() || c.Ended.Before(c.Started) {
		return 0
	}
	return c.Ended.Sub(c.Started)
}

// Approval says what a person or the policy decided about the call, as far
// as the journal tells: "awaiting approval", "denied", or "".
func (c *call) Approval() string {
	switch {
	case c.Pending:
		return "awaiting approval"
	case c.Done && c.Status == session.StatusFailed && (strings.HasPrefix(c.Output, "Error: denied") || strings.HasPrefix(c.Output, "denied")):
		return "denied"
	}
	return ""
}

// rounds folds a session's timeline into rounds.
func rounds(st *session.State) []*round {
	turns := make([]session.Turn, 0, st.Timeline())
	turns = append(turns, st.Turns...)
	turns = append(turns, st.Pool...)

	pools := map[int]*session.PoolRecord{} // first turn of a closed pool → its record
	var open *session.PoolRecord
	for i := range st.Pools {
		p := &st.Pools[i]
		if p.Status == session.PoolOpen {
			open = p
			continue
		}
		pools[p.Turns[0]] = p
	}
	compactAt := map[int][]*session.Compaction{}
	for i := range st.Compactions {
		c := &st.Compactions[i]
		compactAt[c.Range[1]] = append(compactAt[c.Range[1]], c)
	}
	files := map[string][]session.FileRecord{}
	for _, f := range st.Files {
		if f.CallID != "" {
			files[f.CallID] = append(files[f.CallID], f)
		}
	}
	pending := map[string]string{}
	for _, p := range st.Paused {
		pending[p.ID] = p.Reason
	}

	var out []*round
	calls := map[string]*call{}
	var cur *round // the round calls without a response join
	callOf := func(id, name string, t time.Time, n int) *call {
		if c, ok := calls[id]; ok {
			return c
		}
		c := &call{ID: id, Tool: name, Started: t}
		if r, ok := pending[id]; ok {
			c.Pending, c.PendingReason = true, r
		}
		c.Files = files[id]
		calls[id] = c
		if cur == nil || cur.Kind != kindCalls {
			cur = &round{Kind: kindCalls, Turn: n, Time: t}
			out = append(out, cur)
		}
		cur.Calls = append(cur.Calls, c)
		return c
	}
	for i := range turns {
		t := &turns[i]
		n := i + 1
		switch t.Kind {
		case session.TurnUserTask:
			r := &round{Kind: kindTask, Turn: n, Time: t.Time, Text: t.Text, Pool: pools[n]}
			if r.Pool == nil && open != nil && n > len(st.Turns) {
				r.Pool = open
			}
			out = append(out, r)
			cur = nil
		case session.TurnModelResponse:
			r := &round{Kind: kindResponse, Turn: n, Time: t.Time, Text: t.Text, Reasoning: t.Reasoning,
				Model: t.Model, Stop: string(t.Stop), Usage: t.Usage}
			for _, tc := range t.Calls {
				c := &call{ID: tc.ID, Tool: tc.Name, Arguments: tc.Arguments, Started: t.Time}
				if reason, ok := pending[tc.ID]; ok {
					c.Pending, c.PendingReason = true, reason
				}
				c.Files = files[tc.ID]
				calls[tc.ID] = c
				r.Calls = append(r.Calls, c)
			}
			out = append(out, r)
			cur = nil
		case session.TurnFunctionCalling:
			c := callOf(t.CallID, t.Tool, t.Time, n)
			c.Started = t.Time // the runner received it now: the run time starts here
			if len(c.Arguments) == 0 {
				c.Arguments = t.Arguments
			}
		case session.TurnToolResponse:
			c := callOf(t.CallID, t.Tool, t.Time, n)
			c.Done, c.Ended, c.Status, c.Output, c.Data, c.Interrupted = true, t.Time, t.Status, t.Output, t.Data, t.Interrupted
			c.Pending = false
		case session.TurnAgentStarted:
			c := callOf(t.CallID, t.Tool, t.Time, n)
			c.Child, c.Agent = t.Child, t.Agent
		case session.TurnAgentFinished:
			c := callOf(t.CallID, t.Tool, t.Time, n)
			c.Child, c.Agent = cmpOr(c.Child, t.Child), cmpOr(c.Agent, t.Agent)
			c.ChildStatus, c.ChildReport, c.ChildUsage = t.Status, t.Output, t.Usage
		case session.TurnCompressedHistory:
			out = append(out, &round{Kind: kindSummary, Turn: n, Time: t.Time, Text: t.Text})
			cur = nil
		}
		for _, c := range compactAt[n] {
			out = append(out, &round{Kind: kindCompaction, Turn: n, Time: c.Time, Compaction: c})
			cur = nil
		}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
