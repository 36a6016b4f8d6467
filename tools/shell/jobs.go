package shell

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultKeepFinished is how many finished background jobs a [Jobs]
// table keeps by default.
const DefaultKeepFinished = 16

// ErrClosed is returned when a command is started on a closed [Jobs]
// table.
var ErrClosed = errors.New("job table closed")

// JobsOptions configures a [Jobs] table. A nil *JobsOptions, or a zero
// field, means the documented default.
type JobsOptions struct {
	// Subreaper makes the calling process a child subreaper (Linux's
	// PR_SET_CHILD_SUBREAPER) when the table is created: processes that a
	// command orphans are then re-parented to it rather than to init, and
	// the table reaps those it finds. It changes the whole process, so
	// only a program's main package should set it; see "Which processes
	// are killed" in the package documentation.
	Subreaper bool
	// KeepFinished is how many finished background jobs are kept so that
	// their output can still be read; zero means DefaultKeepFinished.
	KeepFinished int
}

// Jobs is the table of the commands the shell tools run: the background
// jobs the model can read and kill by id, and the foreground commands,
// so that [Jobs.Close] stops everything. A host creates one, gives it to
// the tools in [Config.Jobs], and closes it when it exits. Jobs is safe for concurrent use.
type Jobs struct {
	opts   JobsOptions
	mu     sync.Mutex
	seq    int
	procs  map[string]*proc
	closed bool
}

// NewJobs returns an empty job table. It returns an error only when
// opts.Subreaper is set and the process cannot become a subreaper.
func NewJobs(opts *JobsOptions) (*Jobs, error) {
	j := &Jobs{procs: map[string]*proc{}}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.KeepFinished <= 0 {
		j.opts.KeepFinished = DefaultKeepFinished
	}
	if j.opts.Subreaper {
		if err := setSubreaper(); err != nil {
			return nil, fmt.Errorf("become a child subreaper: %w", err)
		}
	}
	return j, nil
}

// Sweep kills every process whose environment holds WIELD_SHELL_JOB set
// to one of markers, with their descendants, and waits until they have
// gone. markers are [RunData.Marker] values, which results carry while a
// command runs: a host that resumes a session calls Sweep with those its
// journal recorded, so that commands a host left running when it died do
// not run on. Processes are found by marker only, never by a recorded pid
// or process group, since the number may name another process by now; a
// process that cleared its environment and left the session is missed.
// Sweep returns how many processes it killed. It reads /proc, and does
// nothing on systems other than Linux.
func Sweep(markers []string) int { return sweep(markers) }

// JobInfo describes a background job.
type JobInfo struct {
	ID          string    `json:"id"`
	Command     string    `json:"command"`
	Description string    `json:"description,omitempty"`
	PID         int       `json:"pid"`
	Running     bool      `json:"running"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Signal      string    `json:"signal,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	DurationMs  int64     `json:"duration_ms"`
	OutputBytes int64     `json:"output_bytes"`
}

// List returns the background jobs, running and recently finished, in the
// order they were started.
func (j *Jobs) List() []JobInfo {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	j.evict()
	ps := j.sorted()
	j.mu.Unlock()
	out := make([]JobInfo, 0, len(ps))
	for _, p := range ps {
		if p.isBackground() {
			out = append(out, p.info())
		}
	}
	return out
}

// Close stops every command of the table, foreground and background, and
// waits until they and everything they started have ended. Commands
// cannot be started afterwards. Close always returns nil.
func (j *Jobs) Close() error {
	j.mu.Lock()
	j.closed = true
	ps := j.sorted()
	j.mu.Unlock()
	for _, p := range ps {
		p.stop(stopClosed)
	}
	for _, p := range ps {
		p.wait()
	}
	return nil
}

// sorted returns the table's commands in start order. j.mu is held.
func (j *Jobs) sorted() []*proc {
	ps := make([]*proc, 0, len(j.procs))
	for _, p := range j.procs {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b *proc) int { return a.seq - b.seq })
	return ps
}

// add gives p an id and enters it in the table.
func (j *Jobs) add(p *proc) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	j.seq++
	p.seq = j.seq
	p.id = "job-" + strconv.Itoa(j.seq)
	j.procs[p.id] = p
	j.evict()
	return nil
}

// remove takes a finished foreground command out of the table.
func (j *Jobs) remove(p *proc) {
	j.mu.Lock()
	delete(j.procs, p.id)
	j.mu.Unlock()
}

// job returns the background job with the given id, or nil.
func (j *Jobs) job(id string) *proc {
	j.mu.Lock()
	defer j.mu.Unlock()
	if p := j.procs[id]; p != nil && p.isBackground() {
		return p
	}
	return nil
}

// evict drops the oldest finished background jobs beyond KeepFinished.
// j.mu is held.
func (j *Jobs) evict() {
	var finished []*proc
	for _, p := range j.procs {
		if p.isBackground() && p.isDone() {
			finished = append(finished, p)
		}
	}
	if len(finished) <= j.opts.KeepFinished {
		return
	}
	slices.SortFunc(finished, func(a, b *proc) int { return a.seq - b.seq })
	for _, p := range finished[:len(finished)-j.opts.KeepFinished] {
		delete(j.procs, p.id)
	}
}

// ids lists the ids of the background jobs, for messages.
func (j *Jobs) ids() []string {
	var ids []string
	for _, info := range j.List() {
		ids = append(ids, info.ID)
	}
	return ids
}

func (p *proc) isBackground() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.background
}

func (p *proc) setBackground() {
	p.mu.Lock()
	p.background = true
	p.mu.Unlock()
}

// info describes p as a job.
func (p *proc) info() JobInfo {
	info := JobInfo{
		ID: p.id, Command: p.spec.command, Description: p.spec.desc, PID: p.pid,
		StartedAt: p.started, OutputBytes: p.out.size(),
	}
	info.Running, info.DurationMs, info.Signal, info.ExitCode = p.state()
	if len(info.Command) > 200 {
		info.Command = strings.ToValidUTF8(info.Command[:200], "") + "…"
	}
	return info
}
