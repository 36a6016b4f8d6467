package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// A Session is the state a run reads and writes. [*session.Session] is the
// durable implementation; [MemorySession] keeps everything in memory. Its methods are called by
// one run at a time; RecordCall and RecordResult may be called from the
// runner's goroutines but never concurrently with each other for one batch.
type Session interface {
	// ID identifies the session.
	ID() string
	// History returns the committed conversation, oldest first.
	History() []llm.Message
	// Pool returns the open transaction's messages, oldest first: the task,
	// then responses and tool results. It is empty when none is open.
	Pool() []llm.Message
	// Begin opens a transaction (the pool) with the user's task.
	Begin(ctx context.Context, task string) error
	// RecordResponse appends a model response to the pool.
	RecordResponse(ctx context.Context, resp *llm.Response) error
	// RecordCall and RecordResult append tool calls and their results to
	// the pool; the runner calls them.
	tool.Recorder
	// Commit merges the pool into the history.
	Commit(ctx context.Context) error
	// Abort closes the pool as aborted, keeping what it holds and giving
	// every call without a result an "interrupted" result.
	Abort(ctx context.Context, reason string) error
}

// Pauser is implemented by sessions that outlive the process: Pause
// records that the open transaction waits for approval of the pending
// calls, so that the run can be resumed later, from another process.
type Pauser interface {
	Pause(ctx context.Context, pending []tool.PendingCall) error
}

// PromptContext is implemented by sessions that contribute more than their
// history to a prompt: file references and a todo list.
type PromptContext interface {
	// References returns the workspace paths whose fresh content goes into
	// the prompt.
	References() []string
	// Todos returns the todo list.
	Todos() []Todo
}

// A Todo is one entry of a session's todo list.
type Todo = session.Todo

// Interrupted is the output given to a call that has no result when its
// transaction is aborted.
const Interrupted = session.Interrupted

// MemorySession is a [Session] held in memory, for library users who keep
// their own state and for tests. Its zero value is an empty session with id
// "memory". It is safe for concurrent use.
type MemorySession struct {
	mu      sync.Mutex
	id      string
	history []llm.Message
	pool    []llm.Message
	open    bool
	aborted []string
}

// NewMemorySession returns an empty session called id.
func NewMemorySession(id string) *MemorySession { return &MemorySession{id: id} }

// ID returns the session's id.
func (s *MemorySession) ID() string {
	if s.id == "" {
		return "memory"
	}
	return s.id
}

// History returns a copy of the committed messages.
func (s *MemorySession) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}

// Pool returns a copy of the open transaction's messages.
func (s *MemorySession) Pool() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pool)
}

// Begin opens the pool with the task.
func (s *MemorySession) Begin(_ context.Context, task string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open {
		return fmt.Errorf("session %s: a transaction is already open", s.ID())
	}
	s.open = true
	s.pool = []llm.Message{{Role: llm.RoleUser, Content: task}}
	return nil
}

// RecordResponse appends the assistant message.
func (s *MemorySession) RecordResponse(_ context.Context, resp *llm.Response) error {
	return s.add(resp.Message)
}

// RecordCall notes nothing: the call is part of the recorded response.
func (s *MemorySession) RecordCall(context.Context, *tool.Call, json.RawMessage) error {
	return s.check()
}

// RecordResult appends a tool message.
func (s *MemorySession) RecordResult(_ context.Context, c *tool.Call, r tool.Result) error {
	return s.add(toolMessage(tool.Request{ID: c.ID, Name: c.Tool}, r))
}

func (s *MemorySession) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return fmt.Errorf("session %s: no open transaction", s.ID())
	}
	return nil
}

func (s *MemorySession) add(m llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return fmt.Errorf("session %s: no open transaction", s.ID())
	}
	s.pool = append(s.pool, m)
	return nil
}

// Commit moves the pool into the history.
func (s *MemorySession) Commit(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return fmt.Errorf("session %s: no open transaction", s.ID())
	}
	s.history = append(s.history, s.pool...)
	s.pool, s.open = nil, false
	return nil
}

// Abort keeps the pool, adding an interrupted result for every call without
// one, and closes it.
func (s *MemorySession) Abort(_ context.Context, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.open {
		return nil
	}
	s.history = append(s.history, CloseCalls(s.pool)...)
	s.aborted = append(s.aborted, reason)
	s.pool, s.open = nil, false
	return nil
}

// Aborts returns the reasons of the aborted transactions, oldest first.
func (s *MemorySession) Aborts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.aborted)
}

// CloseCalls returns msgs with an [Interrupted] tool message added after
// every assistant message's calls that have no result, so that every call
// has exactly one result.
func CloseCalls(msgs []llm.Message) []llm.Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	out := make([]llm.Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		out = append(out, m)
		i++
		if m.Role != llm.RoleAssistant {
			continue
		}
		// Results follow their calls: keep those, then add the missing ones.
		for i < len(msgs) && msgs[i].Role == llm.RoleTool {
			out = append(out, msgs[i])
			i++
		}
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "Error: " + Interrupted})
				answered[c.ID] = true
			}
		}
	}
	return out
}

var (
	_ Session              = (*session.Session)(nil)
	_ PromptContext        = (*session.Session)(nil)
	_ session.RecordSource = (*session.Session)(nil)
	_ Pauser               = (*session.Session)(nil)
	_ ImageStore           = (*session.Session)(nil)
)
