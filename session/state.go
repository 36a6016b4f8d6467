package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// TurnKind says what a [Turn] records.
type TurnKind string

// The kinds of turn.
const (
	// TurnUserTask is the user's task that opened a transaction.
	TurnUserTask TurnKind = "user_task"
	// TurnModelResponse is a model's reply: text, reasoning, tool calls and
	// usage.
	TurnModelResponse TurnKind = "model_response"
	// TurnFunctionCalling is one tool call as the runner received it.
	TurnFunctionCalling TurnKind = "function_calling"
	// TurnToolResponse is the result of one tool call.
	TurnToolResponse TurnKind = "tool_response"
	// TurnCompressedHistory is a summary standing for a range of turns.
	// Journals no longer hold it (see [Compaction]); forks of older ones
	// may.
	TurnCompressedHistory TurnKind = "compressed_history"
	// TurnAgentStarted records that the call CallID started a child agent
	// of type Agent, whose session is Child.
	TurnAgentStarted TurnKind = "agent_started"
	// TurnAgentFinished records how that child ended: Status, its report
	// in Output, and its Usage (tokens and cost, its own children's
	// included). The call's tool_response carries what the model reads.
	TurnAgentFinished TurnKind = "agent_finished"
)

// The statuses of a tool_response turn.
const (
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// Interrupted is the output of the synthetic result given to a call that
// had none when its transaction was aborted or repaired.
const Interrupted = "interrupted: the run stopped before this call finished"

// MetaRunOwner is the metadata key ([Session.Set]) naming the durable run
// (a workflow id) that owns the session's open transaction. While it is
// set, [Store.Open] leaves the transaction open instead of repairing it:
// the run goes on in another process, which closes it.
const MetaRunOwner = "run_owner"

// A Turn is one entry of a session's history. Which fields are set depends
// on Kind; the others are empty.
type Turn struct {
	Kind TurnKind  `json:"kind"`
	Time time.Time `json:"time,omitzero"`

	// Text is the task (user_task), the reply text (model_response) or the
	// summary (compressed_history).
	Text string `json:"text,omitempty"`
	// Reasoning is a model's reasoning text, where the provider returns it.
	Reasoning string `json:"reasoning,omitempty"`
	// Thinking holds a model_response's reasoning blocks as the provider
	// wants them back (signed or encrypted); see [llm.Thinking].
	Thinking []llm.Thinking `json:"thinking,omitempty"`
	// Stop says why the model stopped a model_response, when it was not
	// the plain end of its reply or a round of tool calls.
	Stop llm.StopReason `json:"stop,omitempty"`
	// Calls are the tool calls of a model_response.
	Calls []llm.ToolCall `json:"calls,omitempty"`
	// Usage counts a model_response's tokens.
	Usage *llm.Usage `json:"usage,omitempty"`
	// Model names the model that wrote a model_response.
	Model string `json:"model,omitempty"`

	// CallID and Tool identify the call of a function_calling or
	// tool_response turn.
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	// Arguments are a function_calling turn's arguments, as the model wrote
	// them (they may be invalid JSON, stored as a JSON string then).
	Arguments json.RawMessage `json:"arguments,omitempty"`

	// Status is a tool_response's StatusSucceeded or StatusFailed.
	Status string `json:"status,omitempty"`
	// Output is what the model reads of a tool_response.
	Output string `json:"output,omitempty"`
	// Data is a tool_response's structured data.
	Data json.RawMessage `json:"data,omitempty"`
	// Interrupted marks the synthetic result of a call that never finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Images are a tool_response's pictures. The journal keeps only their
	// hashes and sizes; the bytes are in the session's blob store.
	Images []tool.Image `json:"images,omitempty"`

	// TraceID and SpanID tie a model_response or tool_response to the
	// OpenTelemetry span that produced it, when tracing is on (hex, as in
	// W3C trace context).
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`

	// Range is the 1-based inclusive range of turns a compressed_history
	// turn replaced; only journals written before compactions were records
	// of their own hold such turns (in forks of them).
	Range *[2]int `json:"range,omitempty"`

	// Child and Agent name the child session and its agent type in
	// agent_started and agent_finished turns; Status there is the child's
	// (done, partial, blocked).
	Child string `json:"child,omitempty"`
	Agent string `json:"agent,omitempty"`
}

// A Reference is a file whose fresh content goes into the prompt while it
// is active.
type Reference struct {
	// Path is the workspace-relative path.
	Path string `json:"path"`
	// TTL is how many more user tasks the reference stays active; it is
	// ignored when Persist is set.
	TTL int `json:"ttl"`
	// Persist keeps the reference until it is removed.
	Persist bool `json:"persist,omitempty"`
	// Disabled keeps the reference listed but out of prompts.
	Disabled bool `json:"disabled,omitempty"`
}

// Active reports whether the reference goes into prompts.
func (r Reference) Active() bool { return !r.Disabled && (r.Persist || r.TTL > 0) }

// DefaultReferenceTTL is the number of user tasks a new reference lives.
const DefaultReferenceTTL = 3

// The statuses of a todo. At most one todo is in progress at a time.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
	TodoCancelled  = "cancelled"
	TodoBlocked    = "blocked"
	// TodoDone is the older name of TodoCompleted, still read and
	// accepted.
	TodoDone = "done"
)

// A Todo is one entry of a session's todo list (the plan).
type Todo struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// Status is one of the Todo constants.
	Status string `json:"status" enum:"pending,in_progress,completed,cancelled,blocked,done"`
}

// CheckTodos reports the first problem with a todo list: an unknown
// status, an empty title, or more than one todo in progress.
func CheckTodos(todos []Todo) error {
	var inProgress []string
	for i, t := range todos {
		if t.Title == "" {
			return fmt.Errorf("todo %d has no title", i+1)
		}
		switch t.Status {
		case TodoPending, TodoCompleted, TodoCancelled, TodoBlocked, TodoDone:
		case TodoInProgress:
			inProgress = append(inProgress, fmt.Sprintf("%q", t.Title))
		default:
			return fmt.Errorf("todo %d (%q): status %q is not one of pending, in_progress, completed, cancelled, blocked", i+1, t.Title, t.Status)
		}
	}
	if len(inProgress) > 1 {
		return fmt.Errorf("%d todos are in_progress (%s); at most one may be: mark the others pending or completed", len(inProgress), strings.Join(inProgress, ", "))
	}
	return nil
}

// A PoolRecord describes one transaction of a session.
type PoolRecord struct {
	// Seq numbers the transactions from 1.
	Seq int `json:"seq"`
	// Status is "open", "committed" or "aborted".
	Status string `json:"status"`
	// Reason says why an aborted transaction was aborted.
	Reason string `json:"reason,omitempty"`
	// Turns is the 1-based inclusive range of turns the transaction
	// produced, once it is closed (compression may later renumber turns).
	Turns [2]int `json:"turns"`
	// Started and Ended time the transaction.
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

// The statuses of a [PoolRecord].
const (
	PoolOpen      = "open"
	PoolCommitted = "committed"
	PoolAborted   = "aborted"
)

// A Header is the first line of a journal: what the session is.
type Header struct {
	// Version is the journal format; see [JournalVersion].
	Version   int       `json:"wield_session"`
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	// ParentID names the session this one was forked from.
	ParentID   string   `json:"parent_id,omitempty"`
	Purpose    string   `json:"purpose,omitempty"`
	Background string   `json:"background,omitempty"`
	Roles      []string `json:"roles,omitempty"`
	Agent      string   `json:"agent,omitempty"`
	// Model is the model the session was started with, as the host
	// chooses it again ("provider:model"); Endpoint is where its requests
	// went, when not the provider's own endpoint. A host does not send
	// requests to Endpoint because a journal says so: it is for people,
	// and for telling them when a resumed run goes elsewhere.
	Model    string `json:"model,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// ContextMode is how file tools share content: ContextInline (the
	// default) or ContextReferences.
	ContextMode string `json:"context_mode,omitempty"`
	// Child links a child agent's session to the call that started it;
	// nil for a session a person started.
	Child *ChildOf `json:"child_of,omitempty"`
}

// ChildOf says where a child agent's session comes from.
type ChildOf struct {
	// Session is the parent session's id, Call the id of the parent's tool
	// call that started the child.
	Session string `json:"session"`
	Call    string `json:"call"`
	// Depth is 1 for a child of a top-level session, 2 for a grandchild.
	Depth int `json:"depth"`
	// Agent is the child's agent type (its definition's name).
	Agent string `json:"agent"`
}

// The context modes of a session.
const (
	// ContextInline: file tools return content in their results.
	ContextInline = "inline"
	// ContextReferences: file tools add file references, whose fresh
	// content the prompt builder reads at each prompt, and return a short
	// confirmation.
	ContextReferences = "references"
)

// State is a session folded from its journal. It is a value: changing it
// changes nothing on disk.
type State struct {
	Header Header
	// Turns are the committed turns, oldest first. Aborted transactions'
	// turns are here too, closed with interrupted results.
	Turns []Turn
	// Pool holds the open transaction's turns; it is nil when none is open.
	Pool []Turn
	// Paused lists the calls the open transaction awaits approval for; it
	// is non-nil while the transaction is paused (see [Session.Pause]).
	Paused []tool.PendingCall
	// Pools lists every transaction, oldest first.
	Pools      []PoolRecord
	References []Reference
	Todos      []Todo
	// Meta holds the values set with [Session.Set].
	Meta map[string]json.RawMessage
	// ForkedFrom names the session and turn this one was forked at.
	ForkedFrom *ForkOrigin
	// Compactions lists every compaction recorded, oldest first, undone
	// ones marked; [State.Project] applies the active ones. Turns stay
	// whole whatever they say.
	Compactions []Compaction
	// Files is the mutation ledger: every file change recorded, oldest
	// first (see [FileRecord]).
	Files []FileRecord
	// ChangeTxs lists the mutation transactions, oldest first.
	ChangeTxs []ChangeTx
	// Rewinds lists the undos and rewinds, oldest first; the conversation
	// rewinds in effect hide their turns from [State.Project].
	Rewinds []Rewind
	// Records are the features' records, oldest first (see [Record]).
	Records []Record
}

// A ForkOrigin names where a forked session came from.
type ForkOrigin struct {
	Session string `json:"session"`
	Turn    int    `json:"turn"`
}

// Open reports whether a transaction is open.
func (s *State) Open() bool { return s.Pool != nil }

// Messages returns turns as provider-neutral messages: tasks become user
// messages, model responses assistant messages with their calls, results
// tool messages. A call recorded without a model response (over MCP, say)
// becomes an assistant message of its own, so every result follows its call.
func Messages(turns []Turn) []llm.Message {
	b := messageBuilder{out: make([]llm.Message, 0, len(turns))}
	for i := range turns {
		b.add(&turns[i])
	}
	return b.out
}

// messageBuilder appends the messages of turns, one turn at a time.
type messageBuilder struct {
	out  []llm.Message
	last int // the index of the latest assistant message with calls, or -1 when none is open
	open bool
}

func (b *messageBuilder) add(t *Turn) {
	switch t.Kind {
	case TurnUserTask:
		b.out = append(b.out, llm.Message{Role: llm.RoleUser, Content: t.Text})
		b.open = false
	case TurnCompressedHistory:
		text := t.Text
		if t.Range != nil { // an older journal's compressed turn
			text = "Summary of earlier turns " + rangeText(t.Range) + ":\n" + t.Text
		}
		b.out = append(b.out, llm.Message{Role: llm.RoleUser, Content: text})
		b.open = false
	case TurnModelResponse:
		b.out = append(b.out, llm.Message{Role: llm.RoleAssistant, Content: t.Text, Reasoning: t.Reasoning,
			Thinking: slices.Clone(t.Thinking), ToolCalls: slices.Clone(t.Calls)})
		b.last, b.open = len(b.out)-1, true
	case TurnFunctionCalling:
		if b.open && slices.ContainsFunc(b.out[b.last].ToolCalls, func(c llm.ToolCall) bool { return c.ID == t.CallID }) {
			return
		}
		b.out = append(b.out, llm.Message{Role: llm.RoleAssistant,
			ToolCalls: []llm.ToolCall{{ID: t.CallID, Name: t.Tool, Arguments: t.Arguments}}})
		b.last, b.open = len(b.out)-1, true
	case TurnToolResponse:
		b.out = append(b.out, llm.Message{Role: llm.RoleTool, ToolCallID: t.CallID, ToolName: t.Tool,
			Content: resultText(t), Images: messageImages(t.Images)})
	}
	// agent_started and agent_finished are bookkeeping: the model
	// reads the call's tool_response.
}

// messageImages returns a tool_response's images as a message carries
// them: hash, type and size. The bytes stay in the blob store until the
// prompt needs them ([Session.Image]).
func messageImages(imgs []tool.Image) []llm.Image {
	if len(imgs) == 0 {
		return nil
	}
	out := make([]llm.Image, len(imgs))
	for i, img := range imgs {
		out[i] = llm.Image{MIMEType: img.MIMEType, Width: img.Width, Height: img.Height, Hash: img.Hash, Data: img.Data}
	}
	return out
}

func rangeText(r *[2]int) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("(turns %d-%d)", r[0], r[1])
}

// resultText is what the model reads of a tool_response: its output, with
// "Error: " in front when it failed, as tool.Result.ForModel writes it.
func resultText(t *Turn) string {
	return t.Output
}

// unanswered returns the calls of turns that have no tool_response, in call
// order: the calls of model responses and function_calling turns.
func unanswered(turns []Turn) []llm.ToolCall {
	answered := map[string]bool{}
	for _, t := range turns {
		if t.Kind == TurnToolResponse {
			answered[t.CallID] = true
		}
	}
	var out []llm.ToolCall
	add := func(c llm.ToolCall) {
		if !answered[c.ID] {
			answered[c.ID] = true
			out = append(out, c)
		}
	}
	for _, t := range turns {
		switch t.Kind {
		case TurnModelResponse:
			for _, c := range t.Calls {
				add(c)
			}
		case TurnFunctionCalling:
			add(llm.ToolCall{ID: t.CallID, Name: t.Tool, Arguments: t.Arguments})
		}
	}
	return out
}

// interruptedResults returns one synthetic interrupted result for every
// call of turns without a result.
func interruptedResults(turns []Turn, now time.Time) []Turn {
	calls := unanswered(turns)
	out := make([]Turn, len(calls))
	for i, c := range calls {
		out[i] = Turn{Kind: TurnToolResponse, Time: now, CallID: c.ID, Tool: c.Name,
			Status: StatusFailed, Output: "Error: " + Interrupted, Interrupted: true}
	}
	return out
}
