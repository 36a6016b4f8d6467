package agent

import (
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// EventKind says what an [Event] reports.
type EventKind string

// The events of a run, in the order they happen.
const (
	EventRunStarted    EventKind = "run_started"
	EventRoundStarted  EventKind = "round_started"
	EventReasoning     EventKind = "reasoning_delta"
	EventText          EventKind = "text_delta"
	EventToolStarted   EventKind = EventKind(tool.EventStarted)
	EventToolProgress  EventKind = EventKind(tool.EventProgress)
	EventToolFinished  EventKind = EventKind(tool.EventFinished)
	EventRoundFinished EventKind = "round_finished"
	EventRunFinished   EventKind = "run_finished"
)

// An Event reports the progress of a run. Only the fields of its kind are
// set.
type Event struct {
	Kind    EventKind `json:"kind"`
	Session string    `json:"session,omitempty"`
	Round   int       `json:"round,omitempty"`
	// Text is a delta of text or reasoning.
	Text string `json:"text,omitempty"`
	// Call is the tool event of the tool kinds.
	Call *tool.Event `json:"call,omitempty"`
	// Usage is the round's token usage, on round_finished.
	Usage *llm.Usage `json:"usage,omitempty"`
	// Outcome is set on run_finished.
	Outcome *Outcome `json:"outcome,omitempty"`
	// Duration is the run's duration, on run_finished.
	Duration time.Duration `json:"duration_ns,omitempty"`
}
