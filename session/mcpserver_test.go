package session_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/session"
)

// TestMCPServerRecords registers a server in round 1, confirms it, undoes
// the round, resumes the session, and redoes: what is in effect follows
// the rewinds, the records survive a reopen, and no value of the
// server's environment is ever stored.
func TestMCPServerRecords(t *testing.T) {
	ctx := t.Context()
	store := &session.Store{Dir: t.TempDir()}
	s, err := store.Create(session.Header{ID: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(ctx, "add a server"); err != nil {
		t.Fatal(err)
	}
	add := session.MCPServerRecord{Action: session.MCPServerAdd, Name: "helper", Transport: "stdio", Command: "helper-mcp",
		Args: []string{"--fast"}, Env: []string{"API_KEY"}, CallID: "c1"}
	if err := store.RecordMCPServer(ctx, "m1", add); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	names := func(st *session.State) string {
		var b strings.Builder
		for _, m := range st.MCPServers() {
			b.WriteString(m.Added.Name)
			if m.Confirmed {
				b.WriteString("(confirmed)")
			}
			b.WriteString(" ")
		}
		return strings.TrimSpace(b.String())
	}
	if got := names(s.State()); got != "helper" {
		t.Fatalf("after the add: %q", got)
	}
	if g, _ := s.State().MCPGroups(); !cmp.Equal(g, []string{"round:1"}) {
		t.Errorf("MCPGroups = %v, want [round:1]", g)
	}
	if _, err := s.AppendMCPServer(session.MCPServerRecord{Action: session.MCPServerConfirm, Name: "helper"}); err != nil {
		t.Fatal(err)
	}
	if got := names(s.State()); got != "helper(confirmed)" {
		t.Fatalf("after the confirmation: %q", got)
	}
	// Undo round 1: the server goes.
	r1, err := s.AppendRewind(session.Rewind{Reverts: []string{"round:1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMCPServer(session.MCPServerRecord{Action: session.MCPServerRemove, Name: "helper", Group: r1.Group()}); err != nil {
		t.Fatal(err)
	}
	if got := names(s.State()); got != "" {
		t.Fatalf("after the undo: %q", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Resumed, the undo holds; undoing the undo brings it back confirmed.
	s, err = store.Open("m1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := names(s.State()); got != "" {
		t.Fatalf("after the resume: %q", got)
	}
	if _, err := s.AppendRewind(session.Rewind{Reverts: []string{r1.Group()}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := names(s.State()); got != "helper(confirmed)" {
		t.Fatalf("after the redo: %q", got)
	}
	// Registered again with another command: it asks again.
	changed := add
	changed.Command = "other-mcp"
	if _, err := s.AppendMCPServer(changed); err != nil {
		t.Fatal(err)
	}
	if got := names(s.State()); got != "helper" {
		t.Fatalf("after a new registration: %q", got)
	}
	if got := s.State().MCPServers()[0].Added; got.Command != "other-mcp" || !cmp.Equal(got.Env, []string{"API_KEY"}) {
		t.Errorf("in effect: %+v", got)
	}
}

func TestMCPServerRecordChecked(t *testing.T) {
	store := &session.Store{Dir: t.TempDir()}
	s, err := store.Create(session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range []session.MCPServerRecord{
		{Action: session.MCPServerAdd, Command: "x"},
		{Action: session.MCPServerAdd, Name: "x"},
		{Action: "rename", Name: "x"},
	} {
		if _, err := s.AppendMCPServer(r); err == nil {
			t.Errorf("AppendMCPServer(%+v) = nil error", r)
		}
	}
	if n := len(s.State().MCPServerLog); n != 0 {
		t.Errorf("%d records kept", n)
	}
}
