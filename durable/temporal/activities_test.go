package temporal

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/session"
)

type storeHost struct{ store *session.Store }

func (h storeHost) Sessions() *session.Store { return h.store }

func (h storeHost) Agent(context.Context, string) (*agent.Agent, error) { return nil, nil }

// TestActivitiesShareSessions has many activities of a worker use a few
// sessions at once: each gets the one open session, and the last to
// finish with a session closes it (its writer lock goes with it).
func TestActivitiesShareSessions(t *testing.T) {
	store := &session.Store{Dir: t.TempDir()}
	for i := range 3 {
		s, err := store.Create(t.Context(), session.Header{ID: fmt.Sprintf("s%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	a := NewActivities(storeHost{store})
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			id := fmt.Sprintf("s%d", i%3)
			err := a.with(t.Context(), id, func(s *session.Session) error {
				return s.Set(map[string]any{fmt.Sprint("k", i): i})
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(a.open) != 0 {
		t.Fatalf("%d sessions left open", len(a.open))
	}
	for i := range 3 {
		id := fmt.Sprintf("s%d", i)
		if _, ok := store.Writer(id); ok {
			t.Fatalf("session %s is still open for writing", id)
		}
		st, err := store.Load(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Meta) != 20 {
			t.Fatalf("session %s has %d of its 20 values", id, len(st.Meta))
		}
	}
}
