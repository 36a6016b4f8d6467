// Package sessiontool provides the tools that let a model read and change
// its session through the session service: write_todos, delete_todos,
// get_session, compress_session_turns and delete_session.
//
// The tools find the service in the call's [tool.Call.Services] under
// [session.ServiceName]; a host that runs them without it gets a clear
// failed result, not a panic.
package sessiontool

import (
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Tools returns the session tools.
func Tools() []*tool.Tool {
	return []*tool.Tool{WriteTodos(), DeleteTodos(), GetSession(), CompressSessionTurns(), DeleteSession()}
}

// store returns the session service of a call.
func store(c *tool.Call) (*session.Store, error) {
	if c == nil || c.Services == nil {
		return nil, fmt.Errorf("no session service here: this tool works only inside a wield session")
	}
	st, ok := c.Services.Lookup(session.ServiceName).(*session.Store)
	if !ok || st == nil {
		return nil, fmt.Errorf("no session service here: this tool works only inside a wield session")
	}
	return st, nil
}

// current returns the session the call runs in, open for writing.
func current(c *tool.Call) (*session.Session, error) {
	st, err := store(c)
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
