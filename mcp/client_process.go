package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wieldhq/wield/schema"
)

// Bounds on what wield keeps of a stdio server's standard error.
const (
	// MaxLogBytes caps what one run of a server writes to its log file;
	// the rest is dropped with a note.
	MaxLogBytes = 8 << 20
	// stderrTailBytes is how much of the end of standard error is kept in
	// memory, to quote in error messages.
	stderrTailBytes = 2 << 10
	// stderrQuoteBytes is how much of it an error message quotes.
	stderrQuoteBytes = 1 << 10
)

// process is a stdio server's child process. Its stdin and stdout are
// pipes made here rather than by exec, so that reaping the child never
// closes a pipe the MCP connection is still reading. The child leads its
// own process group, and the whole group is killed once the child has
// exited or is stopped, so nothing it started outlives it (npx, for one,
// runs the server as a grandchild).
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *stderrSink

	killed atomic.Bool   // set when wield killed it
	exited chan struct{} // closed once the child is reaped and its group killed
	err    error         // cmd.Wait's error, set before exited is closed
}

// startProcess starts the stdio server described by cfg in dir with the
// environment env plus cfg.Env. Its standard error goes to sink.
func startProcess(cfg *ServerConfig, dir string, env []string, sink *stderrSink) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = dir
	cmd.Env = mergeEnv(env, cfg.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	err = cmd.Start()
	// The child has its own copies now.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: sink, exited: make(chan struct{})}
	sink.begin(cmd)
	copied := make(chan struct{})
	go func() {
		// Ends when every process holding the pipe has exited: the group
		// kill below sees to that.
		defer close(copied)
		_, _ = io.Copy(sink, errR)
		errR.Close()
	}()
	go func() {
		p.err = cmd.Wait()
		killGroup(cmd.Process)
		// Let the last lines of standard error arrive before anyone quotes
		// them, unless something outside the group still holds the pipe.
		t := time.NewTimer(time.Second)
		select {
		case <-copied:
		case <-t.C:
		}
		t.Stop()
		sink.end(p.err)
		close(p.exited)
	}()
	return p, nil
}

// kill stops the child and its process group at once.
func (p *process) kill() {
	p.killed.Store(true)
	killGroup(p.cmd.Process)
}

// pid returns the child's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exitText says how the child ended: "exit status 3", "signal: killed".
func (p *process) exitText() string {
	if p.err == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ProcessState.String()
	}
	return p.err.Error()
}

// mergeEnv returns base with the variables of extra set, replacing any
// earlier definition of the same name.
func mergeEnv(base []string, extra map[string]string) []string {
	out := slices.Clone(base)
	if len(extra) == 0 {
		return out
	}
	out = slices.DeleteFunc(out, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := extra[k]
		return ok
	})
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

// A stderrSink receives a stdio server's standard error across its runs:
// it appends to the server's log file, up to MaxLogBytes per run, and
// keeps the last stderrTailBytes of the current run in memory. It is safe
// for concurrent use.
type stderrSink struct {
	path string // empty: no log file

	mu      sync.Mutex
	f       *os.File
	written int64
	tail    []byte
	openErr error
}

// logFileName returns the log file name of the server called name: the
// name made safe for any file system.
func logFileName(name string) string {
	return schema.SanitizeName(name) + ".log"
}

func newStderrSink(dir, server string) *stderrSink {
	if dir == "" {
		return &stderrSink{}
	}
	return &stderrSink{path: filepath.Join(dir, logFileName(server))}
}

// begin starts a run: the log file is opened (once) and gets a header.
func (s *stderrSink) begin(cmd *exec.Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written, s.tail = 0, s.tail[:0]
	if s.path == "" {
		return
	}
	if s.f == nil && s.openErr == nil {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			s.openErr = err
			return
		}
		s.f, s.openErr = os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if s.f != nil {
		fmt.Fprintf(s.f, "--- %s: started pid %d: %s\n", time.Now().Format(time.RFC3339), cmd.Process.Pid, strings.Join(cmd.Args, " "))
	}
}

// end notes the end of a run in the log.
func (s *stderrSink) end(waitErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		status := "exit status 0"
		if waitErr != nil {
			status = waitErr.Error()
		}
		fmt.Fprintf(s.f, "--- %s: exited: %s\n", time.Now().Format(time.RFC3339), status)
	}
}

func (s *stderrSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = append(s.tail, p...)
	if len(s.tail) > stderrTailBytes {
		s.tail = append(s.tail[:0], s.tail[len(s.tail)-stderrTailBytes:]...)
	}
	if s.f != nil && s.written < MaxLogBytes {
		n := min(int64(len(p)), MaxLogBytes-s.written)
		_, _ = s.f.Write(p[:n])
		s.written += n
		if s.written >= MaxLogBytes {
			fmt.Fprintf(s.f, "\n--- log cut at %d bytes for this run\n", MaxLogBytes)
		}
	}
	return len(p), nil
}

// quote returns the end of the current run's standard error, for an error
// message, or "" when there is none.
func (s *stderrSink) quote() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := bytes.TrimSpace(s.tail)
	if len(t) == 0 {
		return ""
	}
	if len(t) > stderrQuoteBytes {
		t = t[len(t)-stderrQuoteBytes:]
		if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
			t = t[i+1:]
		}
		t = append([]byte("..."), t...)
	}
	return strings.ToValidUTF8(string(t), "\uFFFD")
}

func (s *stderrSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
