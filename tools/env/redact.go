package env

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// RedactResults returns a gate that decides as g does (nil g allows every
// call) and, as a [tool.Reviewer], hides the secrets of s in every result
// (its output, error and data) after g's own review: the model, the
// journal and the runner's events (printed with --json) then see
// [session.Redacted] in their place.
func RedactResults(g tool.Gate, s *session.SecretSet) tool.Gate {
	return redactGate{g, s}
}

type redactGate struct {
	g tool.Gate
	s *session.SecretSet
}

func (r redactGate) Decide(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage) tool.Decision {
	if r.g == nil {
		return tool.Decision{Verdict: tool.Allow}
	}
	return r.g.Decide(ctx, c, t, args)
}

func (r redactGate) Review(ctx context.Context, c *tool.Call, args json.RawMessage, res tool.Result) tool.Result {
	if rv, ok := r.g.(tool.Reviewer); ok {
		res = rv.Review(ctx, c, args, res)
	}
	if r.s.Len() == 0 {
		return res
	}
	res.Output, res.Error = r.s.Redact(res.Output), r.s.Redact(res.Error)
	res.Data = redactData(res.Data, r.s)
	return res
}

// redactData returns v with the secrets of s hidden in its JSON form, or
// v itself when it holds none.
func redactData(v any, s *session.SecretSet) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	red := s.RedactJSON(b)
	if string(red) == string(b) {
		return v
	}
	var out any
	if json.Unmarshal(red, &out) != nil {
		return v
	}
	return out
}

// RedactEvent returns e with the secrets of s hidden in its arguments,
// message, data and result. A tool's progress events (a shell command's
// streamed output) reach the printed events (--json) before any result
// does, so the host passes each one through RedactEvent as well as
// [RedactResults].
func RedactEvent(e tool.Event, s *session.SecretSet) tool.Event {
	if s.Len() == 0 {
		return e
	}
	if e.Arguments != nil {
		e.Arguments = s.RedactJSON(e.Arguments)
	}
	e.Message = s.Redact(e.Message)
	e.Data = redactData(e.Data, s)
	if e.Result != nil {
		r := *e.Result
		r.Output, r.Error, r.Data = s.Redact(r.Output), s.Redact(r.Error), redactData(r.Data, s)
		e.Result = &r
	}
	return e
}

// RedactLogs returns a handler that hides the secrets of s in every
// record's message and string attributes (in groups too) before h sees
// it.
func RedactLogs(h slog.Handler, s *session.SecretSet) slog.Handler {
	return redactHandler{h, s}
}

type redactHandler struct {
	h slog.Handler
	s *session.SecretSet
}

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	if r.s.Len() == 0 {
		return r.h.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, r.s.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.s.Redact(v.String()))
	case slog.KindGroup:
		as := v.Group()
		out := make([]any, len(as))
		for i, g := range as {
			out[i] = r.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, r.s.Redact(err.Error()))
		}
		if b, err := json.Marshal(v.Any()); err == nil {
			if red := r.s.RedactJSON(b); string(red) != string(b) {
				return slog.String(a.Key, string(red))
			}
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (r redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = r.attr(a)
	}
	return redactHandler{r.h.WithAttrs(red), r.s}
}

func (r redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{r.h.WithGroup(name), r.s}
}
