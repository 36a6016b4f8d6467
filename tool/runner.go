package tool

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wieldhq/wield/schema"
)

// Defaults of [RunnerOptions].
const (
	DefaultTimeout          = 60 * time.Second
	DefaultOutputLimit      = 30_000
	DefaultMaxArgumentBytes = 1 << 20
	DefaultRetryBase        = time.Second
	DefaultSlowCall         = time.Second
	DefaultAbandonAfter     = 10 * time.Second
)

// DefaultMaxParallel is the default number of parallel-safe calls a batch
// runs at once.
var DefaultMaxParallel = max(4, runtime.GOMAXPROCS(0))

// A Request is one tool call as the model made it.
type Request struct {
	// ID is the model's call id; empty means the runner makes one up.
	ID string `json:"id"`
	// Name is the tool name.
	Name string `json:"name"`
	// Arguments is the JSON arguments object; empty means {}.
	Arguments json.RawMessage `json:"arguments"`
}

// A Recorder receives every call and its result so that they land in the
// session journal. The runner calls RecordCall for each call before any
// call of its batch runs, in call order, and RecordResult for each result,
// in call order. An error from either is a fault: [Runner.Run] stops and
// returns it.
type Recorder interface {
	RecordCall(ctx context.Context, c *Call, args json.RawMessage) error
	RecordResult(ctx context.Context, c *Call, r Result) error
}

// RunnerOptions configures a [Runner]. A nil *RunnerOptions, or a zero
// field, means the documented default.
type RunnerOptions struct {
	// Timeout bounds a call whose tool sets none; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxParallel caps how many parallel-safe calls run at once; zero means
	// DefaultMaxParallel.
	MaxParallel int
	// OutputLimit caps the bytes of Output the model sees; zero means
	// DefaultOutputLimit. Longer output keeps its head (20%) and tail (80%)
	// and the whole text is written to a spill file named in the output.
	OutputLimit int
	// SpillDir is where whole outputs are written. Empty means ".wield/spill"
	// inside the call's workspace root, so the model can read it with its
	// file tools, or a directory under os.TempDir when there is no root.
	SpillDir string
	// MaxArgumentBytes caps the size of a call's arguments; zero means
	// DefaultMaxArgumentBytes.
	MaxArgumentBytes int
	// RetryBase is the first retry's delay; retry n waits RetryBase*2^n.
	// Zero means DefaultRetryBase.
	RetryBase time.Duration
	// SlowCall is the duration past which a call is logged as slow; zero
	// means DefaultSlowCall.
	SlowCall time.Duration
	// AbandonAfter is how long the runner waits for a handler that ignores
	// its cancelled context before it gives the call a failed result and
	// moves on; zero means DefaultAbandonAfter.
	AbandonAfter time.Duration
	// Inline runs each handler on the goroutine that runs its call instead
	// of a goroutine of its own. That saves a goroutine hand-off (about 1.5 µs
	// a call), but a handler that ignores its cancelled context then blocks
	// its batch instead of being abandoned after AbandonAfter. Use it only
	// when every tool honours its context, as wield's built-in tools do.
	Inline bool
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger
	// OnEvent receives call events. The runner serialises calls to it.
	OnEvent func(Event)
	// Recorder, if set, records calls and results; see [Recorder].
	Recorder Recorder
	// Gate, if set, decides whether each call may run; see [Gate].
	Gate Gate
	// Approver answers the gate's Ask verdicts. When it is nil, Ask means
	// Deny ("needs approval, and nobody can give it here"), unless
	// PauseForApproval is set.
	Approver Approver
	// PauseForApproval leaves calls the gate asks about pending instead of
	// denying them: [Runner.Run] returns an *[ApprovalError] listing them.
	PauseForApproval bool
}

// A Runner validates and executes tool calls. It is safe for concurrent
// use: parallel-safe calls of all batches share a read lock, and every
// other call holds the write lock while it runs.
type Runner struct {
	reg     *Registry
	opts    RunnerOptions
	exclude sync.RWMutex
	eventMu sync.Mutex
	idMu    sync.Mutex
	idSeq   uint64
	idBase  string
}

// NewRunner returns a runner for the tools in reg.
func NewRunner(reg *Registry, opts *RunnerOptions) *Runner {
	r := &Runner{reg: reg}
	if opts != nil {
		r.opts = *opts
	}
	o := &r.opts
	o.Timeout = cmpOr(o.Timeout, DefaultTimeout)
	o.MaxParallel = cmpOr(o.MaxParallel, DefaultMaxParallel)
	o.OutputLimit = cmpOr(o.OutputLimit, DefaultOutputLimit)
	o.MaxArgumentBytes = cmpOr(o.MaxArgumentBytes, DefaultMaxArgumentBytes)
	o.RetryBase = cmpOr(o.RetryBase, DefaultRetryBase)
	o.SlowCall = cmpOr(o.SlowCall, DefaultSlowCall)
	o.AbandonAfter = cmpOr(o.AbandonAfter, DefaultAbandonAfter)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	r.idBase = "call_" + hex.EncodeToString(b[:]) + "_"
	return r
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Registry returns the runner's registry.
func (r *Runner) Registry() *Registry { return r.reg }

// Run executes reqs and returns exactly one Result per request, in request
// order. Each call gets a copy of tmpl with ID and Tool set.
//
// Consecutive parallel-safe calls run together, up to MaxParallel at once;
// any other call runs alone, after the calls before it finished. When ctx is
// cancelled, running calls are cancelled and calls not yet started get a
// "cancelled" result.
//
// The error is non-nil for a fault that must stop the run (the Recorder
// failed or a tool returned an error marked with [Fatal]; the results are
// complete even then), or, with PauseForApproval, an *[ApprovalError] for
// calls that await approval (their results say "awaiting approval" and are
// not recorded).
func (r *Runner) Run(ctx context.Context, tmpl Call, reqs []Request) ([]Result, error) {
	calls := make([]Call, len(reqs))
	for i := range reqs {
		calls[i] = tmpl
		calls[i].ID = reqs[i].ID
		if calls[i].ID == "" {
			calls[i].ID = r.newID()
		}
		calls[i].Tool = reqs[i].Name
		calls[i].emit = r.emit
	}
	var faults []error
	var pending []PendingCall
	if rec := r.opts.Recorder; rec != nil {
		for i := range calls {
			if err := rec.RecordCall(ctx, &calls[i], reqs[i].Arguments); err != nil {
				return r.failAll(calls, "not run: the session could not record the call"), fmt.Errorf("record call %s: %w", calls[i].ID, err)
			}
		}
	}
	results := make([]Result, len(reqs))
	for start := 0; start < len(reqs); {
		end := start + 1
		if r.parallelSafe(reqs[start].Name) {
			for end < len(reqs) && r.parallelSafe(reqs[end].Name) {
				end++
			}
		}
		if end-start == 1 {
			results[start] = r.call(ctx, &calls[start], reqs[start], &faults)
		} else {
			r.runParallel(ctx, calls[start:end], reqs[start:end], results[start:end], &faults)
		}
		for i := start; i < end; i++ {
			if p, ok := results[i].Data.(errPending); ok {
				pending = append(pending, p.call)
				results[i] = Result{Error: p.Error()}
				continue
			}
			if rec := r.opts.Recorder; rec != nil {
				if err := rec.RecordResult(ctx, &calls[i], results[i]); err != nil {
					faults = append(faults, fmt.Errorf("record result of %s: %w", calls[i].ID, err))
				}
			}
		}
		start = end
	}
	if len(pending) > 0 {
		faults = append(faults, &ApprovalError{Calls: pending})
	}
	return results, errors.Join(faults...)
}

func (r *Runner) runParallel(ctx context.Context, calls []Call, reqs []Request, results []Result, faults *[]error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, r.opts.MaxParallel)
	for i := range reqs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var fs []error
			results[i] = r.call(ctx, &calls[i], reqs[i], &fs)
			if len(fs) > 0 {
				mu.Lock()
				*faults = append(*faults, fs...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func (r *Runner) failAll(calls []Call, msg string) []Result {
	out := make([]Result, len(calls))
	for i := range out {
		out[i] = Failure(msg)
	}
	return out
}

func (r *Runner) parallelSafe(name string) bool {
	t, err := r.reg.Lookup(name)
	return err != nil || t.spec.Annotations.ParallelSafe // unknown tools fail at once
}

func (r *Runner) newID() string {
	r.idMu.Lock()
	r.idSeq++
	n := r.idSeq
	r.idMu.Unlock()
	return r.idBase + fmt.Sprint(n)
}

func (r *Runner) emit(e Event) {
	if r.opts.OnEvent == nil {
		return
	}
	r.eventMu.Lock()
	defer r.eventMu.Unlock()
	r.opts.OnEvent(e)
}

// gate applies the gate (and the approver) to a validated call. It returns
// the tool and arguments to run, errPending, or an error saying why the call
// may not run.
func (r *Runner) gate(ctx context.Context, c *Call, t *Tool, args json.RawMessage, req Request, faults *[]error) (*Tool, json.RawMessage, error) {
	d := r.opts.Gate.Decide(ctx, c, t, args)
	if d.Verdict == Ask {
		switch {
		case r.opts.Approver != nil:
			d = r.opts.Approver.Approve(ctx, c, t, args, d)
		case r.opts.PauseForApproval:
			return nil, nil, errPending{PendingCall{ID: c.ID, Tool: t.Name(), Arguments: args, Reason: d.Reason}}
		default:
			d = Decision{Verdict: Deny, Reason: "needs approval, which cannot be given here (no one to ask): " + d.Reason}
		}
	}
	switch d.Verdict {
	case Allow:
	case Deny:
		msg := "denied"
		if d.Reason != "" {
			msg += ": " + d.Reason
		}
		return nil, nil, errors.New(msg)
	default:
		return nil, nil, fmt.Errorf("denied: the policy gave no clear verdict (%q)", d.Verdict)
	}
	if d.Args != nil {
		req.Arguments = d.Args
		nt, nargs, err := r.Check(req)
		if err != nil {
			return nil, nil, fmt.Errorf("the arguments rewritten by a hook are invalid: %w", err)
		}
		return nt, nargs, nil
	}
	return t, args, nil
}

// Check looks up the tool req names and validates its arguments without
// running anything. It returns the tool and the arguments to pass (empty
// arguments become {}), or an error the model can act on: a
// *[NotFoundError], a *[schema.ValidationError] or a size error.
func (r *Runner) Check(req Request) (*Tool, json.RawMessage, error) {
	t, err := r.reg.Lookup(req.Name)
	if err != nil {
		return nil, nil, err
	}
	args := req.Arguments
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if len(args) > r.opts.MaxArgumentBytes {
		return nil, nil, fmt.Errorf("arguments are %d bytes; at most %d are allowed: pass large content in smaller pieces", len(args), r.opts.MaxArgumentBytes)
	}
	sch, err := t.compiled()
	if err != nil {
		return nil, nil, err
	}
	if err := sch.Validate(args); err != nil {
		return nil, nil, err
	}
	return t, args, nil
}

// Call executes one request; see [Runner.Run].
func (r *Runner) Call(ctx context.Context, tmpl Call, req Request) (Result, error) {
	c := &tmpl
	c.ID, c.Tool, c.emit = req.ID, req.Name, r.emit
	if c.ID == "" {
		c.ID = r.newID()
	}
	rec := r.opts.Recorder
	if rec != nil {
		if err := rec.RecordCall(ctx, c, req.Arguments); err != nil {
			return Failure("not run: the session could not record the call"), fmt.Errorf("record call %s: %w", c.ID, err)
		}
	}
	var faults []error
	res := r.call(ctx, c, req, &faults)
	if p, ok := res.Data.(errPending); ok {
		return Result{Error: p.Error()}, &ApprovalError{Calls: []PendingCall{p.call}}
	}
	if rec != nil {
		if err := rec.RecordResult(ctx, c, res); err != nil {
			faults = append(faults, fmt.Errorf("record result of %s: %w", c.ID, err))
		}
	}
	return res, errors.Join(faults...)
}

// call validates and executes one call and applies the output budget.
func (r *Runner) call(ctx context.Context, c *Call, req Request, faults *[]error) Result {
	start := time.Now()
	if r.opts.OnEvent != nil {
		r.emit(Event{Kind: EventStarted, CallID: c.ID, Tool: c.Tool})
	}
	res := r.execute(ctx, c, req, faults)
	res.Duration = time.Since(start)
	if len(res.Output) > r.opts.OutputLimit {
		res.Output = r.bound(c, res.Output)
	}
	if res.Duration > r.opts.SlowCall {
		r.opts.Logger.Warn("slow tool call", "tool", c.Tool, "call", c.ID, "duration", res.Duration)
	}
	if r.opts.OnEvent != nil {
		final := res
		r.emit(Event{Kind: EventFinished, CallID: c.ID, Tool: c.Tool, Result: &final, Duration: res.Duration})
	}
	return res
}

func (r *Runner) execute(ctx context.Context, c *Call, req Request, faults *[]error) Result {
	if err := ctx.Err(); err != nil {
		return Failure("cancelled before it started: " + causeText(ctx))
	}
	t, args, err := r.Check(req)
	if err == nil && r.opts.Gate != nil {
		t, args, err = r.gate(ctx, c, t, args, req, faults)
		if _, ok := err.(errPending); ok {
			return Result{Error: err.Error(), Data: err}
		}
		if err != nil {
			return Failure(err.Error())
		}
	}
	if err != nil {
		res := Failure(err.Error())
		if ve, ok := errors.AsType[*schema.ValidationError](err); ok {
			res.Error += "\nFix the arguments to match the tool's input schema and call it again."
			res.Data = map[string]any{"violations": ve.Violations}
		}
		return res
	}
	if t.spec.Annotations.ParallelSafe {
		r.exclude.RLock()
		defer r.exclude.RUnlock()
	} else {
		r.exclude.Lock()
		defer r.exclude.Unlock()
	}
	res := r.runAttempts(ctx, c, t, args, faults)
	if rv, ok := r.opts.Gate.(Reviewer); ok {
		res = rv.Review(ctx, c, args, res)
	}
	return res
}

// runAttempts runs a validated, permitted call, with its retries.
func (r *Runner) runAttempts(ctx context.Context, c *Call, t *Tool, args json.RawMessage, faults *[]error) Result {
	var prepared preparedCall
	if p, ok := t.handler.(preparer); ok {
		var res Result
		if prepared, res = p.prepare(args); prepared == nil {
			return res
		}
	}
	timeout := cmpOr(t.spec.Timeout, r.opts.Timeout)
	retries := min(t.spec.Retry.Attempts, MaxRetries)
	for attempt := 0; ; attempt++ {
		res, err := r.attempt(ctx, t, c, args, prepared, timeout)
		if err == nil {
			return res
		}
		var fatal *FatalError
		if errors.As(err, &fatal) {
			*faults = append(*faults, fmt.Errorf("tool %s (call %s): %w", c.Tool, c.ID, err))
			return Failure(err.Error())
		}
		if !IsRetriable(err) || attempt >= retries || ctx.Err() != nil {
			if attempt > 0 {
				return Failure(fmt.Sprintf("%v (after %d retries)", err, attempt))
			}
			return Failure(err.Error())
		}
		delay := r.opts.RetryBase << attempt
		r.opts.Logger.Info("retrying tool call", "tool", c.Tool, "call", c.ID, "attempt", attempt+1, "delay", delay, "err", err)
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return Failure(fmt.Sprintf("cancelled while waiting to retry after: %v", err))
		case <-timer.C:
		}
	}
}

// errTimeout is the cancellation cause of a call that ran out of time.
type errTimeout struct{ d time.Duration }

func (e errTimeout) Error() string { return fmt.Sprintf("timed out after %v", e.d) }

type outcome struct {
	res Result
	err error
}

// attempt runs the handler once under the call's timeout. A returned error
// is the handler's, for the retry logic; timeouts, cancellations and panics
// come back as failed results.
func (r *Runner) attempt(ctx context.Context, t *Tool, c *Call, args json.RawMessage, prepared preparedCall, timeout time.Duration) (Result, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout{timeout})
	defer cancel()
	var o outcome
	if r.opts.Inline {
		o = runHandler(cctx, t, c, args, prepared)
	} else {
		done := make(chan outcome, 1)
		go func() { done <- runHandler(cctx, t, c, args, prepared) }()
		select {
		case o = <-done:
		case <-cctx.Done():
			abandon := time.NewTimer(r.opts.AbandonAfter)
			select {
			case o = <-done:
				abandon.Stop()
			case <-abandon.C:
				r.opts.Logger.Error("tool ignored cancellation; abandoning it", "tool", c.Tool, "call", c.ID)
				return Failure(fmt.Sprintf("%s; the tool did not stop within %v and was abandoned", causeText(cctx), r.opts.AbandonAfter)), nil
			}
		}
	}
	if cctx.Err() != nil {
		// Whatever the handler returned, the model must hear why it stopped.
		msg := causeText(cctx)
		if o.res.Output != "" {
			o.res.Output += "\n"
		}
		o.res.Success = false
		o.res.Error = strings.TrimSpace(msg + "; " + o.res.Error)
		o.res.Error = strings.TrimSuffix(o.res.Error, ";")
		return o.res, nil
	}
	if o.err != nil {
		return Result{}, o.err
	}
	return o.res, nil
}

// runHandler calls the handler, turning a panic into a failed result.
func runHandler(ctx context.Context, t *Tool, c *Call, args json.RawMessage, prepared preparedCall) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = outcome{res: Failure(fmt.Sprintf("tool %s panicked: %v\n%s", c.Tool, p, shortStack()))}
		}
	}()
	if prepared != nil {
		o.res, o.err = prepared.run(ctx, c)
	} else {
		o.res, o.err = t.handler.Handle(ctx, c, args)
	}
	return o
}

// causeText says why ctx ended: "timed out after 60s" or "cancelled".
func causeText(ctx context.Context) string {
	var te errTimeout
	if errors.As(context.Cause(ctx), &te) {
		return te.Error()
	}
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return "timed out"
	}
	return "cancelled"
}

// shortStack returns the first frames of the panicking goroutine's stack.
func shortStack() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	// Skip the goroutine header and the runtime/debug and panic frames.
	var keep []string
	for i := 1; i+1 < len(lines) && len(keep) < 12; i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "runtime/debug.") || strings.HasPrefix(fn, "panic(") || strings.Contains(fn, "tool.shortStack") ||
			strings.HasPrefix(fn, "runtime.") || strings.Contains(fn, "tool.runHandler") {
			continue
		}
		keep = append(keep, fn, lines[i+1])
	}
	return strings.Join(keep, "\n")
}

// bound cuts out to the output limit, keeping the head (20%) and the tail
// (80%), and writes the whole output to a spill file.
func (r *Runner) bound(c *Call, out string) string {
	limit := r.opts.OutputLimit
	head := cutUTF8(out[:limit/5], false)
	tail := cutUTF8(out[len(out)-(limit-len(head)):], true)
	omitted := len(out) - len(head) - len(tail)
	where, err := r.spill(c, out)
	note := fmt.Sprintf("\n[... %d bytes omitted of %d; ", omitted, len(out))
	if err != nil {
		r.opts.Logger.Error("cannot write spill file", "call", c.ID, "err", err)
		note += "the full output could not be saved: " + err.Error() + " ...]\n"
	} else {
		note += "the full output is in " + where + "; read it in parts rather than whole ...]\n"
	}
	return head + note + tail
}

// cutUTF8 trims a partial UTF-8 sequence from the end of s (or, with
// fromStart, from its start).
func cutUTF8(s string, fromStart bool) string {
	if fromStart {
		for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
			if utf8.RuneStart(s[i]) {
				return s[i:]
			}
		}
		return s
	}
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if utf8.FullRuneInString(s[i:]) {
				return s
			}
			return s[:i]
		}
	}
	return s
}

// spill writes out to a file and returns the path the model should use.
func (r *Runner) spill(c *Call, out string) (string, error) {
	name := spillName(c)
	if r.opts.SpillDir == "" && c.Root != nil {
		rel := filepath.Join(".wield", "spill", name)
		if err := c.Root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return "", err
		}
		if err := c.Root.WriteFile(rel, []byte(out), 0o644); err != nil {
			return "", err
		}
		return rel, nil
	}
	dir := r.opts.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "wield-spill")
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(out), 0o644)
}

func spillName(c *Call) string { return SpillName(c, c.ID, ".txt") }

// SpillName returns the workspace-relative file name under .wield/spill
// for output a tool saves for call c: <session>/<name><ext>, with path
// separators in the parts made harmless. Tools that keep more output than
// they return (the shell's full log) save it there, beside the runner's
// own spill files.
func SpillName(c *Call, name, ext string) string {
	clean := func(s, empty string) string {
		s = strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r == 0 {
				return '_'
			}
			return r
		}, s)
		if s == "" || s == "." || s == ".." {
			return empty
		}
		return s
	}
	return filepath.Join(clean(c.SessionID, "run"), clean(name, "call")+ext)
}
