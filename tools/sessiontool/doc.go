// Package sessiontool provides the tools that let a model read and change
// the session it works in: write_todos, delete_todos, get_session,
// compress_session_turns and delete_session.
//
// The tools are built with the store they work on: [Tools](store). A
// host that builds them without one gets tools that fail clearly, not a
// panic. The session a call runs in is the call's [tool.Call.SessionID].
package sessiontool

import (
	"errors"
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Tools returns the session tools, working on the sessions of store, in
// display order. A nil store gives tools that fail, saying they work only
// inside a wield session.
func Tools(store *session.Store) []*tool.Tool {
	return []*tool.Tool{WriteTodos(store), DeleteTodos(store), GetSession(store), CompressSessionTurns(store), DeleteSession(store)}
}

// tools holds what the session tools are built with.
type tools struct{ st *session.Store }

// store returns the session store, or an error the model reads when there
// is none.
func (t tools) store() (*session.Store, error) {
	if t.st == nil {
		return nil, errors.New("no session service here: this tool works only inside a wield session")
	}
	return t.st, nil
}

// current returns the session the call runs in, open for writing.
func (t tools) current(c *tool.Call) (*session.Session, error) {
	st, err := t.store()
	if err != nil {
		return nil, err
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
