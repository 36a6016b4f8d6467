package sessiontool

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed compress_session_turns.md
var compressSessionTurnsDescription string

// CompressSessionTurnsInput is compress_session_turns's argument object.
type CompressSessionTurnsInput struct {
	StartTurn int    `json:"start_turn" jsonschema:"first turn to replace, from 1"`
	EndTurn   int    `json:"end_turn" jsonschema:"last turn to replace, inclusive"`
	Summary   string `json:"summary" jsonschema:"what the replaced turns did and found"`
}

// CompressSessionTurns returns the compress_session_turns tool, which works on the sessions of st; a nil st
// gives a tool that fails, saying it works only inside a wield session.
// It records a compaction ([session.Session.Compress]): the turns stay in
// the session, and the prompt shows the summary instead.
func CompressSessionTurns(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "compress_session_turns", Effect: tool.EffectState, Description: compressSessionTurnsDescription}, onSession(st, compressSessionTurns))
}

func compressSessionTurns(ctx context.Context, s *session.Session, in CompressSessionTurnsInput) (tool.Result, error) {
	before := promptTurns(s.State())
	backup, err := s.Compress(ctx, in.StartTurn, in.EndTurn, in.Summary)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	st := s.State()
	after := promptTurns(st)
	return tool.Result{Success: true,
		Output: fmt.Sprintf("Replaced turns %d-%d with a summary in the prompt, which now has %d turns (was %d). The session keeps all %d turns (get_session {\"turn\": N} shows one), and a backup was taken.",
			in.StartTurn, in.EndTurn, after, before, len(st.Turns)),
		Data: map[string]any{"turns_before": before, "turns_after": after, "backup": backup}}, nil
}

// promptTurns counts the committed turns as the prompt shows them: a
// summary counts as one.
func promptTurns(st *session.State) int {
	n := len(st.Turns)
	for _, c := range st.ActiveCompactions() {
		if c.Kind == session.CompactionSummary && c.Range[1] <= len(st.Turns) {
			n -= c.Range[1] - c.Range[0]
		}
	}
	return n
}
