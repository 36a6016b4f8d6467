package sessiontool

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed write_todos.md
var writeTodosDescription string

// WriteTodosInput is write_todos's argument object.
type WriteTodosInput struct {
	Todos []session.Todo `json:"todos" jsonschema:"the complete todo list, in order"`
}

// WriteTodos returns the write_todos tool, which works on the sessions of st; a nil st
// gives a tool that fails, saying it works only inside a wield session.
func WriteTodos(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "write_todos", Description: writeTodosDescription,
		// The todo list is wield's own state, not the workspace: the tool
		// counts as read-only for permissions.
		Annotations: tool.Annotations{ReadOnly: true}}, onSession(st, writeTodos))
}

func writeTodos(_ context.Context, s *session.Session, in WriteTodosInput) (tool.Result, error) {
	if err := s.SetTodos(in.Todos); err != nil {
		return tool.Failure(err.Error()), nil
	}
	return tool.Result{Success: true, Output: formatTodos(in.Todos), Data: map[string]any{"todos": in.Todos}}, nil
}

// formatTodos renders todos as a checklist.
func formatTodos(todos []session.Todo) string {
	if len(todos) == 0 {
		return "The todo list is empty."
	}
	var b strings.Builder
	done := 0
	for _, t := range todos {
		mark := "[ ]"
		switch t.Status {
		case session.TodoInProgress:
			mark = "[~]"
		case session.TodoDone:
			mark = "[x]"
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
