package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/echo"
)

// newTestManager returns a manager for servers that is closed when the
// test ends.
func newTestManager(t *testing.T, servers map[string]ServerConfig, opts *ManagerOptions) *Manager {
	t.Helper()
	if opts == nil {
		opts = &ManagerOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	m := NewManager(servers, opts)
	t.Cleanup(func() { m.Close() })
	return m
}

// eventLog collects the events a runner reports.
type eventLog struct {
	mu     sync.Mutex
	events []tool.Event
}

func (l *eventLog) add(e tool.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *eventLog) progress() []tool.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []tool.Event
	for _, e := range l.events {
		if e.Kind == tool.EventProgress {
			out = append(out, e)
		}
	}
	return out
}

// runner returns a runner over reg that logs events to log.
func runner(reg *tool.Registry, log *eventLog) *tool.Runner {
	o := &tool.RunnerOptions{Logger: quiet(), SpillDir: os.TempDir()}
	if log != nil {
		o.OnEvent = log.add
	}
	return tool.NewRunner(reg, o)
}

func call(t *testing.T, r *tool.Runner, name, args string) tool.Result {
	t.Helper()
	res, err := r.Call(t.Context(), tool.Call{}, tool.Request{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: fault: %v", name, err)
	}
	return res
}

// mountAll mounts m's tools in a new registry and fails on any error.
func mountAll(t *testing.T, m *Manager) *tool.Registry {
	t.Helper()
	reg := &tool.Registry{}
	if errs := m.Mount(t.Context(), reg); len(errs) > 0 {
		t.Fatalf("Mount: %v", errors.Join(errs...))
	}
	return reg
}

func names(tools []*tool.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name())
	}
	return out
}

func TestManager_InMemory(t *testing.T) {
	hooks := &sdkHooks{waitStarted: make(chan struct{}, 1), waitStopped: make(chan error, 1)}
	changed := make(chan string, 4)
	m := newTestManager(t, map[string]ServerConfig{"mem": inMemory(newSDKServer(hooks))}, &ManagerOptions{
		OnToolsChanged: func(server string) { changed <- server },
	})
	reg := mountAll(t, m)
	want := []string{"mcp__mem__add", "mcp__mem__change", "mcp__mem__delete", "mcp__mem__echo", "mcp__mem__image", "mcp__mem__link", "mcp__mem__progress", "mcp__mem__wait"}
	if diff := cmp.Diff(want, names(reg.Tools())); diff != "" {
		t.Fatalf("mounted tools (-want +got):\n%s", diff)
	}
	log := &eventLog{}
	r := runner(reg, log)

	t.Run("spec", func(t *testing.T) {
		e, _ := reg.Lookup("mcp__mem__echo")
		spec := e.Spec()
		// The server is not trusted: its read-only claim is a label.
		if got := spec.Annotations; got != (tool.Annotations{Destructive: true, OpenWorld: true}) {
			t.Errorf("echo annotations = %+v, want destructive, open world (an untrusted server's)", got)
		}
		if !strings.HasPrefix(spec.Description, "Echoes text.") || !strings.Contains(spec.Description, `MCP server "mem"`) {
			t.Errorf("echo description = %q", spec.Description)
		}
		if spec.Timeout != DefaultCallTimeout {
			t.Errorf("echo timeout = %v, want the default call_timeout %v", spec.Timeout, DefaultCallTimeout)
		}
		d, _ := reg.Lookup("mcp__mem__delete")
		if got := d.Spec().Annotations; got != (tool.Annotations{Destructive: true, OpenWorld: true}) {
			t.Errorf("delete annotations = %+v, want destructive, open world", got)
		}
		if o, ok := m.Origin("mcp__mem__echo"); !ok || o != (Origin{Server: "mem", Tool: "echo", Hints: Hints{ReadOnly: true}}) {
			t.Errorf("Origin = %+v, %v", o, ok)
		}
		if o, ok := m.Origin("mcp__mem__delete"); !ok || o != (Origin{Server: "mem", Tool: "delete", Hints: Hints{Destructive: true, OpenWorld: true}}) {
			t.Errorf("Origin = %+v, %v", o, ok)
		}
	})

	tests := []struct {
		name, tool, args string
		success          bool
		output           []string
		check            func(t *testing.T, d *CallData)
	}{
		{name: "text", tool: "mcp__mem__echo", args: `{"text":"hi"}`, success: true,
			output: []string{`[untrusted output of MCP server "mem"`, "echo: hi"}},
		{name: "invalid arguments", tool: "mcp__mem__echo", args: `{"text":5}`, output: []string{"/text"}},
		{name: "structured", tool: "mcp__mem__add", args: `{"a":2,"b":3}`, success: true, output: []string{`{"sum":5}`},
			check: func(t *testing.T, d *CallData) {
				if string(d.Structured) != `{"sum":5}` {
					t.Errorf("structured = %s", d.Structured)
				}
			}},
		{name: "image", tool: "mcp__mem__image", args: `{}`, success: true, output: []string{"a pixel", "[image image/png 1x1, 67 bytes, attached]"},
			check: func(t *testing.T, d *CallData) {
				// The picture is in the result's Images, not in its data.
				if len(d.Blobs) != 1 || d.Blobs[0].Data != nil || d.Blobs[0].Size != len(tinyPNG) {
					t.Errorf("blobs = %+v", d.Blobs)
				}
			}},
		{name: "resources", tool: "mcp__mem__link", args: `{}`, success: true, output: []string{`[resource link file:///notes.txt "notes" (text/plain)]`, "embedded text"},
			check: func(t *testing.T, d *CallData) {
				if len(d.Links) != 1 || d.Links[0].URI != "file:///notes.txt" {
					t.Errorf("links = %+v", d.Links)
				}
			}},
		{name: "tool error", tool: "mcp__mem__delete", args: `{}`, output: []string{`reported an error in tool "delete"`, "permission denied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, r, tt.tool, tt.args)
			if res.Success != tt.success {
				t.Fatalf("success = %v, want %v: %s", res.Success, tt.success, res.ForModel())
			}
			for _, w := range tt.output {
				if !strings.Contains(res.ForModel(), w) {
					t.Errorf("result %q lacks %q", res.ForModel(), w)
				}
			}
			if tt.check != nil {
				d, ok := res.Data.(*CallData)
				if !ok {
					t.Fatalf("data = %T, want *CallData", res.Data)
				}
				tt.check(t, d)
			}
		})
	}

	t.Run("progress", func(t *testing.T) {
		res := call(t, r, "mcp__mem__progress", `{"steps":3}`)
		if !res.Success {
			t.Fatal(res.ForModel())
		}
		var got []float64
		for _, e := range log.progress() {
			got = append(got, e.Progress)
			if e.Total != 3 || !strings.HasPrefix(e.Message, "step ") || e.Tool != "mcp__mem__progress" {
				t.Errorf("event = %+v", e)
			}
		}
		// Every notification sent before the result reaches the call.
		if !slices.Equal(got, []float64{1, 2, 3}) {
			t.Errorf("progress = %v, want 1, 2, 3", got)
		}
	})

	t.Run("cancellation is forwarded", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan tool.Result, 1)
		go func() {
			res, _ := r.Call(ctx, tool.Call{}, tool.Request{Name: "mcp__mem__wait", Arguments: json.RawMessage(`{}`)})
			done <- res
		}()
		<-hooks.waitStarted
		cancel()
		if err := <-hooks.waitStopped; err == nil {
			t.Error("the server's handler context ended without a cause")
		}
		if res := <-done; res.Success || !strings.Contains(res.Error, "cancelled") {
			t.Errorf("cancelled call = %+v", res)
		}
	})

	t.Run("tools/list_changed", func(t *testing.T) {
		if res := call(t, r, "mcp__mem__change", `{}`); !res.Success {
			t.Fatal(res.ForModel())
		}
		if got := <-changed; got != "mem" {
			t.Fatalf("OnToolsChanged(%q)", got)
		}
		res := call(t, r, "mcp__mem__added", `{}`)
		if !res.Success || !strings.Contains(res.Output, "I am new") {
			t.Errorf("added tool: %s", res.ForModel())
		}
	})
}

func TestManager_IncludeExclude(t *testing.T) {
	srv := newSDKServer(nil)
	only := inMemory(srv)
	only.Include, only.Exclude = []string{"e*", "add", "link"}, []string{"link"}
	off := inMemory(srv)
	f := false
	off.Enabled = &f
	m := newTestManager(t, map[string]ServerConfig{"only": only, "off": off}, nil)
	tools, errs := m.Tools(t.Context())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if diff := cmp.Diff([]string{"mcp__only__add", "mcp__only__echo"}, names(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if st := m.Status(); st[0].Name != "off" || st[0].State != StateDisabled || st[1].State != StateRunning || st[1].Tools != 2 {
		t.Errorf("status = %+v", st)
	}
	if _, errs := m.ServerTools(t.Context(), "off"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "disabled") {
		t.Errorf("ServerTools(disabled) errors = %v", errs)
	}
	if _, errs := m.ServerTools(t.Context(), "nope"); len(errs) != 1 || !errors.Is(errs[0], ErrUnknownServer) {
		t.Errorf("ServerTools(unknown) errors = %v", errs)
	}
}

// TestManager_Collisions: tools of different servers that would get the
// same name are all left out, whatever the order, with an error naming
// them; the others are mounted.
func TestManager_Collisions(t *testing.T) {
	srv := newSDKServer(nil)
	m := newTestManager(t, map[string]ServerConfig{"a.b": inMemory(srv), "a_b": inMemory(srv)}, nil)
	for range 3 {
		tools, errs := m.Tools(t.Context())
		if len(tools) != 0 || len(errs) != 8 {
			t.Fatalf("Tools = %v, %v; want no tools and 8 collisions", names(tools), errs)
		}
		want := `tools "add" of mcp server "a.b" and "add" of mcp server "a_b" are all mounted as mcp__a_b__add; none of them is mounted`
		if !strings.Contains(errs[0].Error(), want) {
			t.Errorf("error = %v, want %s", errs[0], want)
		}
	}
	if _, err := m.Tool(t.Context(), "mcp__a_b__echo"); !errors.Is(err, tool.ErrNotFound) && err != nil {
		t.Errorf("Tool: %v", err)
	}
}

func TestManager_Tool(t *testing.T) {
	m := newTestManager(t, map[string]ServerConfig{
		"mem":   inMemory(newSDKServer(nil)),
		"other": testServer(t, "exit"), // never started: its name cannot match
	}, nil)
	got, err := m.Tool(t.Context(), "mcp__mem__echo")
	if err != nil || got.Name() != "mcp__mem__echo" {
		t.Fatalf("Tool = %v, %v", got, err)
	}
	if _, err := m.Tool(t.Context(), "mcp__mem__nope"); !errors.Is(err, tool.ErrNotFound) {
		t.Errorf("Tool(unknown) = %v, want ErrNotFound", err)
	}
	for _, st := range m.Status() {
		if st.Name == "other" && st.State != StateStopped {
			t.Errorf("Tool started server %q: %+v", st.Name, st)
		}
	}
}

// TestManager_CloseLetsAServerFinish checks that closing a stdio server
// gives it its grace time to finish after its standard input ends (to
// flush what it buffered, its traces among them) rather than killing it
// as soon as the connection ends.
func TestManager_CloseLetsAServerFinish(t *testing.T) {
	dir := t.TempDir()
	fifo, done := filepath.Join(dir, "fifo"), filepath.Join(dir, "done")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testServer(t, "linger")
	cfg.Env["WIELD_TEST_LINGER_FIFO"], cfg.Env["WIELD_TEST_LINGER_DONE"] = fifo, done
	m := NewManager(map[string]ServerConfig{"child": cfg}, &ManagerOptions{Logger: quiet()})
	mountAll(t, m)
	closed := make(chan struct{})
	go func() {
		m.Close()
		close(closed)
	}()
	// Opening the FIFO for writing returns once the server, its input
	// ended, opens it for reading; the byte lets it finish.
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write([]byte{1})
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-closed:
		// Killed before it could open the FIFO: unblock the writer.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-opened
			r.Close()
		}
		t.Fatal("Close killed the server before it finished")
	}
	<-closed
	if _, err := os.Stat(done); err != nil {
		t.Errorf("the server did not finish after its input ended: %v", err)
	}
}

func TestManager_Stdio(t *testing.T) {
	logs := t.TempDir()
	m := NewManager(map[string]ServerConfig{"child": testServer(t, "sdk")}, &ManagerOptions{LogDir: logs, Logger: quiet()})
	defer m.Close()
	reg := mountAll(t, m)
	r := runner(reg, nil)
	if res := call(t, r, "mcp__child__echo", `{"text":"over stdio"}`); !strings.Contains(res.Output, "echo: over stdio") {
		t.Fatalf("echo: %s", res.ForModel())
	}
	pid := m.Status()[0].PID
	if pid == 0 {
		t.Fatal("no pid for a running stdio server")
	}

	// The server exits in the middle of a call: the call fails and says
	// why, quoting the server's standard error.
	res := call(t, r, "mcp__child__crash", `{}`)
	for _, w := range []string{`mcp server "child" exited (exit status 3)`, "about to crash on purpose", "started again when next used", filepath.Join(logs, "child.log")} {
		if res.Success || !strings.Contains(res.Error, w) {
			t.Errorf("crash result %q lacks %q", res.ForModel(), w)
		}
	}
	// It comes back on next use.
	if res := call(t, r, "mcp__child__echo", `{"text":"again"}`); !strings.Contains(res.Output, "echo: again") {
		t.Fatalf("echo after the crash: %s", res.ForModel())
	}
	st := m.Status()[0]
	if st.Starts != 2 || st.Crashes != 1 || st.State != StateRunning || st.PID == pid {
		t.Errorf("status after a crash and a restart = %+v", st)
	}
	pid = st.PID
	m.Close()
	if !processGone(pid) {
		t.Errorf("server process %d still exists after Close", pid)
	}
	if st := m.Status()[0]; st.State != StateClosed {
		t.Errorf("state after Close = %s", st.State)
	}
	if res := call(t, r, "mcp__child__echo", `{"text":"x"}`); res.Success || !strings.Contains(res.Error, "closed") {
		t.Errorf("call after Close = %+v", res)
	}
	log, err := os.ReadFile(filepath.Join(logs, "child.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "test server ready"); n != 2 {
		t.Errorf("log has %d starts, want 2:\n%s", n, log)
	}
	if !strings.Contains(string(log), "about to crash on purpose") {
		t.Errorf("log lacks the crash:\n%s", log)
	}
}

// TestManager_WieldServer mounts wield's own MCP server, over streamable
// HTTP and over stdio.
func TestManager_WieldServer(t *testing.T) {
	reg, err := tool.NewRegistry(echo.New())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(reg, &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(hs.Close) // after the manager's Close, which ends its requests
	stdio := testServer(t, "wield")
	stdio.Trust = true
	m := newTestManager(t, map[string]ServerConfig{"http": {URL: hs.URL, Trust: true}, "stdio": stdio}, nil)
	r := runner(mountAll(t, m), nil)
	for _, name := range []string{"mcp__http__echo", "mcp__stdio__echo"} {
		res := call(t, r, name, `{"text":"round trip"}`)
		if !res.Success || !strings.HasSuffix(res.Output, "\nround trip") {
			t.Errorf("%s: %s", name, res.ForModel())
		}
		if d := res.Data.(*CallData); string(d.Structured) != `{"text":"round trip"}` {
			t.Errorf("%s: structured = %s", name, d.Structured)
		}
	}
	// wield's server marks echo read-only and closed-world, and the user
	// trusts it.
	e, _ := m.Tool(t.Context(), "mcp__http__echo")
	if a := e.Spec().Annotations; !a.ReadOnly || a.OpenWorld || a.Destructive {
		t.Errorf("annotations = %+v", a)
	}
}

// TestManager_SSEFallback reaches a server that speaks only the older
// HTTP+SSE transport through a plain url.
func TestManager_SSEFallback(t *testing.T) {
	srv := newSDKServer(nil)
	hs := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	for _, typ := range []string{"", "sse"} {
		m := newTestManager(t, map[string]ServerConfig{"old": {Type: typ, URL: hs.URL}}, nil)
		res := call(t, runner(mountAll(t, m), nil), "mcp__old__echo", `{"text":"sse"}`)
		if !strings.Contains(res.Output, "echo: sse") {
			t.Errorf("type %q: %s", typ, res.ForModel())
		}
		m.Close()
	}
}

// TestManager_Headers expands ${VAR} in headers and sends them.
func TestManager_Headers(t *testing.T) {
	srv := newSDKServer(nil)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	file := `{"mcpServers":{
		"good": {"type":"http","url":"` + hs.URL + `","headers":{"Authorization":"Bearer ${TOKEN}"}},
		"bad":  {"url":"` + hs.URL + `?key=secret","headers":{"Authorization":"Bearer ${WRONG:-nope}"}}}}`
	servers, err := ParseConfig([]byte(file), &LoadOptions{LookupEnv: func(k string) (string, bool) {
		if k == "TOKEN" {
			return "s3cret", true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, servers, nil)
	tools, errs := m.Tools(t.Context())
	if diff := cmp.Diff([]string{"mcp__good__add"}, names(tools)[:1]); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `cannot connect to mcp server "bad"`) || !strings.Contains(errs[0].Error(), "Unauthorized") {
		t.Errorf("errors = %v, want one saying bad is unauthorized", errs)
	}
	if strings.Contains(errors.Join(errs...).Error(), "secret") {
		t.Errorf("an error shows the URL's query: %v", errs)
	}
}

// TestManager_Backoff: a server that keeps failing is started again at
// once after its first failure, then only after the restart delay; calls
// in between fail at once with the last error.
func TestManager_Backoff(t *testing.T) {
	logs := t.TempDir()
	m := newTestManager(t, map[string]ServerConfig{"flaky": testServer(t, "exit")}, &ManagerOptions{LogDir: logs, RestartDelay: time.Hour})
	for i, want := range []string{
		`mcp server "flaky" exited during startup (exit status 1)`,
		`mcp server "flaky" exited during startup (exit status 1)`,
		"wield will try to start it again in 1h0m0s",
	} {
		_, errs := m.ServerTools(t.Context(), "flaky")
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) || !strings.Contains(errs[0].Error(), "fatal: API_KEY is not set") {
			t.Errorf("attempt %d: errors = %v, want %q and the server's stderr", i+1, errs, want)
		}
	}
	log, err := os.ReadFile(filepath.Join(logs, "flaky.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "started pid"); n != 2 {
		t.Errorf("the server was started %d times, want 2:\n%s", n, log)
	}
	if st := m.Status()[0]; st.State != StateFailed || st.Err == nil {
		t.Errorf("status = %+v", st)
	}
}

func TestManager_AddRemove(t *testing.T) {
	m := newTestManager(t, nil, nil)
	reg := mountAll(t, m)
	if err := m.Add("mem", inMemory(newSDKServer(nil))); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("mem", inMemory(newSDKServer(nil))); err == nil {
		t.Error("adding a server twice succeeded")
	}
	if err := m.Add("bad", ServerConfig{}); err == nil || !strings.Contains(err.Error(), `missing "command"`) {
		t.Errorf("Add(empty config) = %v", err)
	}
	tools, errs := m.MountServer(t.Context(), "mem")
	if len(errs) > 0 || len(tools) != 8 {
		t.Fatalf("MountServer = %v, %v", names(tools), errs)
	}
	if _, err := reg.Lookup("mcp__mem__echo"); err != nil {
		t.Fatal(err)
	}
	if !m.Remove("mem") || m.Remove("mem") {
		t.Error("Remove did not report the server once")
	}
	if len(reg.Tools()) != 0 {
		t.Errorf("tools left after Remove: %v", names(reg.Tools()))
	}
	m.Close()
	if err := m.Add("late", inMemory(newSDKServer(nil))); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close = %v", err)
	}
}
