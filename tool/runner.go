package tool

// The runner takes each call through three stages, one file each:
// the gate (runner_gate.go: validation, the policy, approval), execution
// (runner_execute.go: exclusion, timeouts, retries, panics) and the output
// budget (runner_spill.go). It reports them as events (runner_events.go).
// This file batches the calls and records them.

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"
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
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.MaxParallel = cmp.Or(o.MaxParallel, DefaultMaxParallel)
	o.OutputLimit = cmp.Or(o.OutputLimit, DefaultOutputLimit)
	o.MaxArgumentBytes = cmp.Or(o.MaxArgumentBytes, DefaultMaxArgumentBytes)
	o.RetryBase = cmp.Or(o.RetryBase, DefaultRetryBase)
	o.SlowCall = cmp.Or(o.SlowCall, DefaultSlowCall)
	o.AbandonAfter = cmp.Or(o.AbandonAfter, DefaultAbandonAfter)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	r.idBase = "call_" + hex.EncodeToString(b[:]) + "_"
	return r
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
		calls[i] = r.newCall(tmpl, reqs[i])
	}
	if rec := r.opts.Recorder; rec != nil {
		for i := range calls {
			if err := rec.RecordCall(ctx, &calls[i], reqs[i].Arguments); err != nil {
				return r.failAll(calls, "not run: the session could not record the call"), fmt.Errorf("record call %s: %w", calls[i].ID, err)
			}
		}
	}
	results := make([]Result, len(reqs))
	outs := make([]callOutcome, len(reqs))
	var faults []error
	var pending []PendingCall
	for start := 0; start < len(reqs); {
		end := start + 1
		if r.parallelSafe(reqs[start].Name) {
			for end < len(reqs) && r.parallelSafe(reqs[end].Name) {
				end++
			}
		}
		if end-start == 1 {
			outs[start] = r.call(ctx, &calls[start], reqs[start])
		} else {
			r.runParallel(ctx, calls[start:end], reqs[start:end], outs[start:end])
		}
		// Results are recorded batch by batch, before the next batch runs,
		// so that the journal keeps up with the calls.
		for i := start; i < end; i++ {
			results[i] = outs[i].res
			if err := r.settle(ctx, &calls[i], outs[i]); err != nil {
				faults = append(faults, err)
			}
			if p := outs[i].pending; p != nil {
				pending = append(pending, *p)
			}
		}
		start = end
	}
	if len(pending) > 0 {
		faults = append(faults, &ApprovalError{Calls: pending})
	}
	return results, errors.Join(faults...)
}

// Call executes one request; see [Runner.Run].
func (r *Runner) Call(ctx context.Context, tmpl Call, req Request) (Result, error) {
	c := r.newCall(tmpl, req)
	if rec := r.opts.Recorder; rec != nil {
		if err := rec.RecordCall(ctx, &c, req.Arguments); err != nil {
			return Failure("not run: the session could not record the call"), fmt.Errorf("record call %s: %w", c.ID, err)
		}
	}
	o := r.call(ctx, &c, req)
	err := r.settle(ctx, &c, o)
	if o.pending != nil {
		err = &ApprovalError{Calls: []PendingCall{*o.pending}}
	}
	return o.res, err
}

// A callOutcome is what one call came to: the result the model reads and
// what the run must hear besides.
type callOutcome struct {
	res Result
	// pending, if not nil, is the call left awaiting approval: res says so
	// and is not recorded, and the run returns an *[ApprovalError].
	pending *PendingCall
	// fault, if not nil, must stop the run: the tool returned a [Fatal]
	// error.
	fault error
	// waited is how long the approver took to deny the call.
	waited time.Duration
}

// failed returns the outcome of a call that failed with msg.
func failed(msg string) callOutcome { return callOutcome{res: Failure(msg)} }

// call takes one call through the stages: the gate, execution and the
// output budget, reporting its start and finish as events.
func (r *Runner) call(ctx context.Context, c *Call, req Request) callOutcome {
	start := time.Now()
	spec := r.eventSpec(c.Tool)
	r.started(c, spec, req.Arguments)
	p, o, ok := r.admit(ctx, c, req)
	waited := o.waited
	if ok {
		waited = p.waited
		o = r.execute(ctx, c, p)
	}
	// The time a person took to answer is not the tool's: it counts
	// neither in the duration nor towards a slow call.
	o.res.Duration = time.Since(start) - waited
	if len(o.res.Output) > r.opts.OutputLimit {
		o.res.Output = r.bound(c, o.res.Output)
	}
	if o.res.Duration > r.opts.SlowCall {
		r.opts.Logger.Warn("slow tool call", "tool", c.Tool, "call", c.ID, "duration", o.res.Duration)
	}
	r.finished(c, spec, o.res)
	return o
}

// settle records the result of a finished call, unless it awaits
// approval, and returns the faults it must pass on: the tool's and the
// Recorder's.
func (r *Runner) settle(ctx context.Context, c *Call, o callOutcome) error {
	rec := r.opts.Recorder
	if o.pending != nil || rec == nil {
		return o.fault
	}
	if err := rec.RecordResult(ctx, c, o.res); err != nil {
		return errors.Join(o.fault, fmt.Errorf("record result of %s: %w", c.ID, err))
	}
	return o.fault
}

func (r *Runner) runParallel(ctx context.Context, calls []Call, reqs []Request, outs []callOutcome) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, r.opts.MaxParallel)
	for i := range reqs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			outs[i] = r.call(ctx, &calls[i], reqs[i])
		})
	}
	wg.Wait()
}

// newCall returns the Call for req: a copy of tmpl with the call's id
// (made up if the model gave none) and tool name.
func (r *Runner) newCall(tmpl Call, req Request) Call {
	c := tmpl
	c.ID, c.Tool, c.emit = req.ID, req.Name, r.emit
	if c.ID == "" {
		c.ID = r.newID()
	}
	return c
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
