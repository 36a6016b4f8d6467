package sessiontool

import (
	"context"
	_ "embed"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed delete_todos.md
var deleteTodosDescription string

// DeleteTodosInput is delete_todos's (empty) argument object.
type DeleteTodosInput struct{}

// DeleteTodos returns the delete_todos tool, which works on the sessions of st; a nil st
// gives a tool that fails, saying it works only inside a wield session.
func DeleteTodos(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "delete_todos", Effect: tool.EffectState, Description: deleteTodosDescription,
		// The todo list is wield's own state, not the workspace: the tool
		// counts as read-only for permissions.
		Annotations: tool.Annotations{ReadOnly: true}}, onSession(st, deleteTodos))
}

func deleteTodos(_ context.Context, s *session.Session, _ DeleteTodosInput) (tool.Result, error) {
	n := len(s.Todos())
	if err := s.SetTodos(nil); err != nil {
		return tool.Failure(err.Error()), nil
	}
	if n == 0 {
		return tool.Text("There was no todo list; nothing changed."), nil
	}
	return tool.Text("Deleted the todo list."), nil
}
