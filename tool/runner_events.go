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

// eventSpec returns the spec that the events of a call of name carry:
// a copy of the tool's, or nil when the tool is unknown or nobody
// listens.
func (r *Runner) eventSpec(name string) *Spec {
	if r.opts.OnEvent == nil {
		return nil
	}
	t, ok := r.reg.get(name)
	if !ok {
		return nil
	}
	s := t.Spec()
	return &s
}

// started reports that call c of the tool spec describes started with
// args.
func (r *Runner) started(c *Call, spec *Spec, args json.RawMessage) {
	if r.opts.OnEvent != nil {
		r.emit(Event{Kind: EventStarted, CallID: c.ID, Tool: c.Tool, Spec: spec, Arguments: args})
	}
}

// finished reports that call c of the tool spec describes finished with
// res.
func (r *Runner) finished(c *Call, spec *Spec, res Result) {
	if r.opts.OnEvent != nil {
		final := res // escapes only when someone listens
		r.emit(Event{Kind: EventFinished, CallID: c.ID, Tool: c.Tool, Spec: spec, Result: &final, Duration: res.Duration})
	}
}
