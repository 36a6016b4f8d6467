package sessiontool

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed get_session.md
var getSessionDescription string

// GetSessionInput is get_session's argument object.
type GetSessionInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the session to describe; default: the current one"`
	Turn      int    `json:"turn,omitempty" jsonschema:"show this turn in full (numbered as the overview lists them, the open transaction's after the committed ones) instead of the overview"`
}

// GetSession returns the get_session tool, which works on the sessions of st; a nil st
// gives a tool that fails, saying it works only inside a wield session. It is read-only.
func GetSession(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "get_session", Effect: tool.EffectRead, Description: getSessionDescription,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, onStore(st, getSession))
}

// maxTurnsShown bounds the turn listing; the oldest are summarised.
const maxTurnsShown = 200

func getSession(ctx context.Context, c *tool.Call, st *session.Store, in GetSessionInput) (tool.Result, error) {
	id := in.SessionID
	if id == "" {
		id = c.SessionID
	}
	if id == "" {
		return tool.Failure("no session_id given and this call belongs to no session"), nil
	}
	var state *session.State
	if s, ok := st.Writer(id); ok {
		state = s.State()
	} else {
		var err error
		if state, err = st.Load(ctx, id); err != nil {
			return tool.Failure(err.Error()), nil
		}
	}
	if in.Turn != 0 {
		return showTurn(state, in.Turn), nil
	}
	var b strings.Builder
	h := state.Header
	fmt.Fprintf(&b, "Session %s, created %s", h.ID, h.CreatedAt.Format("2006-01-02 15:04 MST"))
	if h.ParentID != "" {
		fmt.Fprintf(&b, ", forked from %s", h.ParentID)
	}
	b.WriteString(".\n")
	if h.Purpose != "" {
		fmt.Fprintf(&b, "Purpose: %s\n", h.Purpose)
	}
	fmt.Fprintf(&b, "\nTurns (%d committed", len(state.Turns))
	if state.Open() {
		fmt.Fprintf(&b, ", %d in the open transaction", len(state.Pool))
	}
	b.WriteString("):\n")
	first := max(0, len(state.Turns)-maxTurnsShown)
	if first > 0 {
		fmt.Fprintf(&b, "  (turns 1-%d not shown)\n", first)
	}
	for i := first; i < len(state.Turns); i++ {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, describe(&state.Turns[i]))
	}
	if active := state.ActiveCompactions(); len(active) > 0 {
		b.WriteString("\nCompactions (how the prompt shows these turns; the turns above stay whole):\n")
		for _, c := range active {
			if c.Kind == session.CompactionMask {
				fmt.Fprintf(&b, "  masked tool outputs of turns %d-%d\n", c.Range[0], c.Range[1])
				continue
			}
			fmt.Fprintf(&b, "  compressed_history of turns %d-%d: %s\n", c.Range[0], c.Range[1], excerpt(c.Summary))
		}
	}
	if len(state.Todos) > 0 {
		fmt.Fprintf(&b, "\nTodos:\n%s\n", formatTodos(state.Todos))
	}
	if len(state.References) > 0 {
		b.WriteString("\nFile references:\n")
		for _, r := range state.References {
			status := fmt.Sprintf("ttl %d", r.TTL)
			switch {
			case r.Disabled:
				status = "disabled"
			case r.Persist:
				status = "persistent"
			case !r.Active():
				status = "expired"
			}
			fmt.Fprintf(&b, "  %s (%s)\n", r.Path, status)
		}
	}
	return tool.Result{Success: true, Output: b.String(), Data: map[string]any{
		"session_id": h.ID, "turns": len(state.Turns), "open": state.Open(), "todos": state.Todos, "references": state.References,
	}}, nil
}

// showTurn shows turn n of the timeline of state in full.
func showTurn(state *session.State, n int) tool.Result {
	t := state.TurnAt(n)
	if t == nil {
		return tool.Failure(fmt.Sprintf("session %s has no turn %d; it has turns 1-%d", state.Header.ID, n, state.Timeline()))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %d of session %s: %s", n, state.Header.ID, t.Kind)
	switch t.Kind {
	case session.TurnModelResponse:
		b.WriteString("\n" + t.Text)
		for _, c := range t.Calls {
			fmt.Fprintf(&b, "\ncall %s [%s] %s", c.Name, c.ID, c.Arguments)
		}
	case session.TurnFunctionCalling:
		fmt.Fprintf(&b, " %s [%s]\n%s", t.Tool, t.CallID, t.Arguments)
	case session.TurnToolResponse:
		fmt.Fprintf(&b, " %s [%s] %s\n%s", t.Tool, t.CallID, t.Status, t.Output)
	case session.TurnAgentStarted, session.TurnAgentFinished:
		fmt.Fprintf(&b, " %s [%s] session %s %s\n%s", t.Agent, t.CallID, t.Child, t.Status, t.Output)
	default:
		b.WriteString("\n" + t.Text)
	}
	return tool.Result{Success: true, Output: b.String(), Data: t}
}

// describe is a one-line summary of a turn.
func describe(t *session.Turn) string {
	switch t.Kind {
	case session.TurnUserTask:
		return "user_task: " + excerpt(t.Text)
	case session.TurnModelResponse:
		s := "model_response"
		if t.Text != "" {
			s += ": " + excerpt(t.Text)
		}
		if len(t.Calls) > 0 {
			s += fmt.Sprintf(" (%d tool calls)", len(t.Calls))
		}
		return s
	case session.TurnFunctionCalling:
		return fmt.Sprintf("function_calling %s [%s] %s", t.Tool, t.CallID, excerpt(string(t.Arguments)))
	case session.TurnToolResponse:
		return fmt.Sprintf("tool_response %s [%s] %s: %s", t.Tool, t.CallID, t.Status, excerpt(t.Output))
	case session.TurnCompressedHistory:
		return fmt.Sprintf("compressed_history of turns %d-%d: %s", t.Range[0], t.Range[1], excerpt(t.Text))
	}
	return string(t.Kind)
}

func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}
