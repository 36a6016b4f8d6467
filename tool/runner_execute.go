package tool

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// execute is the execution stage: it runs a permitted call under the
// runner's exclusion lock, with its retries, and lets a [Reviewer] gate
// see the result.
func (r *Runner) execute(ctx context.Context, c *Call, p permit) callOutcome {
	if p.tool.spec.Annotations.ParallelSafe {
		r.exclude.RLock()
		defer r.exclude.RUnlock()
	} else {
		r.exclude.Lock()
		defer r.exclude.Unlock()
	}
	o := r.runAttempts(ctx, c, p.tool, p.args)
	if rv, ok := r.opts.Gate.(Reviewer); ok {
		o.res = rv.Review(ctx, c, p.args, o.res)
	}
	return o
}

// runAttempts runs a validated, permitted call, with its retries.
func (r *Runner) runAttempts(ctx context.Context, c *Call, t *Tool, args json.RawMessage) callOutcome {
	var prepared preparedCall
	if p, ok := t.handler.(preparer); ok {
		var res Result
		if prepared, res = p.prepare(args); prepared == nil {
			return callOutcome{res: res}
		}
	}
	timeout := cmp.Or(t.spec.Timeout, r.opts.Timeout)
	retries := min(t.spec.Retry.Attempts, MaxRetries)
	for attempt := 0; ; attempt++ {
		res, err := r.attempt(ctx, t, c, args, prepared, timeout)
		if err == nil {
			return callOutcome{res: res}
		}
		var fatal *FatalError
		if errors.As(err, &fatal) {
			return callOutcome{res: Failure(err.Error()), fault: fmt.Errorf("tool %s (call %s): %w", c.Tool, c.ID, err)}
		}
		if !IsRetriable(err) || attempt >= retries || ctx.Err() != nil {
			if attempt > 0 {
				return failed(fmt.Sprintf("%v (after %d retries)", err, attempt))
			}
			return failed(err.Error())
		}
		delay := r.opts.RetryBase << attempt
		r.opts.Logger.Info("retrying tool call", "tool", c.Tool, "call", c.ID, "attempt", attempt+1, "delay", delay, "err", err)
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return failed(fmt.Sprintf("cancelled while waiting to retry after: %v", err))
		case <-timer.C:
		}
	}
}

// errTimeout is the cancellation cause of a call that ran out of time.
type errTimeout struct{ d time.Duration }

func (e errTimeout) Error() string { return fmt.Sprintf("timed out after %v", e.d) }

// handled is what a handler returned.
type handled struct {
	res Result
	err error
}

// attempt runs the handler once under the call's timeout. A returned error
// is the handler's, for the retry logic; timeouts, cancellations and panics
// come back as failed results.
func (r *Runner) attempt(ctx context.Context, t *Tool, c *Call, args json.RawMessage, prepared preparedCall, timeout time.Duration) (Result, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout{timeout})
	defer cancel()
	var o handled
	if r.opts.Inline {
		o = runHandler(cctx, t, c, args, prepared)
	} else {
		done := make(chan handled, 1)
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
		if !strings.HasPrefix(o.res.Error, msg) { // a tool that says it itself is not repeated
			o.res.Error = strings.TrimSuffix(strings.TrimSpace(msg+"; "+o.res.Error), ";")
		}
		return o.res, nil
	}
	if o.err != nil {
		return Result{}, o.err
	}
	return o.res, nil
}

// runHandler calls the handler, turning a panic into a failed result.
func runHandler(ctx context.Context, t *Tool, c *Call, args json.RawMessage, prepared preparedCall) (o handled) {
	defer func() {
		if p := recover(); p != nil {
			o = handled{res: Failure(fmt.Sprintf("tool %s panicked: %v\n%s", c.Tool, p, shortStack()))}
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
