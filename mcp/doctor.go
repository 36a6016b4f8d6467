package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReportVersion is the version of the JSON form of a [Report]. It changes
// when a field changes meaning or goes away, not when one is added.
const ReportVersion = 1

// maxStderrLines is how many of the last lines of a server's standard
// error a [Diagnosis] quotes.
const maxStderrLines = 20

// A Report is what [Manager.Diagnose] finds: one [Diagnosis] per server,
// sorted by name.
type Report struct {
	// V is ReportVersion.
	V       int         `json:"v"`
	Servers []Diagnosis `json:"servers"`
}

// Healthy reports whether no server failed (a disabled one has not).
func (r *Report) Healthy() bool {
	return !slices.ContainsFunc(r.Servers, func(d Diagnosis) bool { return d.Status == StatusFailed })
}

// The statuses of a [Diagnosis].
const (
	StatusOK       = "ok"
	StatusFailed   = "failed"
	StatusDisabled = "disabled"
)

// The stages of a server's start, as a failed [Diagnosis] names them.
const (
	StageConfig     = "config"     // its configuration is invalid
	StageStart      = "start"      // the program did not start, or the URL was not reached
	StageInitialize = "initialize" // the initialize handshake failed
	StageListTools  = "tools/list" // listing its tools failed
)

// A Diagnosis is what starting one server, as wield would, found: how it
// is reached, the handshake, its tools and, when it failed, why and what
// to do.
type Diagnosis struct {
	Name string `json:"name"`
	// Transport is "stdio", "http", "sse" or "inproc"; Command and Args
	// start a stdio server, URL (without its query or user information)
	// reaches an HTTP one. Source is the file it is configured in.
	Transport string   `json:"transport"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	Source    string   `json:"source,omitempty"`
	// Trusted reports whether the user's own configuration trusts it;
	// Registered whether the agent added it (register_mcp_server), and
	// Confirmed whether the user confirmed it since.
	Trusted    bool `json:"trusted"`
	Registered bool `json:"registered,omitempty"`
	Confirmed  bool `json:"confirmed,omitempty"`

	// Status is StatusOK, StatusFailed or StatusDisabled.
	Status string `json:"status"`
	// Stage, Problem and Fix say, for a failed server, where it failed,
	// why in words, and what to do; Error is the error itself.
	Stage   string `json:"stage,omitempty"`
	Problem string `json:"problem,omitempty"`
	Fix     string `json:"fix,omitempty"`
	Error   string `json:"error,omitempty"`
	// ExitCode is the exit status of a stdio server that exited before
	// it answered; HTTPStatus the last HTTP error status an HTTP server
	// answered with.
	ExitCode   *int `json:"exit_code,omitempty"`
	HTTPStatus int  `json:"http_status,omitempty"`
	// PID is the process id the stdio server ran as.
	PID int `json:"pid,omitempty"`

	// ProtocolVersion, ServerName, ServerVersion and Capabilities are
	// what the server answered to initialize; Instructions is the start
	// of its instructions.
	ProtocolVersion string   `json:"protocol_version,omitempty"`
	ServerName      string   `json:"server_name,omitempty"`
	ServerVersion   string   `json:"server_version,omitempty"`
	Capabilities    []string `json:"capabilities,omitempty"`
	Instructions    string   `json:"instructions,omitempty"`
	// InitializeMs is the time from the start (spawn or first request)
	// to the initialize answer; ListToolsMs the time tools/list took,
	// all pages.
	InitializeMs float64 `json:"initialize_ms,omitempty"`
	ListToolsMs  float64 `json:"list_tools_ms,omitempty"`
	// Tools counts the tools listed; Mounted are the names of those wield
	// mounts (after include and exclude, and without the broken ones);
	// ToolProblems are the tools left out and why.
	Tools        int           `json:"tools"`
	Mounted      []string      `json:"mounted,omitempty"`
	ToolProblems []ToolProblem `json:"tool_problems,omitempty"`

	// Stderr are the last lines the stdio server wrote to standard error
	// in this start; LogFile is the file all of it goes to.
	Stderr  []string `json:"stderr,omitempty"`
	LogFile string   `json:"log_file,omitempty"`

	// Live is the state of the server in the manager that was asked,
	// which the diagnosis did not disturb: "running", "failed" (with
	// LiveError), "stopped" and so on.
	Live      string `json:"live,omitempty"`
	LiveError string `json:"live_error,omitempty"`
}

// A ToolProblem is a listed tool wield leaves out, and why.
type ToolProblem struct {
	Tool    string `json:"tool"`
	Problem string `json:"problem"`
}

// Diagnose starts each server called one of names (every server when
// names is empty), as wield would but in a manager of its own, so that
// the servers this one runs are left alone: it runs the initialize
// handshake and tools/list, each bounded by the server's startup_timeout,
// checks every tool's schema and reads the end of the server's standard
// error, then stops it. Servers are diagnosed at once. It returns an
// error wrapping [ErrUnknownServer] for a name the manager does not know.
func (m *Manager) Diagnose(ctx context.Context, names ...string) (Report, error) {
	servers := m.sortedServers()
	if len(names) > 0 {
		var chosen []*server
		for _, n := range names {
			i := slices.IndexFunc(servers, func(s *server) bool { return s.name == n })
			if i < 0 {
				return Report{}, fmt.Errorf("%w %q", ErrUnknownServer, n)
			}
			chosen = append(chosen, servers[i])
		}
		servers = chosen
	}
	rep := Report{V: ReportVersion, Servers: make([]Diagnosis, len(servers))}
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() { rep.Servers[i] = m.diagnose(ctx, s) })
	}
	wg.Wait()
	return rep, nil
}

// diagnose starts s in a manager of its own and reports what happened.
func (m *Manager) diagnose(ctx context.Context, s *server) (d Diagnosis) {
	cfg := s.cfg
	d = Diagnosis{Name: s.name, Transport: cfg.transport(), Command: cfg.Command, Args: cfg.Args, Source: cfg.Source, Trusted: cfg.Trust}
	if cfg.URL != "" {
		d.URL = redactURL(cfg.URL)
	}
	m.mu.Lock()
	d.Confirmed, d.Registered = m.registered[s.name]
	m.mu.Unlock()
	live := s.status()
	d.Live = string(live.State)
	if live.Err != nil {
		d.LiveError = live.Err.Error()
	}
	switch {
	case s.cfgErr != nil:
		d.Status, d.Stage, d.Problem, d.Error = StatusFailed, StageConfig, "its configuration is invalid", s.cfgErr.Error()
		d.Fix = "correct its entry"
		if cfg.Source != "" {
			d.Fix += " in " + cfg.Source
		}
		return d
	case !cfg.IsEnabled():
		d.Status = StatusDisabled
		return d
	}

	status := &statusRecorder{}
	opts := m.opts
	// The diagnosis says what went wrong; the manager's warnings would
	// say it again.
	opts.OnToolsChanged, opts.Logger = nil, nil
	opts.HTTPClient = status.client(m.opts.HTTPClient)
	tm := NewManager(map[string]ServerConfig{s.name: cfg}, &opts)
	ts := tm.servers[s.name]
	d.LogFile = ts.stderr.path
	if d.Transport != "stdio" {
		d.LogFile = ""
	}
	defer func() {
		tm.Close()
		d.Stderr = stderrLines(ts.stderr)
	}()

	start := time.Now()
	c, err := ts.session(ctx)
	d.InitializeMs = millis(time.Since(start))
	if err != nil {
		d.Status = StatusFailed
		d.HTTPStatus = int(status.last.Load())
		d.explain(&cfg, err)
		return d
	}
	if c.proc != nil {
		d.PID = c.proc.pid()
	}
	if res := c.session.InitializeResult(); res != nil {
		d.ProtocolVersion = res.ProtocolVersion
		if res.ServerInfo != nil {
			d.ServerName, d.ServerVersion = res.ServerInfo.Name, res.ServerInfo.Version
		}
		d.Capabilities = capabilities(res.Capabilities)
		d.Instructions = boundText(strings.TrimSpace(res.Instructions), 500)
	}

	start = time.Now()
	listed, err := ts.listRaw(ctx, c)
	d.ListToolsMs = millis(time.Since(start))
	if err != nil {
		d.Status, d.Stage, d.Error = StatusFailed, StageListTools, err.Error()
		d.Problem = "it answered initialize but not tools/list"
		var te *timeoutError
		if errors.As(err, &te) {
			d.Problem = fmt.Sprintf("it answered initialize but did not list its tools within %v", cfg.startupTimeout())
		}
		d.Fix = "run the command by hand and send it tools/list, or read its log; a server without tools need not be configured"
		return d
	}
	d.Status, d.Tools = StatusOK, len(listed)
	for _, st := range listed {
		if st == nil || !cfg.keeps(st.Name) {
			continue
		}
		if _, err := ts.convertTool(st); err != nil {
			d.ToolProblems = append(d.ToolProblems, ToolProblem{Tool: st.Name, Problem: err.Error()})
		}
	}
	for _, t := range ts.convert(listed).tools {
		d.Mounted = append(d.Mounted, t.Name())
	}
	return d
}

// listRaw lists the tools of the server on c as it sends them, all pages,
// bounded by its startup_timeout.
func (s *server) listRaw(ctx context.Context, c *conn) ([]*sdk.Tool, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.startupTimeout(),
		&timeoutError{fmt.Sprintf("mcp server %q did not list its tools within %v (its startup_timeout)", s.name, s.cfg.startupTimeout())})
	defer cancel()
	var listed []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for page := 0; page < maxListPages; page++ {
		res, err := c.session.ListTools(ctx, params)
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, fmt.Errorf("list tools of mcp server %q: %w", s.name, err)
		}
		listed = append(listed, res.Tools...)
		if res.NextCursor == "" {
			return listed, nil
		}
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
	return nil, fmt.Errorf("list tools of mcp server %q: more than %d pages", s.name, maxListPages)
}

// explain fills in the stage, problem and fix of a server that did not
// start, from the error its start returned.
func (d *Diagnosis) explain(cfg *ServerConfig, err error) {
	d.Error = err.Error()
	d.Stage = StageInitialize
	var (
		exited  *exitedError
		timeout *timeoutError
		bad     *badFrameError
	)
	switch {
	case errors.As(err, &bad):
		d.Problem = "it wrote something on standard output that is not a valid MCP message (" + bad.frame.Error() + "): a stdio server must write only JSON-RPC messages on standard output"
		d.Fix = "make it print its logs and banners to standard error, not standard output, or pass the flag that turns on its stdio mode"
	case errors.As(err, &exited) && exited.code == 0 && d.Transport == "stdio":
		code := 0
		d.ExitCode = &code
		d.Problem = fmt.Sprintf("the program exited (status 0) without answering the initialize request: %v", exited.handshake)
		d.Fix = "check that the command starts an MCP server on standard input and output (some need a flag such as --stdio), and that it prints nothing but JSON-RPC messages on standard output"
	case errors.As(err, &exited):
		code := exited.code
		d.ExitCode = &code
		d.Problem = fmt.Sprintf("the program exited with status %d before it answered the initialize request", code)
		d.Fix = "read its standard error below; run the command by hand (with the same arguments and env) to see why it stops"
	case errors.As(err, &timeout):
		d.Problem = fmt.Sprintf("it did not answer the initialize request within %v", cfg.startupTimeout())
		d.Fix = "run the command by hand: it may wait for input, a login or a download (npx -y fetches packages on first use); raise \"startup_timeout\" if it is only slow"
		if d.Transport != "stdio" {
			d.Fix = "check that the URL is an MCP endpoint and the server is up; raise \"startup_timeout\" if it is only slow"
		}
	case d.Transport == "stdio" && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)):
		d.Stage = StageStart
		d.Problem = fmt.Sprintf("command %q was not found", cfg.Command)
		d.Fix = "install it, or give its full path in \"command\" (a bare name is looked up in wield's PATH)"
	case d.Transport == "stdio" && errors.Is(err, fs.ErrPermission):
		d.Stage = StageStart
		d.Problem = fmt.Sprintf("command %q cannot be run: permission denied", cfg.Command)
		d.Fix = "make it executable (chmod +x), or run it through its interpreter in \"command\""
	case d.HTTPStatus == http.StatusUnauthorized || d.HTTPStatus == http.StatusForbidden:
		d.Problem = fmt.Sprintf("the server answered HTTP %d %s", d.HTTPStatus, http.StatusText(d.HTTPStatus))
		d.Fix = "give the credentials it wants in \"headers\" (usually \"Authorization\": \"Bearer ${TOKEN}\"), and check that the token is valid"
	case d.HTTPStatus == http.StatusNotFound || d.HTTPStatus == http.StatusMethodNotAllowed:
		d.Problem = fmt.Sprintf("the server answered HTTP %d %s: there is no MCP endpoint at that URL", d.HTTPStatus, http.StatusText(d.HTTPStatus))
		d.Fix = "check the URL's path (often /mcp, or /sse for the older transport)"
	case d.HTTPStatus != 0:
		d.Problem = fmt.Sprintf("the server answered HTTP %d %s", d.HTTPStatus, http.StatusText(d.HTTPStatus))
		d.Fix = "see the server's own logs"
	case errors.Is(err, syscall.ECONNREFUSED):
		d.Stage = StageStart
		d.Problem = "nothing accepts connections at that address"
		d.Fix = "start the server, or correct the host and port in \"url\""
	case d.Transport == "stdio":
		d.Problem = "its answer to the initialize request is not a valid MCP message: a stdio server must write only JSON-RPC messages on standard output"
		d.Fix = "make it print its logs to standard error, not standard output, or pass the flag that turns on its stdio mode"
	default:
		d.Problem = "the initialize handshake failed"
		d.Fix = "check that the URL is an MCP endpoint; see the error"
	}
}

// capabilities names what the server says it offers.
func capabilities(c *sdk.ServerCapabilities) []string {
	if c == nil {
		return nil
	}
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(c.Tools != nil, "tools")
	add(c.Tools != nil && c.Tools.ListChanged, "tools.listChanged")
	add(c.Resources != nil, "resources")
	add(c.Prompts != nil, "prompts")
	add(c.Completions != nil, "completions")
	for _, k := range slices.Sorted(maps.Keys(c.Experimental)) {
		out = append(out, "experimental."+k)
	}
	return out
}

// stderrLines returns the last lines of standard error of the latest run
// of sink: from its log file when it has one, else from memory.
func stderrLines(sink *stderrSink) []string {
	var lines []string
	if sink.path != "" {
		if data, err := os.ReadFile(sink.path); err == nil {
			lines = strings.Split(string(data), "\n")
			// The latest run starts after the last "started" header.
			for i := len(lines) - 1; i >= 0; i-- {
				if strings.HasPrefix(lines[i], "--- ") && strings.Contains(lines[i], ": started pid ") {
					lines = lines[i+1:]
					break
				}
			}
		}
	}
	if lines == nil {
		lines = strings.Split(sink.quote(), "\n")
	}
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimRight(l, " \t\r"); l != "" && !strings.HasPrefix(l, "--- ") {
			out = append(out, strings.ToValidUTF8(boundText(l, 500), "\uFFFD"))
		}
	}
	return out[max(0, len(out)-maxStderrLines):]
}

func millis(d time.Duration) float64 {
	return float64(d.Round(10*time.Microsecond)) / float64(time.Millisecond)
}

// A statusRecorder remembers the last HTTP error status a server
// answered with.
type statusRecorder struct {
	last atomic.Int32
	base http.RoundTripper
}

// client returns a copy of base (nil: a default client) whose responses
// go through r.
func (r *statusRecorder) client(base *http.Client) *http.Client {
	hc := &http.Client{}
	if base != nil {
		*hc = *base
	}
	r.base = cmp.Or[http.RoundTripper](hc.Transport, http.DefaultTransport)
	hc.Transport = r
	return hc
}

func (r *statusRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		r.last.Store(int32(resp.StatusCode))
	}
	return resp, err
}

// exitedError is the error of a stdio server that exited during its
// start; code is its exit status (-1 when a signal ended it).
type exitedError struct {
	msg  string
	code int
	// handshake is the error the initialize handshake failed with.
	handshake error
}

func (e *exitedError) Error() string { return e.msg }

func (e *exitedError) Unwrap() error { return e.handshake }

// badFrameError is the error of a handshake that failed because the
// server sent something unreadable: frame says why it was.
type badFrameError struct {
	err, frame error
}

func (e *badFrameError) Error() string { return e.err.Error() }

func (e *badFrameError) Unwrap() error { return e.err }

// timeoutError is the cause given when a server's start or listing runs
// out of its startup_timeout.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string { return e.msg }

// Format writes the report as text, one block per server: what a person
// or a model reads (wield mcp doctor, debug_mcp_server).
func (r *Report) Format(w io.Writer) error {
	var b strings.Builder
	for i := range r.Servers {
		r.Servers[i].format(&b)
	}
	if len(r.Servers) == 0 {
		b.WriteString("no MCP servers configured\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (d *Diagnosis) format(b *strings.Builder) {
	how := d.Transport
	switch {
	case d.Command != "":
		how += ": " + strings.Join(append([]string{d.Command}, d.Args...), " ")
	case d.URL != "":
		how += ": " + d.URL
	}
	status := d.Status
	if d.Status == StatusFailed {
		status = "FAILED"
		if d.Stage != "" {
			status += " at " + d.Stage
		}
	}
	fmt.Fprintf(b, "%s: %s (%s)\n", d.Name, status, how)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "  %-13s %s\n", k, v)
		}
	}
	var trust []string
	switch {
	case d.Trusted:
		trust = append(trust, "trusted by the user's mcp.json")
	case d.Registered && d.Confirmed:
		trust = append(trust, "registered by the agent, confirmed by the user")
	case d.Registered:
		trust = append(trust, "registered by the agent, not confirmed: each call of its tools asks")
	default:
		trust = append(trust, "untrusted (its tool annotations are labels only)")
	}
	if d.Source != "" {
		trust = append(trust, "from "+d.Source)
	}
	line("trust", strings.Join(trust, ", "))
	if d.ServerName != "" || d.ProtocolVersion != "" {
		line("server", strings.TrimSpace(d.ServerName+" "+d.ServerVersion)+", protocol "+d.ProtocolVersion)
	}
	line("capabilities", strings.Join(d.Capabilities, ", "))
	if d.Status != StatusDisabled && d.Stage != StageConfig {
		t := fmt.Sprintf("initialize %.1fms", d.InitializeMs)
		if d.ListToolsMs > 0 {
			t += fmt.Sprintf(", tools/list %.1fms", d.ListToolsMs)
		}
		line("timing", t)
	}
	if d.Status == StatusOK {
		tools := fmt.Sprintf("%d listed, %d mounted", d.Tools, len(d.Mounted))
		if len(d.Mounted) > 0 {
			tools += ": " + strings.Join(d.Mounted, ", ")
		}
		line("tools", tools)
	}
	for _, p := range d.ToolProblems {
		line("tool problem", p.Tool+": "+p.Problem)
	}
	line("problem", d.Problem)
	line("fix", d.Fix)
	if d.Error != "" {
		line("error", oneLineText(d.Error, 300))
	}
	if d.Live != "" && d.Live != string(StateStopped) {
		live := "in this wield: " + d.Live
		if d.LiveError != "" {
			live += ": " + oneLineText(d.LiveError, 200)
		}
		line("live", live)
	}
	if len(d.Stderr) == 0 {
		line("log", d.LogFile)
	} else {
		head := fmt.Sprintf("stderr (last %d lines", len(d.Stderr))
		if d.LogFile != "" {
			head += ", log " + d.LogFile
		}
		fmt.Fprintf(b, "  %s):\n", head)
		for _, l := range d.Stderr {
			fmt.Fprintf(b, "    %s\n", l)
		}
	}
}

// oneLineText returns s on one line, cut to at most n bytes.
func oneLineText(s string, n int) string {
	return boundText(strings.Join(strings.Fields(s), " "), n)
}
