package registered_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/session"
)

// TestMCPServerRecords registers a server in round 1, confirms it, undoes
// the round, resumes the session, and redoes: what is in effect follows
// the rewinds, the records survive a reopen, and no value of the
// server's environment is ever stored.
func TestMCPServerRecords(t *testing.T) {
	ctx := t.Context()
	store := &session.Store{Dir: t.TempDir()}
	s, err := store.Create(ctx, session.Header{ID: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(ctx, "add a server"); err != nil {
		t.Fatal(err)
	}
	add := registered.Entry{Action: registered.Add, Name: "helper", Transport: "stdio", Command: "helper-mcp",
		Args: []string{"--fast"}, Env: []string{"API_KEY"}, CallID: "c1"}
	if err := (registered.Store{Sessions: store}).RecordMCPServer(ctx, "m1", add); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	names := func(st *session.State) string {
		var b strings.Builder
		for _, m := range registered.Servers(st) {
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
	if g, _ := registered.Groups(s.State()); !cmp.Equal(g, []string{"round:1"}) {
		t.Errorf("MCPGroups = %v, want [round:1]", g)
	}
	if _, err := registered.Append(s, registered.Entry{Action: registered.Confirm, Name: "helper"}); err != nil {
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
	if _, err := registered.Append(s, registered.Entry{Action: registered.Remove, Name: "helper", Group: r1.Group()}); err != nil {
		t.Fatal(err)
	}
	if got := names(s.State()); got != "" {
		t.Fatalf("after the undo: %q", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Resumed, the undo holds; undoing the undo brings it back confirmed.
	s, err = store.Open(ctx, "m1")
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
	if _, err := registered.Append(s, changed); err != nil {
		t.Fatal(err)
	}
	if got := names(s.State()); got != "helper" {
		t.Fatalf("after a new registration: %q", got)
	}
	if got := registered.Servers(s.State())[0].Added; got.Command != "other-mcp" || !cmp.Equal(got.Env, []string{"API_KEY"}) {
		t.Errorf("in effect: %+v", got)
	}
}

func TestMCPServerRecordChecked(t *testing.T) {
	store := &session.Store{Dir: t.TempDir()}
	s, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, r := range []registered.Entry{
		{Action: registered.Add, Command: "x"},
		{Action: registered.Add, Name: "x"},
		{Action: "rename", Name: "x"},
	} {
		if _, err := registered.Append(s, r); err == nil {
			t.Errorf("AppendMCPServer(%+v) = nil error", r)
		}
	}
	if n := len(registered.Entries(s.State())); n != 0 {
		t.Errorf("%d records kept", n)
	}
}

// FuzzMCPServerRecords reads journals with arbitrary mcp_server records
// among file records and rewinds: whatever loads folds to servers in
// effect that are adds, each name once, and groups placed within the
// file records.
func FuzzMCPServerRecords(f *testing.F) {
	h := `"` + strings.Repeat("a", 64) + `"`
	f.Add(`{"op":"mcp_server","mcp_server":{"action":"add","name":"x","command":"c","round":1,"group":"round:1"}}` + "\n" +
		`{"op":"mcp_server","mcp_server":{"action":"confirm","name":"x"}}` + "\n" +
		`{"op":"files","files":[{"root":"/w","path":"a","after_hash":` + h + `,"round":1,"group":"round:2","source":"tool"}]}` + "\n" +
		`{"op":"rewind","rewind":{"seq":1,"reverts":["round:1"]}}` + "\n" +
		`{"op":"mcp_server","mcp_server":{"action":"remove","name":"x","round":1,"group":"rewind:1"}}` + "\n")
	f.Add(`{"op":"mcp_server","mcp_server":{"action":"add","name":"x","url":"http://h","round":1,"group":"g"}}` + "\n" +
		`{"op":"mcp_server","mcp_server":{"action":"add","name":"x","url":"http://i","round":1,"group":"g"}}` + "\n")
	f.Add(`{"op":"mcp_server","mcp_server":{"action":"rename","name":"x","group":"g"}}` + "\n")
	f.Add(`{"op":"mcp_server"}` + "\n")
	f.Fuzz(func(t *testing.T, lines string) {
		dir := t.TempDir()
		header := `{"wield_session":1,"id":"f","created_at":"2026-11-23T12:00:00Z"}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, "f.jsonl"), []byte(header+lines), 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := (&session.Store{Dir: dir}).Load(t.Context(), "f")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, m := range registered.Servers(st) {
			if m.Added.Action != registered.Add || m.Added.Name == "" || seen[m.Added.Name] {
				t.Fatalf("in effect: %+v", m)
			}
			seen[m.Added.Name] = true
		}
		groups, pos := registered.Groups(st)
		if len(groups) != len(pos) {
			t.Fatalf("%d groups, %d positions", len(groups), len(pos))
		}
		for _, p := range pos {
			if p < 0 || p > len(st.Files) {
				t.Fatalf("position %d of %d file records", p, len(st.Files))
			}
		}
	})
}
