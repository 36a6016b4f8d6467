package session_test

import (
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/sessiontest"
)

// TestFileBackend runs the backend conformance suite on the file backend:
// a Store whose Backend is nil.
func TestFileBackend(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) func() *session.Store {
		dir := t.TempDir()
		return func() *session.Store { return &session.Store{Dir: dir} }
	})
}
