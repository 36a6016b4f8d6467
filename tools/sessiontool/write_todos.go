package sessiontool

import (
	_ "embed"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed write_todos.md
var writeTodosDescription string

// WriteTodosInput is write_todos's argument object, the same as todo's.
type WriteTodosInput = TodoInput

// WriteTodos returns write_todos, gemini-cli's name for [Todo]: the same
// list and arguments, hidden from the tools offered to the model (which
// sees todo) but run when a model calls it by that name. It works on the
// sessions of st; a nil st gives a tool that fails, saying it works only
// inside a wield session.
func WriteTodos(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "write_todos", Effect: tool.EffectState, Description: writeTodosDescription, Hidden: true,
		Annotations: tool.Annotations{ReadOnly: true}}, onSession(st, writeTodos))
}
