package main

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/wieldhq/wield/session"
)

// TestHint checks the advice the command line adds to the session
// library's typed errors, which carry no command of wield's themselves.
func TestHint(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"busy", &session.BusyError{ID: "s1", PID: 42}, "; wait for it to finish, or fork the session with `wield session fork s1 --at N`"},
		{"busy, wrapped", fmt.Errorf("run: %w", &session.BusyError{ID: "s2"}), "; wait for it to finish, or fork the session with `wield session fork s2 --at N`"},
		{"not found", fmt.Errorf("session x: %w", session.ErrNotFound), "; list sessions with `wield session ls`"},
		{"other", errors.New("disk full"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hint(tt.err); got != tt.want {
				t.Errorf("hint(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// TestHint_BusySession opens a session twice, as two runs would, and
// checks the whole line wield prints: the library's message, then the
// command line's advice.
func TestHint_BusySession(t *testing.T) {
	st := &session.Store{Dir: t.TempDir()}
	s, err := st.Create(t.Context(), session.Header{ID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = (&session.Store{Dir: st.Dir}).Open(t.Context(), "s")
	if err == nil {
		t.Fatal("second Open succeeded, want a BusyError")
	}
	got := err.Error() + hint(err)
	want := fmt.Sprintf("session s is in use by another wield process (pid %d); wait for it to finish, or fork the session with `wield session fork s --at N`", os.Getpid())
	if got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
