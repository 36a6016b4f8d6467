package shell

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/wieldhq/wield/tool"
)

// markerVar is the environment variable that marks every process of a
// command, so that descendants which leave its session are still found.
const markerVar = "WIELD_SHELL_JOB"

// Internal timings. They bound waits for things that normally take
// microseconds; none of them is a delay on the normal path.
const (
	emitInterval  = 100 * time.Millisecond // least time between progress events
	maxEventBytes = 16 << 10               // most output in one progress event
	killWait      = 5 * time.Second        // how long SIGKILLed processes get to go
	drainTimeout  = time.Second            // how long to read after the last process died
	readBufSize   = 32 << 10
)

// A stopReason says why a command was stopped before it finished.
type stopReason int

const (
	notStopped stopReason = iota
	stopWallClock
	stopInactivity
	stopOutput
	stopCancelled
	stopKilled
	stopClosed
)

// limit returns the name of the limit r stands for, or "".
func (r stopReason) limit() string {
	switch r {
	case stopWallClock:
		return "wall_clock"
	case stopInactivity:
		return "inactivity"
	case stopOutput:
		return "output"
	}
	return ""
}

// limits bound one command; a zero field means no bound.
type limits struct {
	wall       time.Duration
	inactivity time.Duration
	maxOutput  int64
	grace      time.Duration
}

// A procSpec says what to start.
type procSpec struct {
	shell   string
	command string
	desc    string
	dir     string
	env     []string
	capture int
	limits  limits
	// supervisor, when set, is the command line of the supervisor that
	// runs the shell (Config.Supervisor).
	supervisor []string
	// argv, when set, is what to execute instead of shell -c command: the
	// sandbox helper's command line that runs it.
	argv []string
	// cleanup, when set, is called once the command and all it started
	// have ended.
	cleanup func()
}

// commandLine returns what spec executes.
func (spec *procSpec) commandLine() []string {
	if spec.argv != nil {
		return spec.argv
	}
	return []string{spec.shell, "-c", spec.command}
}

// A proc is one running command: a shell in a session of its own, the
// goroutines that read its output and watch its limits, and what it left
// when it ended. All its goroutines have ended once wait returns.
type proc struct {
	spec    procSpec
	cmd     *exec.Cmd   // the shell, or its supervisor
	sup     *supervised // nil without a supervisor
	pid     int         // the shell's
	token   string      // the value of the command's marker
	started time.Time
	g       group
	out     *capture
	pipe    *os.File

	stopc  chan stopReason // stop requests; the first one counts
	datac  chan struct{}   // the reader got output
	exited chan struct{}   // the shell has exited and been waited for
	read   chan struct{}   // the reader has returned
	done   chan struct{}   // everything is over; end is set
	wg     sync.WaitGroup

	waitErr error // of cmd.Wait, set before exited is closed

	emitMu  sync.Mutex
	emit    func(tool.Event) // nil once detached
	emitted int64            // output offset already emitted

	// end describes how the command ended; set before done is closed.
	end ending

	// id, seq and background are set by the job table.
	id         string
	seq        int
	mu         sync.Mutex
	background bool
	readTo     int64 // output offset already returned to the model
	finished   time.Time
}

// An ending says how a command ended.
type ending struct {
	exitCode int // -1 when killed by a signal
	signal   string
	reason   stopReason
	duration time.Duration
	err      error // a fault of the wait itself
}

// startProc starts spec's command. emit, if not nil, receives progress
// events until detach is called.
func startProc(spec procSpec, emit func(tool.Event)) (*proc, error) {
	if err := startSupported(); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create output pipe: %w", err)
	}
	token := rand.Text()
	marker := markerVar + "=" + token
	var cmd *exec.Cmd
	var sup *supervised
	if len(spec.supervisor) > 0 {
		if cmd, sup, err = supervisedCmd(spec, token, w); err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
	} else {
		argv := spec.commandLine()
		cmd = &exec.Cmd{
			Path:        argv[0],
			Args:        argv,
			Dir:         spec.dir,
			Env:         append(spec.env, marker),
			Stdout:      w, // one pipe for both, so the two streams interleave as written
			Stderr:      w,
			SysProcAttr: sysProcAttr(),
		}
	}
	start := clockTicks()
	if start > 0 {
		start-- // the start time is rounded; allow for it
	}
	p := &proc{
		spec:    spec,
		cmd:     cmd,
		sup:     sup,
		token:   token,
		started: time.Now(),
		out:     newCapture(spec.capture),
		pipe:    r,
		stopc:   make(chan stopReason, 1),
		datac:   make(chan struct{}, 1),
		exited:  make(chan struct{}),
		read:    make(chan struct{}),
		done:    make(chan struct{}),
		emit:    emit,
	}
	err = cmd.Start()
	w.Close() // the shell has its copy; ours would keep the pipe open
	var adopter int
	if sup != nil {
		adopter = cmd.Process.Pid
		p.pid, err = sup.started(cmd, err)
	} else if err == nil {
		p.pid = cmd.Process.Pid
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	p.g = group{pid: p.pid, markers: [][]byte{[]byte(marker)}, start: start, adopter: adopter, seen: map[int]uint64{}}
	p.wg.Go(p.waitShell)
	p.wg.Go(p.readOutput)
	p.wg.Go(p.supervise)
	return p, nil
}

// waitShell waits until the shell has exited: it waits for the shell, or
// for its supervisor's report.
func (p *proc) waitShell() {
	if p.sup != nil {
		p.sup.wait()
	} else {
		p.waitErr = p.cmd.Wait()
	}
	close(p.exited)
}

func (p *proc) readOutput() {
	defer close(p.read)
	buf := make([]byte, readBufSize)
	for {
		n, err := p.pipe.Read(buf)
		if n > 0 {
			total := p.out.write(buf[:n])
			select {
			case p.datac <- struct{}{}:
			default:
			}
			if max := p.spec.limits.maxOutput; max > 0 && total > max {
				p.stop(stopOutput)
			}
		}
		if err != nil {
			return
		}
	}
}

// stop asks for the command to be stopped; it does not wait.
func (p *proc) stop(r stopReason) {
	select {
	case p.stopc <- r:
	default:
	}
}

// wait waits until the command and all its goroutines have ended.
func (p *proc) wait() {
	<-p.done
	p.wg.Wait()
}

// isDone reports whether the command has ended.
func (p *proc) isDone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// state reports whether the command is still running and how long it has
// run, or ran; once it has ended, also the signal that ended it and its
// exit code (nil when a signal ended it).
func (p *proc) state() (running bool, durationMs int64, signal string, exitCode *int) {
	if !p.isDone() {
		return true, time.Since(p.started).Milliseconds(), "", nil
	}
	e := p.end
	if e.exitCode >= 0 {
		code := e.exitCode
		exitCode = &code
	}
	return false, e.duration.Milliseconds(), e.signal, exitCode
}

// detach stops progress events: after it returns, emit is not called.
func (p *proc) detach() {
	p.emitMu.Lock()
	p.emit = nil
	p.emitMu.Unlock()
}

// supervise watches the limits, streams progress, stops the command when
// asked to and, once the shell has exited, makes sure nothing it started
// is left running.
func (p *proc) supervise() {
	lim := p.spec.limits
	var wall, idle, flush <-chan time.Time
	if lim.wall > 0 {
		t := time.NewTimer(lim.wall)
		defer t.Stop()
		wall = t.C
	}
	var idleTimer *time.Timer
	if lim.inactivity > 0 {
		idleTimer = time.NewTimer(lim.inactivity)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	flushTimer := time.NewTimer(time.Hour)
	flushTimer.Stop()
	defer flushTimer.Stop()
	lastData := time.Now()
	var lastEmit time.Time
	reason := notStopped
loop:
	for {
		select {
		case <-p.exited:
			break loop
		case reason = <-p.stopc:
			break loop
		case <-wall:
			reason = stopWallClock
			break loop
		case <-idle:
			quiet := time.Since(lastData)
			if quiet >= lim.inactivity {
				reason = stopInactivity
				break loop
			}
			idleTimer.Reset(lim.inactivity - quiet)
		case <-p.datac:
			lastData = time.Now()
			if flush == nil {
				if wait := emitInterval - time.Since(lastEmit); wait > 0 {
					flushTimer.Reset(wait)
					flush = flushTimer.C
				} else {
					p.flush(false)
					lastEmit = time.Now()
				}
			}
		case <-flush:
			flush = nil
			p.flush(false)
			lastEmit = time.Now()
		}
	}
	if reason != notStopped {
		p.terminate()
	}
	<-p.exited
	// The shell is gone; so must be whatever it started.
	switch {
	case p.sup != nil:
		if !p.sup.nothingLeft() {
			p.terminate()
		}
		p.waitErr = p.sup.release(p.cmd)
	case lastPID() != p.pid:
		p.terminate()
	}
	// Every process that could hold the pipe is dead, unless one escaped
	// all the ways a command's processes are found: stop reading soon.
	select {
	case <-p.read:
	default:
		p.pipe.SetReadDeadline(time.Now().Add(drainTimeout))
		<-p.read
	}
	p.pipe.Close()
	p.flush(true)
	p.end = p.ending(reason)
	p.mu.Lock()
	p.finished = time.Now()
	p.mu.Unlock()
	if p.spec.cleanup != nil {
		p.spec.cleanup()
	}
	close(p.done)
}

// terminate stops every process of the command: SIGTERM, then SIGKILL
// after the grace period for whatever is left, until nothing is.
func (p *proc) terminate() {
	alive, zombies := p.g.members()
	if len(alive) == 0 {
		reap(zombies)
		return
	}
	grace := p.spec.limits.grace
	hs := p.g.signal(syscall.SIGTERM)
	if len(hs) > 0 {
		waitExit(hs, grace)
	}
	for range 10 { // a process may fork while we kill; go round again
		hs := p.g.signal(syscall.SIGKILL)
		if len(hs) == 0 {
			break
		}
		waitExit(hs, killWait)
	}
	_, zombies = p.g.members()
	reap(zombies)
}

// ending describes how the command ended.
func (p *proc) ending(reason stopReason) ending {
	e := ending{exitCode: -1, reason: reason, duration: time.Since(p.started)}
	var ws syscall.WaitStatus
	var ok bool
	if p.sup != nil {
		ws, ok = p.sup.status()
	}
	if st := p.cmd.ProcessState; !ok && st != nil {
		// Without a supervisor, or when it ended without a report.
		ws, ok = st.Sys().(syscall.WaitStatus)
	}
	if !ok {
		e.err = p.waitErr
		return e
	}
	if ws.Signaled() {
		e.signal = signalName(ws.Signal())
	} else {
		e.exitCode = ws.ExitStatus()
	}
	var exitErr *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exitErr) {
		e.err = p.waitErr
	}
	return e
}

// flush emits the output not yet emitted. Unless final, it holds back a
// partial UTF-8 sequence at the end for the next event.
func (p *proc) flush(final bool) {
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	if p.emit == nil {
		return
	}
	out, end := p.out.since(p.emitted)
	if !final {
		if cut := partialRune(out); cut > 0 {
			out, end = out[:len(out)-cut], end-int64(cut)
		}
	}
	if len(out) == 0 {
		return
	}
	var omitted int64
	if len(out) > maxEventBytes {
		omitted = int64(len(out) - maxEventBytes)
		out = out[len(out)-maxEventBytes:]
	}
	p.emitted = end
	p.emit(tool.Event{Message: "output", Data: OutputEvent{Output: validText(out), Omitted: omitted}})
}

// partialRune returns the length of an incomplete UTF-8 sequence at the
// end of b.
func partialRune(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}

// OutputEvent is the Data of the progress events run_shell_command emits
// while a command runs in the foreground: the output since the previous
// event, stdout and stderr interleaved, made valid UTF-8.
type OutputEvent struct {
	Output string `json:"output"`
	// Omitted counts bytes left out because output came faster than
	// events are sent; the event then holds the latest output.
	Omitted int64 `json:"omitted,omitempty"`
}

// waitOutput waits until the command's output contains s.
func (p *proc) waitOutput(ctx context.Context, s string) error {
	return p.out.wait(ctx, p.done, func(b []byte) bool { return bytes.Contains(b, []byte(s)) })
}
