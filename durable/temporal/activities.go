package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Names of the activities, as registered by [Register].
const (
	activityBegin     = "wield.Begin"
	activityCallModel = "wield.CallModel"
	activityCallTool  = "wield.CallTool"
	activityPause     = "wield.Pause"
	activityCompact   = "wield.Compact"
	activityFinish    = "wield.Finish"
)

// Limits on what travels through a workflow's history.
const (
	// MaxTextBytes bounds the reply text an activity returns; the whole
	// text is in the session.
	MaxTextBytes = 16 << 10
	// maxInline bounds arguments and outputs returned as they are;
	// longer ones travel as their hash, which is all the loop needs of
	// them (to notice a call repeating).
	maxInline = 256
)

// Interrupted is the output a call gets when the worker running it
// stopped before it finished: the call is not run again, since it may
// have partly applied.
const Interrupted = "the worker running this call stopped before it finished, so it may have partly applied; it was not run again: check its effects before calling it again"

// metaStarted prefixes the session metadata that marks a call as started
// by a worker, before it runs: a retry that finds the mark and no result
// knows the call may have applied.
const metaStarted = "durable.started."

// A Host gives the activities what they need, on every worker. Its
// methods are called concurrently.
type Host interface {
	// Sessions is the store of the runs' sessions, which every worker
	// shares (package session's PostgreSQL backend, or one directory on
	// a shared disk).
	Sessions() *session.Store
	// Agent returns the agent that works in session id: its model, tools
	// and policy. A host may return the same agent for every session.
	Agent(ctx context.Context, sessionID string) (*agent.Agent, error)
}

// Activities are the activities of the [Run] workflow. They share the
// sessions a worker has open, so that parallel calls of one run on one
// worker write through one writer.
type Activities struct {
	host Host

	mu   sync.Mutex
	open map[string]*shared
}

// shared is a session open for the worker's activities. ready is closed
// once the session is open, or once opening it failed (then the entry is
// gone from the map).
type shared struct {
	ready chan struct{}
	s     *session.Session
	refs  int
}

// NewActivities returns the activities, served from h.
func NewActivities(h Host) *Activities {
	return &Activities{host: h, open: map[string]*shared{}}
}

// BeginInput is the input of the Begin activity.
type BeginInput struct {
	SessionID string `json:"session_id"`
	Task      string `json:"task"`
	// Owner is the workflow id, which owns the transaction Begin opens.
	Owner string `json:"owner"`
}

// Begin opens the run's transaction with its task, creating the session
// when it does not exist. Done again (a retry), it finds the transaction
// open and owned by the same workflow and does nothing.
func (a *Activities) Begin(ctx context.Context, in BeginInput) error {
	store := a.host.Sessions()
	if _, err := store.Load(ctx, in.SessionID); errors.Is(err, session.ErrNotFound) {
		s, err := store.Create(ctx, session.Header{ID: in.SessionID})
		if err != nil {
			return fmt.Errorf("create session %s: %w", in.SessionID, err)
		}
		if err := s.Close(); err != nil {
			return err
		}
	}
	return a.with(ctx, in.SessionID, func(s *session.Session) error {
		st := s.State()
		if st.Open() {
			if owner(st) == in.Owner {
				return nil
			}
			return temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("session %s has a transaction open that run %q did not begin: finish or abort that run first", in.SessionID, owner(st)),
				"SessionBusy", nil)
		}
		if err := s.Set(map[string]any{session.MetaRunOwner: in.Owner}); err != nil {
			return err
		}
		return s.Begin(ctx, in.Task)
	})
}

func owner(st *session.State) string {
	var o string
	_ = json.Unmarshal(st.Meta[session.MetaRunOwner], &o)
	return o
}

// ModelInput is the input of the CallModel activity: a reference to the
// prompt, never the prompt.
type ModelInput struct {
	SessionID string `json:"session_id"`
	Round     int    `json:"round"`
}

// ModelReply is what the CallModel activity returns: what the loop needs
// to decide, with long parts replaced by their hashes.
type ModelReply struct {
	Text  string         `json:"text,omitempty"`
	Calls []ModelCall    `json:"calls,omitempty"`
	Usage llm.Usage      `json:"usage"`
	Stop  llm.StopReason `json:"stop,omitempty"`
	// Compacts says the agent has a compactor to ask after the round's
	// calls; without one the workflow skips the Compact activity.
	Compacts bool `json:"compacts,omitempty"`
	// Overflow says the prompt was over the model's context window and
	// the agent's compactor can shorten it: there is no reply; the
	// workflow compacts and calls the model again.
	Overflow bool `json:"overflow,omitempty"`
}

// A ModelCall is a tool call of a reply.
type ModelCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments are the call's arguments, or their hash when long.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Parallel says the call may run beside the reply's other
	// parallel-safe calls.
	Parallel bool `json:"parallel,omitempty"`
}

func (r *ModelReply) response() *llm.Response {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: r.Text}, Usage: r.Usage, Stop: r.Stop}
	for _, c := range r.Calls {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return resp
}

// CallModel calls the model for round and records its reply in the
// session. Done again after the reply was recorded (a retry, or a worker
// lost after recording), it returns the recorded reply without calling
// the model. Provider errors are classified: 408, 409, 429 and 5xx are
// retried, after the wait the provider asked for; other 4xx are not.
func (a *Activities) CallModel(ctx context.Context, in ModelInput) (ModelReply, error) {
	defer heartbeat(ctx)()
	ag, err := a.host.Agent(ctx, in.SessionID)
	if err != nil {
		return ModelReply{}, err
	}
	var reply ModelReply
	err = a.with(ctx, in.SessionID, func(s *session.Session) error {
		if t := responseOf(s.State(), in.Round); t != nil {
			reply = replyOf(ag, t.Text, t.Calls, derefUsage(t.Usage), t.Stop)
			return nil
		}
		resp, err := ag.CallModel(ctx, s, in.Round)
		if err != nil && ag.Compacts() && llm.IsContextOverflow(err) {
			reply = ModelReply{Overflow: true, Compacts: true}
			return nil
		}
		if err != nil {
			return classify(err)
		}
		reply = replyOf(ag, resp.Message.Content, resp.Message.ToolCalls, resp.Usage, resp.Stop)
		return nil
	})
	return reply, err
}

// responseOf returns the round-th model response of st's transaction, or
// nil.
func responseOf(st *session.State, round int) *session.Turn {
	n := 0
	for i := range st.Pool {
		if st.Pool[i].Kind == session.TurnModelResponse {
			if n++; n == round {
				return &st.Pool[i]
			}
		}
	}
	return nil
}

func derefUsage(u *llm.Usage) llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return *u
}

func replyOf(ag *agent.Agent, text string, calls []llm.ToolCall, usage llm.Usage, stop llm.StopReason) ModelReply {
	r := ModelReply{Text: text, Usage: usage, Stop: stop, Compacts: ag.Compacts()}
	if len(r.Text) > MaxTextBytes {
		r.Text = r.Text[:MaxTextBytes] + "\n[cut: the whole reply is in the session]"
	}
	for _, c := range calls {
		r.Calls = append(r.Calls, ModelCall{ID: c.ID, Name: c.Name, Arguments: digest(c.Arguments), Parallel: ag.ParallelSafe(c.Name)})
	}
	return r
}

// digest returns raw if it is short, else a JSON string of its hash.
func digest(raw []byte) json.RawMessage {
	if len(raw) <= maxInline {
		return json.RawMessage(raw)
	}
	sum := sha256.Sum256(raw)
	b, _ := json.Marshal("sha256:" + hex.EncodeToString(sum[:]))
	return b
}

// classify turns a model call's error into one Temporal retries or not.
func classify(err error) error {
	var api *llm.APIError
	if !errors.As(err, &api) {
		return err // network trouble and the like: retried
	}
	switch {
	case api.Status == 408 || api.Status == 409 || api.Status == 429 || api.Status >= 500:
		return temporal.NewApplicationErrorWithOptions(err.Error(), "ModelUnavailable",
			temporal.ApplicationErrorOptions{NextRetryDelay: api.RetryAfter, Cause: err})
	default:
		return temporal.NewNonRetryableApplicationError(err.Error(), "ModelRejected", err)
	}
}

// ToolInput is the input of the CallTool activity: a reference to one
// call of the round's reply, whose arguments the activity reads from the
// session.
type ToolInput struct {
	SessionID string `json:"session_id"`
	Round     int    `json:"round"`
	CallID    string `json:"call_id"`
	Tool      string `json:"tool"`
	// Parallel is the reply's verdict on the call (see [ModelCall]).
	Parallel bool `json:"parallel,omitempty"`
	// Answer is a person's answer, for a call that awaited approval.
	Answer *agent.Answer `json:"answer,omitempty"`
}

// ToolOutput is what the CallTool activity returns: the result the loop
// needs (long outputs as their hash: the model reads the whole result
// from the session), or that the call awaits approval.
type ToolOutput struct {
	Result  agent.CallResult  `json:"result"`
	Pending *tool.PendingCall `json:"pending,omitempty"`
	// Usage is what the tool spent on models (a subagent).
	Usage llm.Usage `json:"usage"`
}

// CallTool runs one call, with the call id as its idempotency key: a call
// whose result the session has is not run again (its result is
// returned), and a call that a lost worker had started gets an
// [Interrupted] result instead of running twice.
func (a *Activities) CallTool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	defer heartbeat(ctx)()
	ag, err := a.host.Agent(ctx, in.SessionID)
	if err != nil {
		return ToolOutput{}, err
	}
	var out ToolOutput
	err = a.with(ctx, in.SessionID, func(s *session.Session) error {
		st := s.State()
		req, ok := callOf(st, in.CallID)
		if !ok {
			return temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("session %s has no call %s in its open transaction", in.SessionID, in.CallID), "NoSuchCall", nil)
		}
		if t := resultOf(st, in.CallID); t != nil {
			out.Result = agent.CallResult{ID: in.CallID, Tool: t.Tool, Arguments: digest(req.Arguments),
				Output: string(digest([]byte(t.Output))), Success: t.Status == session.StatusSucceeded}
			return nil
		}
		// A call that only reads is simply run again; one that may change
		// something is marked started first, durably.
		mark := !ag.ReadOnly(req.Name, req.Arguments)
		key := metaStarted + in.CallID
		if _, started := st.Meta[key]; started && mark {
			c := &tool.Call{ID: in.CallID, Tool: req.Name, SessionID: in.SessionID, Iteration: in.Round}
			if err := s.RecordCall(ctx, c, req.Arguments); err != nil {
				return err
			}
			if err := s.RecordResult(ctx, c, tool.Result{Error: Interrupted}); err != nil {
				return err
			}
			out.Result = agent.CallResult{ID: in.CallID, Tool: req.Name, Arguments: digest(req.Arguments), Error: Interrupted}
			return s.Set(map[string]any{key: nil})
		}
		if mark {
			if err := s.Set(map[string]any{key: activity.GetInfo(ctx).Attempt}); err != nil {
				return err
			}
		}
		var answers []agent.Answer
		if in.Answer != nil {
			answers = []agent.Answer{*in.Answer}
		}
		res, err := ag.RunCalls(ctx, s, in.Round, []tool.Request{req}, answers)
		if err != nil {
			return err
		}
		if len(res.Pending) > 0 {
			out.Pending = &res.Pending[0]
		} else if len(res.Results) > 0 {
			out.Result = res.Results[0]
			out.Result.Arguments = digest(out.Result.Arguments)
			out.Result.Output = string(digest([]byte(out.Result.Output)))
			out.Usage = res.Usage
		}
		if !mark {
			return nil
		}
		return s.Set(map[string]any{key: nil})
	})
	return out, err
}

// callOf finds call id among the calls of st's transaction.
func callOf(st *session.State, id string) (tool.Request, bool) {
	for i := len(st.Pool) - 1; i >= 0; i-- {
		for _, c := range st.Pool[i].Calls {
			if c.ID == id {
				return tool.Request{ID: c.ID, Name: c.Name, Arguments: c.Arguments}, true
			}
		}
	}
	return tool.Request{}, false
}

// resultOf returns the result of call id in st's transaction, or nil.
func resultOf(st *session.State, id string) *session.Turn {
	for i := range st.Pool {
		if t := &st.Pool[i]; t.Kind == session.TurnToolResponse && t.CallID == id {
			return t
		}
	}
	return nil
}

// PauseInput is the input of the Pause activity.
type PauseInput struct {
	SessionID string             `json:"session_id"`
	Pending   []tool.PendingCall `json:"pending"`
}

// Pause records in the session that the run waits for approval of the
// pending calls, so that a reader sees what it waits for.
func (a *Activities) Pause(ctx context.Context, in PauseInput) error {
	return a.with(ctx, in.SessionID, func(s *session.Session) error { return s.Pause(ctx, in.Pending) })
}

// CompactInput is the input of the Compact activity.
type CompactInput struct {
	SessionID string    `json:"session_id"`
	Round     int       `json:"round"`
	Usage     llm.Usage `json:"usage"`
	// Overflow says the last prompt was over the context window.
	Overflow bool `json:"overflow,omitempty"`
}

// Compact asks the agent's compactor about the session.
func (a *Activities) Compact(ctx context.Context, in CompactInput) error {
	defer heartbeat(ctx)()
	ag, err := a.host.Agent(ctx, in.SessionID)
	if err != nil {
		return err
	}
	return a.with(ctx, in.SessionID, func(s *session.Session) error { return ag.Compact(ctx, s, in.Round, in.Usage, in.Overflow) })
}

// FinishInput is the input of the Finish activity.
type FinishInput struct {
	SessionID string        `json:"session_id"`
	Outcome   agent.Outcome `json:"outcome"`
	// Abort, when set, aborts the transaction for this reason instead of
	// committing it.
	Abort string `json:"abort,omitempty"`
}

// Finish commits the run's transaction, or aborts it (every call without
// a result gets an interrupted one). Done again, it finds none open and
// does nothing.
func (a *Activities) Finish(ctx context.Context, in FinishInput) error {
	return a.with(ctx, in.SessionID, func(s *session.Session) error {
		if !s.State().Open() {
			return nil
		}
		var err error
		if in.Abort != "" {
			err = s.Abort(ctx, in.Abort)
		} else {
			err = s.Commit(ctx)
		}
		if err != nil {
			return err
		}
		return s.Set(map[string]any{session.MetaRunOwner: nil})
	})
}

// with runs fn with session id open for writing. A session this worker
// has open is shared; one another process writes is waited for, with a
// heartbeat, until ctx ends.
func (a *Activities) with(ctx context.Context, id string, fn func(*session.Session) error) error {
	s, err := a.acquire(ctx, id)
	if err != nil {
		return err
	}
	defer a.release(id)
	return fn(s)
}

func (a *Activities) acquire(ctx context.Context, id string) (*session.Session, error) {
	wait := 20 * time.Millisecond
	for {
		a.mu.Lock()
		if sh := a.open[id]; sh != nil {
			select {
			case <-sh.ready: // open: entries that failed to open are gone
				sh.refs++
				a.mu.Unlock()
				return sh.s, nil
			default:
			}
			// Another activity is opening it: wait for that, then look
			// again.
			a.mu.Unlock()
			select {
			case <-sh.ready:
			case <-ctx.Done():
				return nil, fmt.Errorf("session %s: %w", id, ctx.Err())
			}
			continue
		}
		// Open it without holding the lock: opening reads the journal,
		// and other sessions' activities must not wait for that.
		sh := &shared{ready: make(chan struct{}), refs: 1}
		a.open[id] = sh
		a.mu.Unlock()
		s, err := a.host.Sessions().Open(ctx, id)
		a.mu.Lock()
		if err != nil {
			delete(a.open, id)
		}
		sh.s = s
		close(sh.ready)
		a.mu.Unlock()
		if err == nil {
			return s, nil
		}
		if _, busy := errors.AsType[*session.BusyError](err); !busy {
			return nil, err
		}
		// Another worker writes the session now (a parallel call of the
		// same run): its writes are short, so wait for them.
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("session %s: %w (while waiting for its writer: %w)", id, ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, "waiting for the session's writer")
		}
	}
}

func (a *Activities) release(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sh := a.open[id]
	if sh.refs--; sh.refs == 0 {
		delete(a.open, id)
		_ = sh.s.Close()
	}
}

// heartbeat records a heartbeat now and every third of the heartbeat timeout
// until the returned function is called, so that a lost worker's
// activity moves to another worker quickly, and a cancelled run's
// activity learns of it (its context ends).
func heartbeat(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	activity.RecordHeartbeat(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		every := DefaultHeartbeat / 3
		if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
			every = hb / 3
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
