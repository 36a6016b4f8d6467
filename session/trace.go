package session

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// traced sets t's TraceID and SpanID to those of the span in ctx, if it
// carries a valid one (tracing is on; see package otel).
func traced(ctx context.Context, t *Turn) {
	sc := trace.SpanContextFromContext(ctx)
	if sc.IsValid() {
		t.TraceID, t.SpanID = sc.TraceID().String(), sc.SpanID().String()
	}
}

// Redact returns text with the secrets the store knows (its Secrets,
// Live, and the built-in patterns) replaced by [Redacted], as a journal
// would store it. Exporters of session content, such as traces that
// capture messages, pass their text through it.
func (s *Store) Redact(text string) string {
	red := s.redactor()
	return red.text(text)
}
