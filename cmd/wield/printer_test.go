package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/wieldhq/wield/agent"
)

// lockedBuffer is a bytes.Buffer safe for the spinner's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSpinnerNeverErasesOutput: the spinner's line is cleared before the
// answer or a tool line is printed, never after.
func TestSpinnerNeverErasesOutput(t *testing.T) {
	var out lockedBuffer
	g := &globals{stdout: &out, stderr: &out}
	p := &runPrinter{g: g, interactive: true}
	for range 50 {
		p.event(agent.Event{Kind: agent.EventRoundStarted, Round: 1})
		p.event(agent.Event{Kind: agent.EventText, Text: "answer"})
	}
	p.finish(&agent.Outcome{Reason: agent.StopAnswer})
	got := out.String()
	if n := strings.Count(got, "answer"); n != 50 {
		t.Fatalf("printed %d answers, want 50", n)
	}
	// After each piece of the answer, nothing may clear the line before
	// the next round starts (which prints a spinner frame first).
	for i, part := range strings.Split(got, "answer")[1:] {
		if j := strings.Index(part, "thinking"); strings.Contains(part[:max(j, 0)], "\033[K") || (j < 0 && strings.Contains(part, "\033[K")) {
			t.Fatalf("answer %d was erased by a line clear: %q", i+1, part)
		}
	}
}
