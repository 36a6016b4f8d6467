package shell

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/tool"
)

//go:embed shell_output.md
var outputDescription string

// OutputInput is the argument object of shell_output.
type OutputInput struct {
	JobID     string `json:"job_id" jsonschema:"the id of the background job, such as job-1"`
	TailLines *int   `json:"tail_lines,omitempty" jsonschema:"return the last this many lines of all its output instead of the output not read yet"`
}

// NewShellOutput returns the shell_output tool.
func NewShellOutput(cfg Config) *tool.Tool {
	s := newShell(cfg)
	return tool.New(tool.Spec{
		Name:         "shell_output",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"job_id"},
		Description:  s.description("shell_output", outputDescription),
		OutputSchema: tool.SchemaOf[RunData](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, s.output)
}

func (s *shell) output(_ context.Context, c *tool.Call, in OutputInput) (tool.Result, error) {
	jobs, p, res := s.lookup(c, in.JobID)
	if p == nil {
		return res, nil
	}
	var out []byte
	var end int64
	if in.TailLines != nil {
		if *in.TailLines <= 0 {
			return tool.Failure("tail_lines must be at least 1"), nil
		}
		all, e := p.out.since(0)
		out, end = []byte(tailLines(string(all), *in.TailLines)), e
	} else {
		p.mu.Lock()
		from := p.readTo
		p.mu.Unlock()
		out, end = p.out.since(from)
	}
	return s.result(c, p, jobs, out, end, status(p)), nil
}

// lookup finds the background job id, or returns a failed result that
// says which jobs there are.
func (s *shell) lookup(c *tool.Call, id string) (*Jobs, *proc, tool.Result) {
	jobs := s.jobs()
	if jobs == nil {
		return nil, nil, tool.Failure("there are no background jobs here: this host has no job table")
	}
	if c == nil || c.Root == nil {
		return nil, nil, tool.Failure("shell jobs need a workspace, and none is open")
	}
	p := jobs.job(id)
	if p == nil {
		ids := jobs.ids()
		if len(ids) == 0 {
			return nil, nil, tool.Failure(fmt.Sprintf("there is no job %q, and no background jobs at all", id))
		}
		return nil, nil, tool.Failure(fmt.Sprintf("there is no job %q; the background jobs are %s", id, strings.Join(ids, ", ")))
	}
	return jobs, p, tool.Result{}
}

// status says in a line whether job p runs or how it ended.
func status(p *proc) string {
	if !p.isDone() {
		return fmt.Sprintf("Job %s is running (pid %d).", p.id, p.pid)
	}
	e := p.end
	how := fmt.Sprintf("exit code %d", e.exitCode)
	if e.signal != "" {
		how = "killed by " + e.signal
	}
	return fmt.Sprintf("Job %s has finished: %s.", p.id, how)
}
