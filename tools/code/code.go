package code

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
)

// A Language is a language run_code runs.
type Language string

// The languages, and the interpreter each runs with by default.
const (
	Python     Language = "python"     // python3
	JavaScript Language = "javascript" // node
	Bash       Language = "bash"       // bash
)

// languages lists the languages in the order the description gives them.
var languages = []Language{Python, JavaScript, Bash}

// Defaults for the fields of [Config] and [NewSessions].
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxTimeout  = 300 * time.Second
	DefaultMemory      = 1 << 30 // bytes of data segment per process
	DefaultOutputLimit = 24_000
	DefaultInlineLimit = 4096
	DefaultMaxSessions = 8
	// maxInputFiles bounds the bytes of the files argument.
	maxInputFiles = 4 << 20
	// maxResult bounds the bytes of the result the code hands back.
	maxResult = 1 << 20
	// maxListed bounds the files a result lists; maxSaved the bytes of
	// them copied to the workspace.
	maxListed = 100
	maxSaved  = 64 << 20
)

// Config configures run_code. The zero value gives the documented
// defaults and a tool that refuses every call, having no sandbox.
type Config struct {
	// Sandbox runs the code, typically a [*sandbox.Sandbox]. Nil means
	// that no sandbox is available, and every call fails saying so: code
	// is never run unsandboxed. A Sandbox whose Run fails with an
	// [*sandbox.UnavailableError] (one made on first use) fails each call
	// with that error's message, which names what to install.
	Sandbox Runner
	// Network allows the code the network. The tool is annotated
	// read-only only when the network is denied.
	Network bool
	// Hosts, when Network is false, are the hosts the sandbox's egress
	// proxy lets the code reach (its [sandbox.Config.Proxy]); the tool's
	// description names them. Nil means none.
	Hosts []string
	// Sessions keeps the scratch directories of named sessions. Nil means
	// that calls which name a session fail.
	Sessions *Sessions
	// Interpreters maps a language to the program that runs it, a name
	// looked up in PATH or a path. A missing entry means the default:
	// python3, node, bash.
	Interpreters map[Language]string
	// Timeout is the wall-clock limit of a call that gives none; zero
	// means DefaultTimeout. MaxTimeout is the largest timeout accepted;
	// zero means DefaultMaxTimeout. The CPU time of each process is
	// bounded by the call's timeout too.
	Timeout, MaxTimeout time.Duration
	// Memory is the data segment each process may have, in bytes; zero
	// means DefaultMemory.
	Memory int64
	// OutputLimit caps the bytes of each of standard output and standard
	// error in a result; longer output keeps its head and tail and is
	// saved whole to a file in the workspace. Zero means
	// DefaultOutputLimit. The sandbox stops code that prints more than
	// [sandbox.DefaultMaxOutput] bytes on either stream.
	OutputLimit int
	// InlineLimit is the size up to which a text file the code wrote is
	// shown in the result; zero means DefaultInlineLimit.
	InlineLimit int
}

func (c Config) withDefaults() Config {
	c.Timeout = cmpOr(c.Timeout, DefaultTimeout)
	c.MaxTimeout = cmpOr(c.MaxTimeout, DefaultMaxTimeout)
	c.Timeout = min(c.Timeout, c.MaxTimeout)
	c.Memory = cmpOr(c.Memory, DefaultMemory)
	c.OutputLimit = cmpOr(c.OutputLimit, DefaultOutputLimit)
	c.InlineLimit = cmpOr(c.InlineLimit, DefaultInlineLimit)
	interp := map[Language]string{Python: "python3", JavaScript: "node", Bash: "bash"}
	for l, p := range c.Interpreters {
		if p != "" {
			interp[l] = p
		}
	}
	c.Interpreters = interp
	return c
}

func cmpOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// A Runner runs a command in a sandbox, as [sandbox.Sandbox.Run] does. A
// Runner must be safe for concurrent use.
type Runner interface {
	Run(ctx context.Context, c *sandbox.Command) (*sandbox.Result, error)
}

// Tools returns the code tools: run_code.
func Tools(cfg Config) []*tool.Tool { return []*tool.Tool{NewRunCode(cfg)} }

// Sessions holds the scratch directories of named run_code sessions, all
// beneath one temporary directory that Close removes. The zero value is
// not usable; see [NewSessions]. It is safe for
// concurrent use.
type Sessions struct {
	dir string
	max int

	mu     sync.Mutex
	m      map[string]*session
	order  []string // names, oldest first
	closed bool
}

// A session is one session's scratch directory; mu serialises its calls.
type session struct {
	mu   sync.Mutex
	dir  string
	gone bool // removed by Close; guarded by mu
}

// ErrClosed is returned by [Sessions] methods after Close.
var ErrClosed = errors.New("code sessions closed")

// NewSessions returns a set of at most max sessions (zero means
// DefaultMaxSessions). Their parent directory is made in the system's
// temporary directory when the first session starts. The caller must
// Close it.
func NewSessions(max int) *Sessions {
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &Sessions{max: max, m: map[string]*session{}}
}

// Max returns the most sessions s holds.
func (s *Sessions) Max() int { return s.max }

// sessionName is what a session may be called.
var sessionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// get returns the session named name, making it if need be. The message
// of the error is for the model.
func (s *Sessions) get(name string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if ss, ok := s.m[name]; ok {
		return ss, nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "wield-code-sessions-")
		if err != nil {
			return nil, fmt.Errorf("cannot make the sessions' directory: %w", err)
		}
		s.dir = dir
	}
	if len(s.m) >= s.max {
		return nil, fmt.Errorf("there are already %d sessions (%s), the most there may be: reuse one of them", len(s.m), strings.Join(s.order, ", "))
	}
	dir := filepath.Join(s.dir, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session %s: %w", name, err)
	}
	ss := &session{dir: dir}
	s.m[name] = ss
	s.order = append(s.order, name)
	return ss, nil
}

// Names returns the names of the sessions, oldest first.
func (s *Sessions) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

// Close removes every session's scratch directory, waiting for calls
// running in a session to end. Later calls naming a session fail.
func (s *Sessions) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	all, dir := s.m, s.dir
	s.mu.Unlock()
	for _, ss := range all {
		ss.mu.Lock() // wait for its call
		ss.gone = true
		ss.mu.Unlock()
	}
	if dir == "" {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("code sessions: %w", err)
	}
	return nil
}
