package sessiontool

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

func TestContracts(t *testing.T) {
	cases := map[string]tooltest.Cases{
		"write_todos":            {Valid: []string{`{"todos":[]}`, `{"todos":[{"title":"a","status":"done"}]}`}, Invalid: []string{`{}`, `{"todos":[{"title":"a","status":"later"}]}`, `{"todos":[{"status":"done"}]}`}},
		"delete_todos":           {Valid: []string{`{}`}, Invalid: []string{`{"x":1}`}},
		"get_session":            {Valid: []string{`{}`, `{"session_id":"s"}`}, Invalid: []string{`{"session_id":1}`}},
		"compress_session_turns": {Valid: []string{`{"start_turn":1,"end_turn":2,"summary":"s"}`}, Invalid: []string{`{"start_turn":1}`, `{"start_turn":"1","end_turn":2,"summary":"s"}`}},
		"delete_session":         {Valid: []string{`{"session_id":"s"}`}, Invalid: []string{`{}`}},
	}
	for _, tl := range Tools(nil) {
		c, ok := cases[tl.Name()]
		if !ok {
			t.Errorf("no contract cases for %s", tl.Name())
			continue
		}
		if err := tooltest.Check(t.Context(), tl, c); err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
		}
	}
}

func TestTools(t *testing.T) {
	ctx := t.Context()
	st := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := st.Create(session.Header{ID: "cur", Purpose: "fix the bug"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := st.Create(session.Header{ID: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"one", "two", "three"} {
		if err := s.Begin(ctx, task); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Begin(ctx, "now"); err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(Tools(st)...)
	if err != nil {
		t.Fatal(err)
	}
	run := tool.NewRunner(reg, nil)
	tmpl := tool.Call{SessionID: "cur"}
	do := func(name, args string) tool.Result {
		t.Helper()
		res, err := run.Call(ctx, tmpl, tool.Request{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tests := []struct {
		name, args string
		ok         bool
		want       string
	}{
		{"write_todos", `{"todos":[{"title":"read","status":"done"},{"title":"fix","status":"in_progress"}]}`, true, "1 of 2 done"},
		{"get_session", `{}`, true, "[~] fix"},
		{"get_session", `{}`, true, "Purpose: fix the bug"},
		{"get_session", `{}`, true, "1 in the open transaction"},
		{"get_session", `{"session_id":"nope"}`, false, "session not found"},
		{"compress_session_turns", `{"start_turn":1,"end_turn":2,"summary":"did one and two"}`, true, "now has 2 turns (was 3)"},
		{"compress_session_turns", `{"start_turn":2,"end_turn":5,"summary":"x"}`, false, "open transaction"},
		{"compress_session_turns", `{"start_turn":2,"end_turn":1,"summary":"x"}`, false, "inverted"},
		{"get_session", `{}`, true, "compressed_history of turns 1-2: did one and two"},
		{"delete_todos", `{}`, true, "Deleted the todo list"},
		{"delete_todos", `{}`, true, "nothing changed"},
		{"delete_session", `{"session_id":"cur"}`, false, "cannot delete itself"},
		{"delete_session", `{"session_id":"nope"}`, false, "not found"},
		{"delete_session", `{"session_id":"other"}`, true, "Deleted session other"},
		{"get_session", `{"session_id":"other"}`, false, "not found"},
	}
	for _, tt := range tests {
		res := do(tt.name, tt.args)
		text := res.ForModel()
		if res.Success != tt.ok || !strings.Contains(text, tt.want) {
			t.Errorf("%s %s = success %v %q; want success %v and %q", tt.name, tt.args, res.Success, text, tt.ok, tt.want)
		}
	}
	if got := s.Todos(); len(got) != 0 {
		t.Errorf("todos after delete_todos = %v", got)
	}
	// Without a session service the tools fail clearly.
	bare, err := tool.NewRegistry(Tools(nil)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.NewRunner(bare, nil).Call(ctx, tool.Call{}, tool.Request{Name: "delete_todos", Arguments: json.RawMessage(`{}`)})
	if err != nil || res.Success || !strings.Contains(res.Error, "no session service") {
		t.Errorf("without a service: %+v, %v", res, err)
	}
}
