package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/agent"
)

// eventSchema is the version of the JSON events --json prints; see
// docs/cli.md. It changes when a field changes meaning or goes away, not
// when one is added.
const eventSchema = 1

// A jsonEvent is one line of --json output: the run's event with the
// schema's version.
type jsonEvent struct {
	V int `json:"v"`
	agent.Event
	// DurationMs is a finished call's duration, without the time it
	// waited for approval.
	DurationMs *float64 `json:"duration_ms,omitempty"`
}

// runPrinter shows a run as a clean stream: the answer on stdout as it
// streams, and on stderr one header line per tool call (its key argument)
// and one summary line when it is done; with verbose, the full arguments
// and outputs too. With JSON it prints every event as a line of JSON on
// stdout instead. Text is never overwritten: the spinner of a terminal
// only draws on a line of its own, and a tool line first ends a line of
// text that shares the screen.
type runPrinter struct {
	g       *globals
	json    bool
	verbose bool
	pal     palette
	// interactive reports whether stderr is a terminal (spinner, prompts).
	interactive bool
	// shared reports whether stdout and stderr end on the same screen or
	// file, so that a tool line must not continue a line of text.
	shared bool
	enc    *json.Encoder
	// model names the model ("provider:model") in the usage line; priced
	// says whether its cost is known.
	model  string
	priced bool

	mu        sync.Mutex // events come from the loop and from parallel tools
	wroteText bool       // the answer has text since the last finish
	midLine   bool       // stdout's last text did not end a line
	lastCall  string     // the call whose header was printed last
	headers   map[string]string

	spinMu   sync.Mutex // guards spinner and spinDone
	spinner  chan struct{}
	spinDone chan struct{}
}

func newRunPrinter(g *globals, asJSON bool) *runPrinter {
	tty := g.tty || isTerminal(g.stderr)
	p := &runPrinter{g: g, json: asJSON, verbose: g.verbose, interactive: tty, shared: sameOutput(g.stdout, g.stderr),
		pal: palette{color: tty && !g.noColor()}, headers: map[string]string{}}
	if g.tty {
		p.shared = true
	}
	if asJSON {
		p.enc = json.NewEncoder(g.stdout)
	}
	return p
}

// isTerminal reports whether v, a reader or writer, is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// sameOutput reports whether a and b write to the same place: the same
// writer, two terminals, or the same file.
func sameOutput(a, b io.Writer) bool {
	if a == b {
		return true
	}
	fa, ok1 := a.(*os.File)
	fb, ok2 := b.(*os.File)
	if !ok1 || !ok2 {
		return false
	}
	if isTerminal(fa) && isTerminal(fb) {
		return true
	}
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// spin shows a spinner on stderr while the model thinks, until stopSpin.
// It draws only on a line of its own.
func (p *runPrinter) spin(round int) {
	p.stopSpin()
	p.mu.Lock()
	mid := p.midLine && p.shared
	p.mu.Unlock()
	if mid {
		return
	}
	p.spinMu.Lock()
	defer p.spinMu.Unlock()
	stop, done := make(chan struct{}), make(chan struct{})
	p.spinner, p.spinDone = stop, done
	go func() {
		defer close(done)
		frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		start := time.Now()
		for i := 0; ; i++ {
			p.mu.Lock()
			fmt.Fprintf(p.g.stderr, "\r%s\033[K", p.pal.dim(fmt.Sprintf("%c thinking (round %d, %.0fs)", frames[i%len(frames)], round, time.Since(start).Seconds())))
			p.mu.Unlock()
			select {
			case <-stop:
				p.mu.Lock()
				fmt.Fprint(p.g.stderr, "\r\033[K")
				p.mu.Unlock()
				return
			case <-tick.C:
			}
		}
	}()
}

// stopSpin stops the spinner, if one runs, and waits until it has cleared
// its line, so that nothing printed next is erased. It must be called
// without p.mu held.
func (p *runPrinter) stopSpin() {
	p.spinMu.Lock()
	stop, done := p.spinner, p.spinDone
	p.spinner, p.spinDone = nil, nil
	p.spinMu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// breakLine ends a line of streamed text before a tool line: on a shared
// screen the tool line would continue it, and on stdout alone the text
// of the next round would. p.mu must be held.
func (p *runPrinter) breakLine() {
	if p.midLine {
		io.WriteString(p.g.stdout, "\n")
	}
	p.midLine = false
}

// event shows one event of the run.
func (p *runPrinter) event(e agent.Event) {
	if p.json {
		je := jsonEvent{V: eventSchema, Event: e}
		if e.Kind == agent.EventToolFinished && e.Call != nil {
			ms := float64(e.Call.Duration.Microseconds()) / 1000
			je.DurationMs = &ms
		}
		p.mu.Lock()
		_ = p.enc.Encode(je)
		p.mu.Unlock()
		return
	}
	if p.interactive && !p.g.tty { // a fake terminal (--tty) gets no spinner: its output is compared
		switch e.Kind {
		case agent.EventRoundStarted:
			p.spin(e.Round)
			return
		case agent.EventText, agent.EventToolStarted, agent.EventToolFinished, agent.EventRunFinished:
			p.stopSpin()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventText:
		if e.Text == "" {
			return
		}
		io.WriteString(p.g.stdout, e.Text)
		p.wroteText = true
		p.midLine = !strings.HasSuffix(e.Text, "\n")
	case agent.EventToolStarted:
		p.breakLine()
		header := toolHeader(p.pal, callSpec(e.Call), e.Call.Arguments)
		p.headers[e.Call.CallID] = header
		fmt.Fprintln(p.g.stderr, header)
		if p.verbose && len(e.Call.Arguments) > 0 {
			fmt.Fprintln(p.g.stderr, indent(p.pal.dim(prettyJSON(e.Call.Arguments)), "    "))
		}
		p.lastCall = e.Call.CallID
	case agent.EventToolFinished:
		p.breakLine()
		if p.lastCall != e.Call.CallID {
			// Another call's lines came between: name this one again.
			if h, ok := p.headers[e.Call.CallID]; ok {
				fmt.Fprintln(p.g.stderr, h)
			}
		}
		delete(p.headers, e.Call.CallID)
		fmt.Fprintln(p.g.stderr, toolSummary(p.pal, e.Call.Result, e.Call.Duration))
		if p.verbose && e.Call.Result != nil && e.Call.Result.Output != "" {
			fmt.Fprintln(p.g.stderr, indent(p.pal.dim(strings.TrimRight(e.Call.Result.Output, "\n")), "    "))
		}
		p.lastCall = ""
	}
}

// note prints a line of wield's own on stderr, after ending a line of
// text that shares the screen.
func (p *runPrinter) note(format string, args ...any) {
	p.stopSpin()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.breakLine()
	fmt.Fprintf(p.g.stderr, format+"\n", args...)
}

// finish ends the task's output: the answer's last line, the reason a
// run stopped short, and the usage line.
func (p *runPrinter) finish(o *agent.Outcome) {
	p.stopSpin()
	if p.json || o == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.wroteText && o.Text != "" {
		io.WriteString(p.g.stdout, o.Text)
		p.wroteText = true
		p.midLine = !strings.HasSuffix(o.Text, "\n")
	}
	if p.midLine {
		io.WriteString(p.g.stdout, "\n")
	}
	p.wroteText, p.midLine = false, false
	if o.Reason != agent.StopAnswer && o.Note != "" {
		fmt.Fprintf(p.g.stderr, "wield: %s\n", o.Note)
	}
	if line := usageLine(o, p.model, p.priced); line != "" {
		fmt.Fprintln(p.g.stderr, p.pal.dim(line))
	}
}

// prettyJSON indents a JSON value for -v, or returns it as it is.
func prettyJSON(raw json.RawMessage) string {
	// Indent keeps the strings as written: re-encoding them would print
	// && as \u0026\u0026.
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
