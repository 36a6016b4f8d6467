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
func CompressSessionTurns(st *session.Store) *tool.Tool {
	return tool.New(tool.Spec{Name: "compress_session_turns", Description: compressSessionTurnsDescription}, onSession(st, compressSessionTurns))
}

func compressSessionTurns(_ context.Context, s *session.Session, in CompressSessionTurnsInput) (tool.Result, error) {
	before := len(s.State().Turns)
	backup, err := s.Compress(in.StartTurn, in.EndTurn, in.Summary)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	after := len(s.State().Turns)
	return tool.Result{Success: true,
		Output: fmt.Sprintf("Replaced turns %d-%d with a summary; the session now has %d turns (was %d). A backup was taken.", in.StartTurn, in.EndTurn, after, before),
		Data:   map[string]any{"turns_before": before, "turns_after": after, "backup": backup}}, nil
}
