package change

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed begin_change.md
var beginDescription string

// BeginInput is begin_change's argument object.
type BeginInput struct {
	Reason string `json:"reason" jsonschema:"what the changes are for, in a few words"`
}

// BeginData is begin_change's structured result.
type BeginData struct {
	Change int `json:"change"`
}

// NewBeginChange returns the begin_change tool.
func NewBeginChange(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "begin_change", Effect: tool.EffectState, Description: beginDescription,
		OutputSchema: tool.SchemaOf[BeginData]()}, inSession(cfg, begin))
}

func begin(_ context.Context, s *session.Session, in BeginInput) (tool.Result, error) {
	if c := s.State().OpenChange(); c != nil {
		return tool.Failure(fmt.Sprintf("change %d (%q) is still open: end it with end_change {\"outcome\": \"keep\"} or \"revert\" first", c.Seq, c.Reason)), nil
	}
	c, err := s.BeginChange(in.Reason)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Success: true, Data: BeginData{Change: c.Seq},
		Output: fmt.Sprintf("Change %d begun. End it with end_change {\"outcome\": \"keep\"} or {\"outcome\": \"revert\"}.", c.Seq)}, nil
}
