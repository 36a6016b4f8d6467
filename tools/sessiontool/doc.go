// Package sessiontool provides the tools that let a model read and change
// the session it works in: todo, delete_todos, get_session,
// compress_session_turns and delete_session.
//
// The todo list has one home, the session's journal ([session.Session.SetTodos]),
// and three writers: todo, offered to the model, and two hidden aliases
// that run when a model calls the name it was trained on: write_todos
// (gemini-cli's) and update_plan (Codex's, with its {plan: [{step,
// status}]} arguments). Each returns the list rendered as a checklist.
//
// The tools are built with the store they work on: [Tools](store). A
// host that builds them without one gets tools that fail clearly, not a
// panic. The session a call runs in is the call's [tool.Call.SessionID].
package sessiontool

import (
	"context"
	"errors"
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Tools returns the session tools, working on the sessions of store, in
// display order. A nil store gives tools that fail, saying they work only
// inside a wield session.
func Tools(store *session.Store) []*tool.Tool {
	return []*tool.Tool{Todo(store), WriteTodos(store), UpdatePlan(store), DeleteTodos(store), GetSession(store), CompressSessionTurns(store), DeleteSession(store)}
}

// errNoStore is the failure of a session tool built without a store.
var errNoStore = errors.New("no session service here: this tool works only inside a wield session")

// onStore adapts run, the work of a session tool on the sessions of st,
// to a tool function that gives run st with each call. Without a store
// every call fails with errNoStore.
func onStore[In any](st *session.Store, run func(ctx context.Context, c *tool.Call, st *session.Store, in In) (tool.Result, error)) func(context.Context, *tool.Call, In) (tool.Result, error) {
	return func(ctx context.Context, c *tool.Call, in In) (tool.Result, error) {
		if st == nil {
			return tool.Failure(errNoStore.Error()), nil
		}
		return run(ctx, c, st, in)
	}
}

// onSession adapts run, the work of a session tool on the session a call
// runs in, to a tool function that gives run that session of st, open for
// writing. A call that has no such session fails, saying why.
func onSession[In any](st *session.Store, run func(ctx context.Context, s *session.Session, in In) (tool.Result, error)) func(context.Context, *tool.Call, In) (tool.Result, error) {
	return func(ctx context.Context, c *tool.Call, in In) (tool.Result, error) {
		s, err := current(st, c)
		if err != nil {
			return tool.Failure(err.Error()), nil
		}
		return run(ctx, s, in)
	}
}

// current returns the session of st that call c runs in, open for writing.
func current(st *session.Store, c *tool.Call) (*session.Session, error) {
	if st == nil {
		return nil, errNoStore
	}
	if c.SessionID == "" {
		return nil, fmt.Errorf("this call belongs to no session")
	}
	s, ok := st.Writer(c.SessionID)
	if !ok {
		return nil, fmt.Errorf("session %s is not open for writing in this process", c.SessionID)
	}
	return s, nil
}
