package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// A Session is one session open for writing: the only way to change it.
// Every change is appended to the journal before it is visible in memory,
// so the journal never holds less than a reader was shown. It is safe for
// concurrent use. It implements the agent package's Session interface.
type Session struct {
	store *Store
	red   redactor

	mu     sync.Mutex
	file   Journal
	lock   WriterLock
	size   int64 // journal bytes known to be complete
	st     State
	buf    bytes.Buffer
	broken error // set when a failed write could not be undone
	closed bool
	// dirSync is set for a journal whose creation was not yet made
	// durable (a child's); the next sync syncs its directory too.
	dirSync bool
}

// ErrClosed is returned by a closed Session.
var ErrClosed = errors.New("session is closed")

// ID returns the session's id.
func (s *Session) ID() string { return s.st.Header.ID }

// State returns a copy of the session's state.
func (s *Session) State() *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.Turns = slices.Clone(st.Turns)
	if st.Pool != nil {
		st.Pool = slices.Clone(st.Pool)
	}
	st.Pools = slices.Clone(st.Pools)
	st.Paused = slices.Clone(st.Paused)
	st.References = slices.Clone(st.References)
	st.Todos = slices.Clone(st.Todos)
	st.Compactions = slices.Clone(st.Compactions)
	st.Records = slices.Clone(st.Records)
	cloneLedger(&st)
	return &st
}

// append writes e to the journal and then applies it to the state. A write
// that fails is undone by cutting the journal back, so a full disk leaves
// the journal as it was; if even that fails the session refuses further
// writes. sync forces the journal to disk under SyncCommit.
func (s *Session) append(e *event, sync bool) error {
	if s.closed {
		return ErrClosed
	}
	if s.broken != nil {
		return fmt.Errorf("session %s cannot be written after an earlier failure: %w", s.ID(), s.broken)
	}
	if e.Time.IsZero() {
		e.Time = s.store.now()
	}
	// Check the event against the state before it is written.
	probe := folder{st: &State{Pool: s.st.Pool, Turns: s.st.Turns, Pools: s.st.Pools, Compactions: s.st.Compactions}}
	if err := dryRun(&probe, e); err != nil {
		return fmt.Errorf("session %s: %w", s.ID(), err)
	}
	s.buf.Reset()
	if e.line != nil {
		s.buf.Write(e.line)
		s.buf.WriteByte('\n')
	} else if err := writeLine(&s.buf, e); err != nil {
		return err
	}
	n, err := s.file.Write(s.buf.Bytes())
	if err == nil && n != s.buf.Len() {
		err = fmt.Errorf("short write of %d of %d bytes", n, s.buf.Len())
	}
	if err == nil && (s.store.Sync == SyncAlways || sync && s.store.Sync == SyncCommit) {
		err = s.file.Sync()
		if err == nil && s.dirSync {
			syncDir(s.store.dir())
			s.dirSync = false
		}
	}
	if err != nil {
		if terr := s.file.Truncate(s.size); terr != nil {
			s.broken = errors.Join(err, fmt.Errorf("undo partial write: %w", terr))
		}
		return fmt.Errorf("session %s: write journal: %w", s.ID(), err)
	}
	s.size += int64(n)
	f := folder{st: &s.st}
	if err := f.apply(e); err != nil {
		// dryRun accepted it; this cannot happen short of a bug.
		s.broken = err
		return fmt.Errorf("session %s: %w", s.ID(), err)
	}
	return nil
}

// dryRun reports whether e would apply, for the events whose validity
// depends on the state; it does not change anything the state shares.
func dryRun(f *folder, e *event) error {
	switch e.Op {
	case opBegin, opPool, opCommit, opAbort:
		if f.st.Pool == nil && e.Op != opBegin {
			return fmt.Errorf("%s: no open transaction", e.Op)
		}
		if f.st.Pool != nil && e.Op == opBegin {
			return errors.New("a transaction is already open")
		}
	case opCompact:
		if e.Compaction == nil {
			return errors.New("compact without a compaction")
		}
		return checkCompaction(f.st, e.Compaction)
	case opUncompact:
		if lastActive(f.st.Compactions) < 0 {
			return errors.New("no compaction to undo")
		}
	}
	return nil
}

// History returns the committed turns as messages, for a prompt: their
// projection through the active compactions (see [State.Project]).
func (s *Session) History() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return newProjector(&s.st).messages(0, len(s.st.Turns))
}

// Pool returns the open transaction's turns as messages, projected as
// History is.
func (s *Session) Pool() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Pool == nil {
		return nil
	}
	return newProjector(&s.st).messages(len(s.st.Turns), s.st.Timeline())
}

// Begin opens a transaction with the user's task. References age by one
// user task: their TTLs tick down.
func (s *Session) Begin(_ context.Context, task string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Open() {
		return fmt.Errorf("session %s: a transaction is already open", s.ID())
	}
	if refs, changed := tick(s.st.References); changed {
		if err := s.append(&event{Op: opReferences, References: refs}, false); err != nil {
			return err
		}
	}
	if err := s.append(&event{Op: opBegin}, false); err != nil {
		return err
	}
	t := s.red.turn(Turn{Kind: TurnUserTask, Time: s.store.now(), Text: task})
	// A person's task is made durable at once; a child's is in its
	// parent's call, and the child's journal is synced when it commits.
	return s.append(&event{Op: opPool, Turn: &t}, s.store.Sync == SyncCommit && s.st.Header.Child == nil)
}

// tick returns refs with one user task taken off each TTL.
func tick(refs []Reference) ([]Reference, bool) {
	changed := false
	out := slices.Clone(refs)
	for i := range out {
		if !out[i].Persist && out[i].TTL > 0 {
			out[i].TTL--
			changed = true
		}
	}
	return out, changed
}

// RecordResponse appends a model response to the pool, with the trace and
// span ids of the span in ctx (its chat span) when tracing is on.
func (s *Session) RecordResponse(ctx context.Context, resp *llm.Response) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := resp.Message
	t := Turn{Kind: TurnModelResponse, Time: s.store.now(), Text: m.Content, Reasoning: m.Reasoning,
		Thinking: slices.Clone(m.Thinking), Model: resp.Model, Calls: slices.Clone(m.ToolCalls)}
	if resp.Stop != llm.StopEnd && resp.Stop != llm.StopToolUse {
		t.Stop = resp.Stop
	}
	for i := range t.Calls {
		t.Calls[i].Arguments = storable(t.Calls[i].Arguments)
	}
	if resp.Usage != (llm.Usage{}) {
		u := resp.Usage
		t.Usage = &u
	}
	t = s.red.turn(t)
	traced(ctx, &t)
	return s.append(&event{Op: opPool, Turn: &t}, false)
}

// storable returns raw if it is valid JSON, or raw as a JSON string.
func storable(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// poolHasCall reports whether the open transaction already records the
// call id. It reads back from the end and stops at the model response
// that made the call, which comes before it: a round's cost does not grow
// with the rounds before it.
func (s *Session) poolHasCall(id string) bool {
	for i := len(s.st.Pool) - 1; i >= 0; i-- {
		t := &s.st.Pool[i]
		switch t.Kind {
		case TurnFunctionCalling:
			if t.CallID == id {
				return true
			}
		case TurnModelResponse:
			if slices.ContainsFunc(t.Calls, func(c llm.ToolCall) bool { return c.ID == id }) {
				return false
			}
		}
	}
	return false
}

// RecordCall appends a function_calling turn to the pool. A call already
// in the pool (a resumed run) is not recorded twice.
func (s *Session) RecordCall(_ context.Context, c *tool.Call, args json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.poolHasCall(c.ID) {
		return nil
	}
	t := s.red.turn(Turn{Kind: TurnFunctionCalling, Time: s.store.now(), CallID: c.ID, Tool: c.Tool, Arguments: storable(args)})
	return s.append(&event{Op: opPool, Turn: &t}, false)
}

// RecordResult appends a tool_response turn to the pool, with the trace and
// span ids of the span in ctx (its execute_tool span) when tracing is on.
// The result's images go to the blob store first. A result is recorded
// even when ctx is done (a cancelled run records its calls' results too),
// so the images are stored under ctx's values but not its cancellation.
func (s *Session) RecordResult(ctx context.Context, c *tool.Call, r tool.Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	imgs, err := s.Blobs().putImages(context.WithoutCancel(ctx), r.Images)
	if err != nil {
		return fmt.Errorf("session %s: record the result of call %s: %w", s.ID(), c.ID, err)
	}
	r.Images = imgs
	t := s.red.turn(resultTurn(c, r, s.store.now()))
	traced(ctx, &t)
	return s.append(&event{Op: opPool, Turn: &t}, false)
}

// resultTurn is the tool_response turn of a result. The bytes of its
// images must be in the blob store already: the turn keeps only their
// hashes.
func resultTurn(c *tool.Call, r tool.Result, now time.Time) Turn {
	t := Turn{Kind: TurnToolResponse, Time: now, CallID: c.ID, Tool: c.Tool,
		Status: StatusFailed, Output: r.ForModel()}
	for _, img := range r.Images {
		img.Data = nil
		t.Images = append(t.Images, img)
	}
	if r.Success {
		t.Status = StatusSucceeded
	}
	if r.Data != nil {
		b, err := json.Marshal(r.Data)
		if err != nil {
			b, _ = json.Marshal(map[string]string{"unencodable_data": err.Error()})
		}
		t.Data = b
	}
	return t
}

// Commit merges the pool into the turns and forces the journal to disk.
// Calls other processes recorded in the session's inbox meanwhile join
// the pool first.
func (s *Session) Commit(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.Open() {
		return fmt.Errorf("session %s: commit: no open transaction", s.ID())
	}
	if err := s.drainInbox(ctx); err != nil {
		return err
	}
	return s.append(&event{Op: opCommit}, true)
}

// Abort closes the pool as aborted: every call without a result gets an
// interrupted result, and the pool's turns are kept. It does nothing when
// no transaction is open.
func (s *Session) Abort(_ context.Context, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.Open() {
		return nil
	}
	return s.abort(reason)
}

func (s *Session) abort(reason string) error {
	for _, t := range interruptedResults(s.st.Pool, s.store.now()) {
		if err := s.append(&event{Op: opPool, Turn: &t}, false); err != nil {
			return err
		}
	}
	return s.append(&event{Op: opAbort, Reason: reason}, true)
}

// Pause records that the open transaction waits for approval of pending.
// A paused transaction survives the process: [Store.Open] leaves it open
// for the run to be resumed, instead of closing it as aborted.
func (s *Session) Pause(_ context.Context, pending []tool.PendingCall) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.Open() {
		return fmt.Errorf("session %s: pause: no open transaction", s.ID())
	}
	pending = slices.Clone(pending)
	for i := range pending {
		pending[i].Arguments = s.red.json(pending[i].Arguments)
		pending[i].Reason = s.red.text(pending[i].Reason)
	}
	return s.append(&event{Op: opPause, Pending: pending}, true)
}

// ContextMode returns the session's context mode: the "context_mode"
// metadata when set, else the header's, else ContextInline.
func (s *Session) ContextMode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if raw, ok := s.st.Meta["context_mode"]; ok {
		var m string
		if json.Unmarshal(raw, &m) == nil && m != "" {
			return m
		}
	}
	if s.st.Header.ContextMode != "" {
		return s.st.Header.ContextMode
	}
	return ContextInline
}

// References returns the paths of the active references, for the prompt.
func (s *Session) References() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.st.References {
		if r.Active() {
			out = append(out, r.Path)
		}
	}
	return out
}

// ReferenceList returns every reference, active or not.
func (s *Session) ReferenceList() []Reference {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.References)
}

// AddReference adds path to the references, or renews it if present: its
// TTL is reset to DefaultReferenceTTL, and persist is kept once set.
func (s *Session) AddReference(path string, persist bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	refs := slices.Clone(s.st.References)
	i := slices.IndexFunc(refs, func(r Reference) bool { return r.Path == path })
	if i < 0 {
		refs = append(refs, Reference{Path: path})
		i = len(refs) - 1
	}
	refs[i].TTL, refs[i].Disabled = DefaultReferenceTTL, false
	refs[i].Persist = refs[i].Persist || persist
	return s.append(&event{Op: opReferences, References: refs}, true)
}

// SetReferences replaces the reference list.
func (s *Session) SetReferences(refs []Reference) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&event{Op: opReferences, References: slices.Clone(refs)}, true)
}

// Todos returns the todo list.
func (s *Session) Todos() []Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.Todos)
}

// SetTodos replaces the todo list; nil deletes it.
func (s *Session) SetTodos(todos []Todo) error {
	if err := CheckTodos(todos); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if todos == nil {
		todos = []Todo{}
	}
	return s.append(&event{Op: opTodos, Todos: slices.Clone(todos)}, true)
}

// AgentStarted records in the open pool that the call callID started a
// child agent of type agent in the session child.
func (s *Session) AgentStarted(_ context.Context, callID, agent, child string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := Turn{Kind: TurnAgentStarted, Time: s.store.now(), CallID: callID, Agent: agent, Child: child}
	return s.append(&event{Op: opPool, Turn: &t}, false)
}

// AgentFinished records in the open pool how the child agent started by
// callID ended: its status (done, partial, blocked), its report and what
// it used.
func (s *Session) AgentFinished(_ context.Context, callID, agent, child, status, report string, usage llm.Usage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := Turn{Kind: TurnAgentFinished, Time: s.store.now(), CallID: callID, Agent: agent, Child: child, Status: status, Output: report}
	if usage != (llm.Usage{}) {
		t.Usage = &usage
	}
	t = s.red.turn(t)
	return s.append(&event{Op: opPool, Turn: &t}, false)
}

// Set records metadata: each key is set to its value's JSON, or removed
// when the value is nil.
func (s *Session) Set(values map[string]any) error {
	set := make(map[string]json.RawMessage, len(values))
	for k, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("session %s: set %s: %w", s.ID(), k, err)
		}
		set[s.red.text(k)] = s.red.json(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&event{Op: opSet, Set: set}, true)
}

// Compress shows the committed turns start..end (1-based, inclusive) in
// prompts as summary: it records a [Compaction] of kind
// CompactionSummary with trigger TriggerTool. The turns stay in the
// journal and in [State.Turns]. A backup copy of the journal is taken
// first; its path is returned.
func (s *Session) Compress(ctx context.Context, start, end int, summary string) (string, error) {
	s.mu.Lock()
	c := Compaction{Kind: CompactionSummary, Range: [2]int{start, end}, Summary: summary, Trigger: TriggerTool}
	err := checkCompaction(&s.st, &c)
	s.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("compress session %s: %w", s.ID(), err)
	}
	backup, err := s.store.Backup(ctx, s.ID())
	if err != nil {
		return "", err
	}
	return backup, s.Compact(c)
}

// Compact records c: from now on its range appears in prompts as c says
// (see [State.Project]), while the turns stay. The range may lie in the
// committed turns or in the open transaction after its task, and must not
// separate a call from its result or cut through an active summary. The
// record is forced to disk.
func (s *Session) Compact(c Compaction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Undone = false
	if err := checkCompaction(&s.st, &c); err != nil {
		return fmt.Errorf("compact session %s: %w", s.ID(), err)
	}
	c.Summary = s.red.text(c.Summary)
	c.Focus = s.red.text(c.Focus)
	return s.append(&event{Op: opCompact, Compaction: &c}, true)
}

// Uncompact undoes the latest active compaction: an uncompact record drops
// it from the prompt view, which is then what it was before it. It returns
// the compaction undone. Repeated, it undoes the ones before.
func (s *Session) Uncompact() (Compaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := lastActive(s.st.Compactions)
	if i < 0 {
		return Compaction{}, fmt.Errorf("uncompact session %s: no compaction to undo", s.ID())
	}
	c := s.st.Compactions[i]
	return c, s.append(&event{Op: opUncompact}, true)
}

// CompactionGeneration returns [State.CompactionGeneration] without
// copying the state: a caller that saw a different number must rebuild its
// prompt view.
func (s *Session) CompactionGeneration() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.CompactionGeneration()
}

// Close releases the writer lock and closes the journal. A transaction
// still open stays open in the journal and is repaired by the next Open.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.store.unregister(s.ID())
	err := s.file.Close()
	if uerr := s.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}
