package tool

import (
	"encoding/json"
	"os"
	"time"
)

// A Call carries what the runner knows about one tool call besides its
// arguments. None of it is in the model's schema. The runner builds a Call
// per request from the template given to [Runner.Run]; a handler must not
// keep it after returning.
//
// A Call holds only the facts of one call. What a tool needs from its host
// (a session store, a job table, someone to ask) is given to the tool's
// constructor, never carried here.
type Call struct {
	// SessionID identifies the session the call belongs to; may be empty.
	SessionID string
	// ID is the call id the model gave (or the runner made up).
	ID string
	// Tool is the name of the tool called.
	Tool string
	// Agent names the agent making the call.
	Agent string
	// Iteration is the round of the agent loop, from 1.
	Iteration int
	// History lists the earlier invocations of this run, oldest first.
	History []Invocation
	// Subagent reports whether the call comes from a subagent; ParentID is
	// then the parent agent's call id.
	Subagent bool
	ParentID string
	// Root is the workspace root. All file access must go through it.
	// Nil means the tool has no workspace.
	Root *os.Root

	emit func(Event)
}

// An Invocation is one earlier call of the current run.
type Invocation struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Success   bool            `json:"success"`
}

// Emit reports progress of the call. Kind, CallID and Tool are filled in by
// the runner. Emit is safe for concurrent use and never blocks for long; it
// is a no-op on a Call the runner did not make.
func (c *Call) Emit(e Event) {
	if c == nil || c.emit == nil {
		return
	}
	e.Kind = EventProgress
	e.CallID, e.Tool = c.ID, c.Tool
	c.emit(e)
}

// EventKind says what an [Event] reports.
type EventKind string

// The kinds of event the runner reports.
const (
	EventStarted  EventKind = "call_started"
	EventProgress EventKind = "call_progress"
	EventFinished EventKind = "call_finished"
)

// An Event reports the progress of a call.
type Event struct {
	Kind   EventKind `json:"kind"`
	CallID string    `json:"callId"`
	Tool   string    `json:"tool"`
	// Spec is the called tool's spec on the runner's started and finished
	// events, so that whoever shows a call can read the tool's facts
	// ([Spec.KeyArgs], [Spec.Effect]) without a registry; nil for a tool
	// the registry does not have, and on progress events. It is not part
	// of the JSON form. Its InputSchema and OutputSchema must not be
	// modified.
	Spec *Spec `json:"-"`
	// Arguments are the call's arguments as the model sent them, on
	// EventStarted (before validation: they may be invalid).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Message is a short human-readable note.
	Message string `json:"message,omitempty"`
	// Progress and Total measure work done; Total zero means unknown.
	Progress float64 `json:"progress,omitempty"`
	Total    float64 `json:"total,omitempty"`
	// Data is structured detail, such as a chunk of streamed output.
	Data any `json:"data,omitempty"`
	// Result is set on EventFinished.
	Result *Result `json:"result,omitempty"`
	// Duration is set on EventFinished. It leaves out the time the call
	// waited for a person's approval, which is not the tool's.
	Duration time.Duration `json:"-"`
}
