package sessiontool

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed todo.md
var todoDescription string

// TodoInput is the argument object of todo (and of write_todos, its
// hidden alias).
type TodoInput struct {
	Todos []session.Todo `json:"todos" jsonschema:"the complete todo list, in order; it replaces the previous one"`
}

// Todo returns the todo tool, which replaces the todo list of the call's
// session and returns it rendered. It works on the sessions of st; a nil
// st gives a tool that fails, saying it works only inside a wield
// session. [WriteTodos] and [UpdatePlan] write the same list under the
// names other agents' models know.
func Todo(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "todo", Effect: tool.EffectState, Aliases: []string{"TodoWrite"}, Description: todoDescription,
		// The todo list is wield's own state, not the workspace: the tool
		// counts as read-only for permissions, so it runs in plan mode.
		Annotations: tool.Annotations{ReadOnly: true}}, onSession(st, writeTodos))
}

// writeTodos replaces the session's list with in.Todos. The session
// refuses a list that [session.CheckTodos] refuses, and its message says
// what to change.
func writeTodos(_ context.Context, s *session.Session, in TodoInput) (tool.Result, error) {
	if err := s.SetTodos(in.Todos); err != nil {
		return tool.Failure(err.Error() + "; send the whole list again"), nil
	}
	return tool.Result{Success: true, Output: formatTodos(in.Todos), Data: map[string]any{"todos": in.Todos}}, nil
}

// todoMarks are the checklist marks of the statuses.
var todoMarks = map[string]string{
	session.TodoPending:    "[ ]",
	session.TodoInProgress: "[>]",
	session.TodoCompleted:  "[x]",
	session.TodoDone:       "[x]",
	session.TodoCancelled:  "[-]",
	session.TodoBlocked:    "[!]",
}

// formatTodos renders todos as a checklist, one line per todo, and a
// count of those completed: [x] completed, [>] in progress, [ ] pending,
// [-] cancelled, [!] blocked.
func formatTodos(todos []session.Todo) string {
	if len(todos) == 0 {
		return "The todo list is empty."
	}
	var b strings.Builder
	done := 0
	for _, t := range todos {
		mark, ok := todoMarks[t.Status]
		if !ok {
			mark = "[?]"
		}
		if t.Status == session.TodoCompleted || t.Status == session.TodoDone {
			done++
		}
		fmt.Fprintf(&b, "%s %s", mark, t.Title)
		if t.Description != "" {
			fmt.Fprintf(&b, " — %s", t.Description)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d of %d done.", done, len(todos))
	return b.String()
}
