package tool

import "encoding/json"

// emit passes e to RunnerOptions.OnEvent, one event at a time.
func (r *Runner) emit(e Event) {
	if r.opts.OnEvent == nil {
		return
	}
	r.eventMu.Lock()
	defer r.eventMu.Unlock()
	r.opts.OnEvent(e)
}

// started reports that call c started with args.
func (r *Runner) started(c *Call, args json.RawMessage) {
	if r.opts.OnEvent != nil {
		r.emit(Event{Kind: EventStarted, CallID: c.ID, Tool: c.Tool, Arguments: args})
	}
}

// finished reports that call c finished with res.
func (r *Runner) finished(c *Call, res Result) {
	if r.opts.OnEvent != nil {
		final := res // escapes only when someone listens
		r.emit(Event{Kind: EventFinished, CallID: c.ID, Tool: c.Tool, Result: &final, Duration: res.Duration})
	}
}
