// Package change holds the tools of mutation transactions: begin_change
// opens one, so that the file changes of the calls after it are kept or
// taken back as one; end_change closes it, keeping them or reverting them
// all (package ledger does the reverting). Each round of work is one
// transaction by default; these tools let the model draw the lines itself,
// around an attempt it may abandon.
//
//	tools := change.Tools(change.Config{Sessions: store})
package change

import (
	"context"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Config configures the change tools. Its zero value gives tools that
// fail, saying they work only inside a wield session.
type Config struct {
	// Sessions finds the session a call runs in; [*session.Store]
	// implements it.
	Sessions Sessions
}

// Sessions finds the sessions that calls run in. Implementations must be
// safe for concurrent use.
type Sessions interface {
	// Writer returns session id if this process has it open for writing.
	Writer(id string) (*session.Session, bool)
}

// Tools returns begin_change and end_change.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{NewBeginChange(cfg), NewEndChange(cfg)}
}

// noSession is the failure of a call made outside a session.
var noSession = tool.Failure("this tool works only inside a wield session that records file changes")

// inSession adapts fn to a tool function that gives it the call's session.
func inSession[In any](cfg Config, fn func(ctx context.Context, s *session.Session, in In) (tool.Result, error)) func(context.Context, *tool.Call, In) (tool.Result, error) {
	return func(ctx context.Context, c *tool.Call, in In) (tool.Result, error) {
		if cfg.Sessions == nil || c.SessionID == "" {
			return noSession, nil
		}
		s, ok := cfg.Sessions.Writer(c.SessionID)
		if !ok {
			return noSession, nil
		}
		return fn(ctx, s, in)
	}
}
