package sessiontool

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed delete_session.md
var deleteSessionDescription string

// DeleteSessionInput is delete_session's argument object.
type DeleteSessionInput struct {
	SessionID string `json:"session_id" jsonschema:"the session to delete"`
}

// DeleteSession returns the delete_session tool, which works on the sessions of st; a nil st
// gives a tool that fails, saying it works only inside a wield session. It is destructive.
func DeleteSession(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "delete_session", Effect: tool.EffectState, Description: deleteSessionDescription,
		Annotations: tool.Annotations{Destructive: true}}, onStore(st, deleteSession))
}

func deleteSession(ctx context.Context, c *tool.Call, st *session.Store, in DeleteSessionInput) (tool.Result, error) {
	if in.SessionID == c.SessionID {
		return tool.Failure(fmt.Sprintf("session %s is the one this call runs in; it cannot delete itself", in.SessionID)), nil
	}
	if _, err := st.Delete(ctx, in.SessionID); err != nil {
		return tool.Failure(err.Error()), nil
	}
	return tool.Result{Success: true, Output: fmt.Sprintf("Deleted session %s (moved to the backups).", in.SessionID),
		Data: map[string]any{"session_id": in.SessionID}}, nil
}
