package session

import (
	"testing"
)

// TestRunOwnerKeepsTransaction checks that a transaction a durable run
// owns survives its writer closing the session (another worker goes on
// with it), while one nobody owns is repaired as before.
func TestRunOwnerKeepsTransaction(t *testing.T) {
	for _, owned := range []bool{true, false} {
		store := &Store{Dir: t.TempDir()}
		s, err := store.Create(t.Context(), Header{ID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if owned {
			if err := s.Set(map[string]any{MetaRunOwner: "wf-1"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Begin(t.Context(), "task"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err = store.Open(t.Context(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		if got := s.State().Open(); got != owned {
			t.Fatalf("owned=%v: transaction open after reopening = %v", owned, got)
		}
		if owned {
			// The owner closes it; then the key goes.
			if err := s.Commit(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := s.Set(map[string]any{MetaRunOwner: nil}); err != nil {
				t.Fatal(err)
			}
			if _, ok := s.State().Meta[MetaRunOwner]; ok {
				t.Fatal("the owner key stayed after it was removed")
			}
		}
		s.Close()
	}
}
