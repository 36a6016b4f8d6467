package ledger_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/session"
)

// mcpNames returns the names of the MCP servers in effect in sess.
func mcpNames(sess *session.Session) []string {
	var out []string
	for _, m := range registered.Servers(sess.State()) {
		out = append(out, m.Added.Name)
	}
	return out
}

// TestUndoTakesAwayRegisteredMCPServer registers an MCP server in a round
// that changes no file: the undo takes it away and records the removal,
// and an undo of the undo brings it back as registered. A later round
// that edits a file and registers a server is then undone as one.
func TestUndoTakesAwayRegisteredMCPServer(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "one\n"})
	register := func(name string) {
		t.Helper()
		r := registered.Entry{Action: registered.Add, Name: name, Transport: "stdio", Command: name + "-mcp", Env: []string{"TOKEN"}}
		if err := (registered.Store{Sessions: e.store}).RecordMCPServer(t.Context(), e.sess.ID(), r); err != nil {
			t.Fatal(err)
		}
	}
	e.round("register a server", func() { register("first") })
	if got := mcpNames(e.sess); !cmp.Equal(got, []string{"first"}) {
		t.Fatalf("servers = %v", got)
	}
	// Round 1 changed no file, yet it is the undo's.
	plan, err := e.undoLast(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(plan.Groups, []string{"round:1"}) || len(plan.MCP) != 1 || !plan.MCP[0].Remove || plan.MCP[0].Name != "first" {
		t.Errorf("plan: groups %v, MCP %+v", plan.Groups, plan.MCP)
	}
	if got := mcpNames(e.sess); len(got) != 0 {
		t.Fatalf("after the undo: servers %v", got)
	}
	log := registered.Entries(e.sess.State())
	if last := log[len(log)-1]; last.Action != registered.Remove || last.Name != "first" || last.Group != "rewind:1" {
		t.Errorf("the removal is recorded as %+v", last)
	}
	// The undo of the undo brings it back, as registered.
	plan, err = e.undoLast(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(plan.Groups, []string{"rewind:1"}) || len(plan.MCP) != 1 || plan.MCP[0].Remove || plan.MCP[0].Server.Command != "first-mcp" {
		t.Errorf("redo plan: groups %v, MCP %+v", plan.Groups, plan.MCP)
	}
	if got := mcpNames(e.sess); !cmp.Equal(got, []string{"first"}) {
		t.Fatalf("after the redo: servers %v", got)
	}

	e.round("edit and register", func() {
		e.call("write_file", map[string]any{"path": "a.txt", "content": "two\n"})
		register("second")
	})
	plan, err = e.undoLast(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.MCPAction{{Name: "second", Remove: true}}
	if diff := cmp.Diff(want, plan.MCP, cmpopts.IgnoreFields(ledger.MCPAction{}, "Server")); diff != "" || !cmp.Equal(plan.Groups, []string{"round:2"}) {
		t.Errorf("plan of the undo: groups %v, MCP (-want +got):\n%s", plan.Groups, diff)
	}
	if got := mcpNames(e.sess); !cmp.Equal(got, []string{"first"}) || read(t, e.root, "a.txt") != "one\n" {
		t.Fatalf("after undoing round 2: servers %v, a.txt %q", got, read(t, e.root, "a.txt"))
	}
}

// TestRewindTakesAwayMCPServersFromTheRound rewinds to the start of the
// round that registered a server.
func TestRewindTakesAwayMCPServersFromTheRound(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "one\n"})
	e.round("edit", func() { e.call("write_file", map[string]any{"path": "a.txt", "content": "two\n"}) })
	e.round("register", func() {
		r := registered.Entry{Action: registered.Add, Name: "late", Transport: "http", URL: "http://127.0.0.1:1/mcp"}
		if err := (registered.Store{Sessions: e.store}).RecordMCPServer(t.Context(), e.sess.ID(), r); err != nil {
			t.Fatal(err)
		}
	})
	plan, err := ledger.PlanRewind(e.sess.State(), 2, ledger.Scope{Code: true})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(plan.Groups, []string{"round:2"}) || len(plan.MCP) != 1 || len(plan.Actions) != 0 || plan.Empty() {
		t.Fatalf("plan: groups %v, MCP %+v, actions %+v", plan.Groups, plan.MCP, plan.Actions)
	}
	if _, err := ledger.Apply(t.Context(), e.sess, plan, nil); err != nil {
		t.Fatal(err)
	}
	if got := mcpNames(e.sess); len(got) != 0 || read(t, e.root, "a.txt") != "two\n" {
		t.Errorf("after the rewind: servers %v, a.txt %q", got, read(t, e.root, "a.txt"))
	}
}
