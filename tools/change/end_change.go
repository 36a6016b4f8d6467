package change

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed end_change.md
var endDescription string

// EndInput is end_change's argument object.
type EndInput struct {
	Outcome string `json:"outcome" jsonschema:"keep the changes, or revert them all" enum:"keep,revert"`
}

// EndData is end_change's structured result.
type EndData struct {
	Change   int      `json:"change"`
	Outcome  string   `json:"outcome"`
	Reverted []string `json:"reverted,omitempty"`
}

// NewEndChange returns the end_change tool.
func NewEndChange(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "end_change", Effect: tool.EffectState, Description: endDescription,
		OutputSchema: tool.SchemaOf[EndData](), Annotations: tool.Annotations{Destructive: true}}, inSession(cfg, end))
}

func end(ctx context.Context, s *session.Session, in EndInput) (tool.Result, error) {
	st := s.State()
	c := st.OpenChange()
	if c == nil {
		return tool.Failure("no change is open: begin one with begin_change"), nil
	}
	switch in.Outcome {
	case session.ChangeKeep:
		if _, err := s.EndChange(session.ChangeKeep); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Success: true, Data: EndData{Change: c.Seq, Outcome: in.Outcome},
			Output: fmt.Sprintf("Change %d kept.", c.Seq)}, nil
	case session.ChangeRevert:
	default:
		return tool.Failure(fmt.Sprintf("outcome %q: give \"keep\" or \"revert\"", in.Outcome)), nil
	}
	if !slices.Contains(st.ActiveGroups(), c.Group()) {
		// Nothing was recorded inside it: closing it is all.
		if _, err := s.EndChange(session.ChangeRevert); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Success: true, Data: EndData{Change: c.Seq, Outcome: in.Outcome},
			Output: fmt.Sprintf("Change %d reverted; it had changed no files.", c.Seq)}, nil
	}
	plan, err := ledger.PlanGroups(st, []string{c.Group()})
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	res, err := ledger.Apply(ctx, s, plan, nil)
	if ce, ok := errors.AsType[*ledger.ConflictError](err); ok {
		return tool.Failure(fmt.Sprintf("change %d was not reverted: %s changed after the change wrote them. Revert them by hand, or end the change with \"keep\"",
			c.Seq, strings.Join(ce.Paths, ", "))), nil
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("revert change %d: %w", c.Seq, err)
	}
	data := EndData{Change: c.Seq, Outcome: in.Outcome}
	for _, a := range res.Applied {
		data.Reverted = append(data.Reverted, a.Path)
	}
	out := fmt.Sprintf("Change %d reverted: %d file(s) restored (%s).", c.Seq, len(data.Reverted), strings.Join(data.Reverted, ", "))
	if len(res.Skipped) > 0 {
		var skipped []string
		for _, a := range res.Skipped {
			skipped = append(skipped, a.Path+": "+a.Problem)
		}
		out += " Not restored: " + strings.Join(skipped, "; ") + "."
	}
	return tool.Result{Success: true, Data: data, Output: out}, nil
}
