package shell

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/wieldhq/wield/tool"
)

//go:embed run_shell_command.md
var runDescription string

// RunInput is the argument object of run_shell_command.
type RunInput struct {
	Command     string `json:"command" jsonschema:"the command line, run by bash -c"`
	Description string `json:"description,omitempty" jsonschema:"a few words on what the command does, shown to the user"`
	Directory   string `json:"directory,omitempty" jsonschema:"the directory to run in, inside the workspace; default: the workspace root"`
	TimeoutMs   *int64 `json:"timeout_ms,omitempty" jsonschema:"the wall-clock limit in milliseconds"`
	Background  bool   `json:"background,omitempty" jsonschema:"start the command as a background job and return at once"`
}

// RunData is the Data of the results of run_shell_command, shell_output
// and shell_kill.
type RunData struct {
	// ExitCode is the command's exit status; nil while it runs or when a
	// signal killed it.
	ExitCode *int `json:"exit_code"`
	// Signal names the signal that killed the command, such as "SIGKILL".
	Signal string `json:"signal,omitempty"`
	// TimedOut reports whether a limit stopped the command; Limit says
	// which: "wall_clock", "inactivity" or "output".
	TimedOut bool   `json:"timed_out"`
	Limit    string `json:"limit,omitempty"`
	// Cancelled reports whether the call was cancelled and the command
	// stopped with it; Killed, whether shell_kill or shutdown stopped it.
	Cancelled bool `json:"cancelled,omitempty"`
	Killed    bool `json:"killed,omitempty"`
	// DurationMs is how long the command has run.
	DurationMs int64 `json:"duration_ms"`
	// OutputBytes counts the bytes the command has printed.
	OutputBytes int64 `json:"output_bytes"`
	// SpillPath, relative to the workspace root, holds the whole kept
	// output when the result shows only part of it.
	SpillPath string `json:"spill_path,omitempty"`
	// JobID names the background job the command runs as, if any;
	// Running reports whether it is still running.
	JobID   string `json:"job_id,omitempty"`
	Running bool   `json:"running,omitempty"`
	// Jobs lists the background jobs.
	Jobs []JobInfo `json:"jobs,omitempty"`
	// While the command runs, PGID is its shell's process group (and
	// session), and Marker the value of WIELD_SHELL_JOB in the environment
	// of every process it starts: what [Sweep] needs to stop what is left
	// of it if the host dies. Sweep never kills by PGID alone.
	PGID   int    `json:"pgid,omitempty"`
	Marker string `json:"marker,omitempty"`
}

// NewRunShellCommand returns the run_shell_command tool.
func NewRunShellCommand(cfg Config) *tool.Tool {
	s := newShell(cfg)
	return tool.New(tool.Spec{
		Name:         "run_shell_command",
		Effect:       tool.EffectRun,
		KeyArgs:      []string{"command"},
		Aliases:      []string{"Bash"},
		Description:  s.description("run_shell_command", runDescription),
		OutputSchema: tool.SchemaOf[RunData](),
		Annotations:  tool.Annotations{Destructive: true, OpenWorld: true},
		// The command's own limits end it; the runner's timeout is only a
		// backstop.
		Timeout: s.cfg.MaxTimeout + s.cfg.KillGrace + killWait + time.Minute,
	}, s.run)
}

func (s *shell) run(ctx context.Context, c *tool.Call, in RunInput) (tool.Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Failure("command is empty: give the command line to run"), nil
	}
	if c == nil || c.Root == nil {
		return tool.Failure("run_shell_command needs a workspace, and none is open"), nil
	}
	if s.pathErr != nil {
		return tool.Failure("no shell to run commands with: " + s.pathErr.Error()), nil
	}
	dir, err := s.directory(c.Root, in.Directory)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	jobs := s.jobs()
	if in.Background && jobs == nil {
		return tool.Failure("background jobs are not available here; run the command without background"), nil
	}
	lim := limits{wall: s.cfg.Timeout, grace: s.cfg.KillGrace}
	if s.cfg.Inactivity > 0 {
		lim.inactivity = s.cfg.Inactivity
	}
	if s.cfg.MaxOutput > 0 {
		lim.maxOutput = s.cfg.MaxOutput
	}
	if in.TimeoutMs != nil {
		t := time.Duration(*in.TimeoutMs) * time.Millisecond
		if *in.TimeoutMs <= 0 || t > s.cfg.MaxTimeout {
			return tool.Failure(fmt.Sprintf("timeout_ms must be between 1 and %d", s.cfg.MaxTimeout.Milliseconds())), nil
		}
		lim.wall = t
	}
	if in.Background {
		// A server or watcher may run quietly for as long as it is needed.
		lim.inactivity = 0
		if in.TimeoutMs == nil {
			lim.wall = 0
		}
	}
	var emit func(tool.Event)
	if !in.Background {
		emit = progressEvents(c.Emit)
	}
	spec := procSpec{
		shell: s.path, command: in.Command, desc: in.Description, dir: dir,
		env: s.gitEnviron(ctx, dir, s.environ()), capture: s.cfg.CaptureLimit, limits: lim, supervisor: s.cfg.Supervisor,
	}
	if s.cfg.Sandbox != nil {
		if err := s.sandboxed(&spec, c.Root); err != nil {
			return tool.Failure("cannot start the command in the sandbox: " + err.Error()), nil
		}
	}
	p, err := startProc(spec, emit)
	if err != nil {
		if spec.cleanup != nil {
			spec.cleanup()
		}
		return tool.Failure("cannot start the command: " + err.Error()), nil
	}
	if jobs != nil {
		if err := jobs.add(p); err != nil {
			p.stop(stopClosed)
			p.wait()
			return tool.Failure("cannot start the command: wield is shutting down"), nil
		}
	}
	if in.Background {
		p.setBackground()
		msg := fmt.Sprintf("Started background job %s (pid %d). Read its output with shell_output and stop it with shell_kill.", p.id, p.pid)
		return tool.Result{Success: true, Output: msg, Data: s.data(p, jobs, "")}, nil
	}
	var yield <-chan time.Time
	if jobs != nil && s.cfg.YieldAfter > 0 {
		t := time.NewTimer(s.cfg.YieldAfter)
		defer t.Stop()
		yield = t.C
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.stop(stopCancelled)
	case <-yield:
		p.detach()
		p.setBackground()
		return s.report(c, p, jobs, fmt.Sprintf("Still running after %s; it goes on as background job %s. Its output so far is below; read more with shell_output, stop it with shell_kill.", s.cfg.YieldAfter, p.id)), nil
	}
	p.wait()
	if jobs != nil {
		jobs.remove(p)
	}
	return s.report(c, p, jobs, ""), nil
}

// report returns the result for p: its new output and how it ended, or
// the note when it is still running.
func (s *shell) report(c *tool.Call, p *proc, jobs *Jobs, note string) tool.Result {
	p.mu.Lock()
	from := p.readTo
	p.mu.Unlock()
	out, end := p.out.since(from)
	return s.result(c, p, jobs, out, end, note)
}

// result builds a result for p from output out, which ends at offset end.
func (s *shell) result(c *tool.Call, p *proc, jobs *Jobs, out []byte, end int64, note string) tool.Result {
	p.mu.Lock()
	p.readTo = max(p.readTo, end)
	p.mu.Unlock()
	text, partial := render(out, s.cfg.OutputLimit)
	var where string
	if partial {
		all, _ := p.out.since(0)
		name := c.ID
		if p.isBackground() {
			name = p.id
		}
		if path, err := spill(c, name, all); err != nil {
			text += "\n[the whole output could not be saved: " + err.Error() + "]"
		} else {
			where = path
			if n := p.out.dropped(); n > 0 {
				text += fmt.Sprintf("\n[the output is in %s but for %d bytes in its middle: the first %s and the last %s of a command's output are kept; read it in parts rather than whole]",
					path, n, sizeText(p.out.headMax), sizeText(p.out.tailMax))
			} else {
				text += "\n[the whole output is in " + path + "; read it in parts rather than whole]"
			}
		}
	}
	if text == "" {
		text = "(no output)"
	}
	if note != "" {
		text = note + "\n\n" + text
	}
	res := tool.Result{Success: true, Output: text, Data: s.data(p, jobs, where)}
	if p.isDone() {
		if msg := failure(p.end, s.cfg); msg != "" {
			res.Success, res.Error = false, msg
		}
	}
	return res
}

// data returns p's result data.
func (s *shell) data(p *proc, jobs *Jobs, spillPath string) RunData {
	d := RunData{OutputBytes: p.out.size(), SpillPath: spillPath, Jobs: jobs.List()}
	if p.isBackground() {
		d.JobID = p.id
	}
	d.Running, d.DurationMs, d.Signal, d.ExitCode = p.state()
	if d.Running {
		d.PGID, d.Marker = p.pid, p.token
		return d
	}
	e := p.end
	d.Limit = e.reason.limit()
	d.TimedOut = d.Limit != ""
	d.Cancelled = e.reason == stopCancelled
	d.Killed = e.reason == stopKilled || e.reason == stopClosed
	return d
}

// failure says why a command that ended did not succeed, or returns ""
// when it did.
func failure(e ending, cfg Config) string {
	var why string
	switch e.reason {
	case stopWallClock:
		why = fmt.Sprintf("stopped after %s: the command reached its time limit; give a larger timeout_ms (at most %d) or run it with background=true", e.duration.Round(time.Millisecond), cfg.MaxTimeout.Milliseconds())
	case stopInactivity:
		why = fmt.Sprintf("stopped: the command printed nothing for %s and looked stuck; if it waits for input, give that input in the command line or a file; if it is slow and quiet, run it with background=true", cfg.Inactivity)
	case stopOutput:
		why = fmt.Sprintf("stopped: the command printed more than %d bytes; filter its output (grep, head, tail) or send it to a file", cfg.MaxOutput)
	case stopCancelled:
		return "cancelled; the command was stopped"
	case stopKilled:
		return "killed with shell_kill"
	case stopClosed:
		return "stopped because wield is shutting down"
	}
	switch {
	case e.err != nil:
		return "the command could not be waited for: " + e.err.Error()
	case why != "":
		return why
	case e.signal != "":
		return "killed by signal " + e.signal
	case e.exitCode > 128 && e.exitCode <= 128+64:
		return fmt.Sprintf("exit code %d (128+%d: a process it ran was killed by %s)", e.exitCode, e.exitCode-128, signalName(syscall.Signal(e.exitCode-128)))
	case e.exitCode != 0:
		return fmt.Sprintf("exit code %d", e.exitCode)
	}
	return ""
}

// progressEvents returns emit, with each output event's new output as its
// Message and the bytes of output so far as its Progress, which grows with
// every event: an MCP client's progress notifications then carry the
// output itself. Events are emitted one at a time.
func progressEvents(emit func(tool.Event)) func(tool.Event) {
	var bytes int64
	return func(e tool.Event) {
		if ev, ok := e.Data.(OutputEvent); ok {
			bytes += ev.Omitted + int64(len(ev.Output))
			e.Message, e.Progress = ev.Output, float64(bytes)
		}
		emit(e)
	}
}

// sizeText gives a byte count in MiB, KiB or bytes, whichever is whole.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
