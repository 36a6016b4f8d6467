package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundLog records what a RoundObserver is told, and when, among the tool
// calls.
type roundLog struct {
	log []string
	err error // returned by RoundEnded
}

func (r *roundLog) RoundStarted(_ context.Context, id string) error {
	r.log = append(r.log, "started "+id)
	return nil
}

func (r *roundLog) RoundEnded(ctx context.Context, id string) error {
	if ctx.Err() != nil {
		return errors.New("RoundEnded got a cancelled context")
	}
	r.log = append(r.log, "ended "+id)
	return r.err
}

func TestAgent_RoundsObserverAroundTheRun(t *testing.T) {
	p := script(t,
		`{"turn":1,"round":1,"tool_calls":[{"id":"a","name":"echo","arguments":{"text":"one"}}]}`,
		`{"turn":1,"round":2,"text":"done"}`)
	obs := &roundLog{}
	a := newAgent(t, p, testRegistry(t), Config{Rounds: obs, OnEvent: func(e Event) {
		if e.Kind == EventToolFinished {
			obs.log = append(obs.log, "call "+e.Call.CallID)
		}
	}})
	if _, err := a.Run(t.Context(), NewMemorySession("s1"), "task"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"started s1", "call a", "ended s1"}, obs.log); diff != "" {
		t.Errorf("observer calls (-want +got):\n%s", diff)
	}
}

func TestAgent_RoundEndedErrorAbortsTheRun(t *testing.T) {
	p := script(t, `{"turn":1,"round":1,"text":"done"}`)
	obs := &roundLog{err: errors.New("disk full")}
	a := newAgent(t, p, testRegistry(t), Config{Rounds: obs})
	s := NewMemorySession("s1")
	_, err := a.Run(t.Context(), s, "task")
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Run = %v, want the observer's error", err)
	}
	if !slices.Contains(obs.log, "ended s1") {
		t.Errorf("RoundEnded was not called: %v", obs.log)
	}
}
