package shell

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/wieldhq/wield/tool"
)

//go:embed shell_kill.md
var killDescription string

// KillInput is the argument object of shell_kill.
type KillInput struct {
	JobID string `json:"job_id" jsonschema:"the id of the background job, such as job-1"`
}

// NewShellKill returns the shell_kill tool.
func NewShellKill(cfg Config) *tool.Tool {
	s := newShell(cfg)
	return tool.New(tool.Spec{
		Name:         "shell_kill",
		Effect:       tool.EffectState,
		KeyArgs:      []string{"job_id"},
		Description:  s.description("shell_kill", killDescription),
		OutputSchema: tool.SchemaOf[RunData](),
		Annotations:  tool.Annotations{Destructive: true},
		Timeout:      s.cfg.KillGrace + 10*killWait,
	}, s.kill)
}

func (s *shell) kill(_ context.Context, c *tool.Call, in KillInput) (tool.Result, error) {
	jobs, p, res := s.lookup(c, in.JobID)
	if p == nil {
		return res, nil
	}
	if p.isDone() {
		res := s.report(c, p, jobs, status(p)+" Nothing to kill.")
		res.Success, res.Error = true, ""
		return res, nil
	}
	// The job's own goroutine stops it; wait until it and everything it
	// started are gone.
	p.stop(stopKilled)
	p.wait()
	res = s.report(c, p, jobs, fmt.Sprintf("Killed job %s.", p.id))
	if p.end.reason == stopKilled {
		res.Success, res.Error = true, ""
	}
	return res, nil
}
