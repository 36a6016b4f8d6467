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
		"todo":                   {Valid: []string{`{"todos":[]}`, `{"todos":[{"title":"a","status":"completed"}]}`, `{"todos":[{"title":"a","status":"blocked","description":"why"}]}`}, Invalid: []string{`{}`, `{"todos":[{"title":"a","status":"later"}]}`, `{"todos":[{"status":"done"}]}`}},
		"write_todos":            {Valid: []string{`{"todos":[]}`, `{"todos":[{"title":"a","status":"done"}]}`}, Invalid: []string{`{}`, `{"todos":[{"title":"a","status":"later"}]}`, `{"todos":[{"status":"done"}]}`}},
		"update_plan":            {Valid: []string{`{"plan":[]}`, `{"explanation":"x","plan":[{"step":"a","status":"in_progress"}]}`}, Invalid: []string{`{}`, `{"plan":[{"step":"a","status":"done"}]}`, `{"plan":[{"step":"a"}]}`, `{"plan":[],"extra":1}`}},
		"delete_todos":           {Valid: []string{`{}`}, Invalid: []string{`{"x":1}`}},
		"get_session":            {Valid: []string{`{}`, `{"session_id":"s"}`, `{"turn":3}`}, Invalid: []string{`{"session_id":1}`, `{"turn":"3"}`}},
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
	s, err := st.Create(ctx, session.Header{ID: "cur", Purpose: "fix the bug"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := st.Create(ctx, session.Header{ID: "other"})
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
		{"get_session", `{}`, true, "[>] fix"},
		{"get_session", `{}`, true, "Purpose: fix the bug"},
		{"get_session", `{}`, true, "1 in the open transaction"},
		{"get_session", `{"session_id":"nope"}`, false, "session not found"},
		{"compress_session_turns", `{"start_turn":1,"end_turn":2,"summary":"did one and two"}`, true, "now has 2 turns (was 3)"},
		{"compress_session_turns", `{"start_turn":2,"end_turn":5,"summary":"x"}`, false, "open transaction"},
		{"compress_session_turns", `{"start_turn":2,"end_turn":1,"summary":"x"}`, false, "inverted"},
		{"get_session", `{}`, true, "compressed_history of turns 1-2: did one and two"},
		{"get_session", `{"turn":2}`, true, "Turn 2 of session cur: user_task\ntwo"},
		{"get_session", `{"turn":4}`, true, "user_task\nnow"},
		{"get_session", `{"turn":9}`, false, "has no turn 9; it has turns 1-4"},
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

// TestTodoFamily: todo, write_todos and update_plan write one list, each
// returns it rendered, and a list the session refuses leaves the last one
// in place with a message that says what to change.
func TestTodoFamily(t *testing.T) {
	ctx := t.Context()
	st := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	s, err := st.Create(ctx, session.Header{ID: "cur"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg, err := tool.NewRegistry(Tools(st)...)
	if err != nil {
		t.Fatal(err)
	}
	run := tool.NewRunner(reg, nil)
	do := func(name, args string) tool.Result {
		t.Helper()
		res, err := run.Call(ctx, tool.Call{SessionID: "cur"}, tool.Request{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := `{"todos":[{"title":"read","status":"completed"},{"title":"fix","status":"in_progress","description":"in main.go"},` +
		`{"title":"test","status":"pending"},{"title":"docs","status":"cancelled"},{"title":"deploy","status":"blocked"},{"title":"old","status":"done"}]}`
	res := do("todo", all)
	want := "[x] read\n[>] fix — in main.go\n[ ] test\n[-] docs\n[!] deploy\n[x] old\n2 of 6 done."
	if !res.Success || res.Output != want {
		t.Errorf("todo = %+v\nwant output:\n%s", res, want)
	}
	tests := []struct {
		name, tool, args string
		ok               bool
		want             string
		todos            int // the list's length afterwards
	}{
		{"two in progress", "todo", `{"todos":[{"title":"a","status":"in_progress"},{"title":"b","status":"in_progress"}]}`, false, "at most one may be", 6},
		{"empty title", "todo", `{"todos":[{"title":"","status":"pending"}]}`, false, "todo 1 has no title", 6},
		{"update_plan", "update_plan", `{"explanation":"narrowed","plan":[{"step":"scan","status":"completed"},{"step":"patch","status":"in_progress"}]}`, true, "[x] scan\n[>] patch\n1 of 2 done.", 2},
		{"update_plan two in progress", "update_plan", `{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`, false, "at most one", 2},
		{"write_todos", "write_todos", `{"todos":[{"title":"one","status":"pending"}]}`, true, "[ ] one\n0 of 1 done.", 1},
		{"empty list", "todo", `{"todos":[]}`, true, "The todo list is empty.", 0},
	}
	for _, tt := range tests {
		res := do(tt.tool, tt.args)
		if res.Success != tt.ok || !strings.Contains(res.ForModel(), tt.want) {
			t.Errorf("%s: %s = success %v %q; want success %v and %q", tt.name, tt.tool, res.Success, res.ForModel(), tt.ok, tt.want)
		}
		if n := len(s.Todos()); n != tt.todos {
			t.Errorf("%s: the list has %d todos afterwards, want %d", tt.name, n, tt.todos)
		}
	}
	// Only todo is offered; the aliases are hidden but callable.
	var visible []string
	for _, tl := range reg.Visible() {
		if strings.Contains(tl.Name(), "todo") || tl.Name() == "update_plan" {
			visible = append(visible, tl.Name())
		}
	}
	if strings.Join(visible, ",") != "delete_todos,todo" {
		t.Errorf("visible todo tools = %v, want delete_todos and todo", visible)
	}
	// The list is in the journal: a reloaded session has it.
	do("todo", all)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := st.Load(ctx, "cur")
	if err != nil {
		t.Fatal(err)
	}
	if len(st2.Todos) != 6 || st2.Todos[1].Status != session.TodoInProgress || st2.Todos[4].Status != session.TodoBlocked {
		t.Errorf("reloaded todos = %v, want the six written last", st2.Todos)
	}
}
