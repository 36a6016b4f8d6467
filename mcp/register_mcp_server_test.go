package mcp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

func TestRegisterServer_Contract(t *testing.T) {
	m := newTestManager(t, nil, nil)
	rt := NewRegisterServer(m, nil)
	if err := tooltest.Check(t.Context(), rt, tooltest.Cases{
		Valid:   []string{`{"name":"x","command":"x"}`, `{"name":"x","url":"http://127.0.0.1:1/","headers":{"A":"b"}}`},
		Invalid: []string{`{}`, `{"command":"x"}`, `{"name":"x","args":"a"}`, `{"name":"x","env":{"A":1}}`},
	}); err != nil {
		t.Error(err)
	}
	if a := rt.Spec().Annotations; !a.Destructive || !a.OpenWorld || a.ReadOnly || a.ParallelSafe {
		t.Errorf("annotations = %+v, want destructive and open-world only", a)
	}
	if strings.Contains(rt.Spec().Description, "{{") || !strings.Contains(rt.Spec().Description, DefaultStartupTimeout.String()) {
		t.Errorf("description not rendered: %s", rt.Spec().Description)
	}
}

func TestRegisterServer(t *testing.T) {
	m := newTestManager(t, nil, nil)
	reg := mountAll(t, m)
	if err := reg.Register(NewRegisterServer(m, nil)); err != nil {
		t.Fatal(err)
	}
	r := runner(reg, nil)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := func(name, mode string) string {
		b, _ := json.Marshal(RegisterInput{Name: name, Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{testServerEnv: mode}})
		return string(b)
	}
	tests := []struct {
		name, args string
		success    bool
		want       string
	}{
		{"stdio server", args("child", "sdk"), true, `Registered MCP server "child" with 9 tools: mcp__child__add, mcp__child__change, mcp__child__crash,`},
		{"same name again", args("child", "sdk"), false, `a server of that name exists already`},
		{"server that does not start", args("broken", "exit"), false, `mcp server "broken" was not registered: mcp server "broken" exited during startup (exit status 1)`},
		{"command and url", `{"name":"x","command":"a","url":"http://h"}`, false, `give exactly one of "command" (a stdio server) or "url" (an HTTP server)`},
		{"neither", `{"name":"x"}`, false, `give exactly one of`},
		{"bad url", `{"name":"x","url":"file:///etc"}`, false, `must start with http:// or https://`},
		{"variables are not expanded", `{"name":"v","url":"http://127.0.0.1:1/${HOME}"}`, false, `/$%7BHOME%7D`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, r, "register_mcp_server", tt.args)
			if res.Success != tt.success || !strings.Contains(res.ForModel(), tt.want) {
				t.Errorf("result = %s\nwant success %v and %q", res.ForModel(), tt.success, tt.want)
			}
		})
	}
	// The new server's tools are mounted and work; the failed ones are gone.
	if res := call(t, r, "mcp__child__echo", `{"text":"registered"}`); !strings.Contains(res.Output, "echo: registered") {
		t.Errorf("registered tool: %s", res.ForModel())
	}
	for _, st := range m.Status() {
		if st.Name != "child" {
			t.Errorf("server %q kept after a failed registration", st.Name)
		}
	}
}

// gateFunc decides by the tool alone.
type gateFunc func(*tool.Tool) tool.Decision

func (f gateFunc) Decide(_ context.Context, _ *tool.Call, t *tool.Tool, _ json.RawMessage) tool.Decision {
	return f(t)
}

// askLog is an approver that allows every call and remembers why each
// was asked.
type askLog struct {
	mu  sync.Mutex
	why map[string][]string // by tool
}

func (a *askLog) Approve(_ context.Context, _ *tool.Call, t *tool.Tool, _ json.RawMessage, d tool.Decision) tool.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.why[t.Name()] = append(a.why[t.Name()], d.Reason)
	return tool.Decision{Verdict: tool.Allow}
}

func (a *askLog) asked(name string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.why[name]
}

// TestRegisteredServerAsksUntilConfirmed registers a server through a
// gate that asks for the registration and would allow everything else:
// the question shows the command and the names of its variables, never
// their values; the
// server's tools reach a filtered copy of the registry (as a run's is)
// and ask at every call until the user confirms the server. The session
// records the registration without the value, and a new manager restores
// it, confirmed, from the session.
func TestRegisteredServerAsksUntilConfirmed(t *testing.T) {
	const value = "value-of-the-key-5c1a"
	m := newTestManager(t, nil, nil)
	reg := mountAll(t, m)
	store := &session.Store{Dir: t.TempDir()}
	if err := reg.Register(NewRegisterServer(m, &RegisterOptions{Recorder: registered.Store{Sessions: store}})); err != nil {
		t.Fatal(err)
	}
	run := reg.Exclude([]string{"nothing*"}) // the run's own copy
	m.Track(run)
	asks := &askLog{why: map[string][]string{}}
	// The inner gate asks for register_mcp_server, as the policy does
	// for a destructive tool, and allows everything else.
	inner := gateFunc(func(t *tool.Tool) tool.Decision {
		if t.Name() == "register_mcp_server" {
			return tool.Decision{Verdict: tool.Ask, Reason: "no rule allows it"}
		}
		return tool.Decision{Verdict: tool.Allow, Reason: "yolo"}
	})
	r := tool.NewRunner(run, &tool.RunnerOptions{Logger: quiet(), Gate: ConfirmGate(m, inner), Approver: asks})
	sess, err := store.Create(t.Context(), session.Header{ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.Begin(t.Context(), "add a server"); err != nil {
		t.Fatal(err)
	}
	cfg := testServer(t, "sdk")
	cfg.Env["API_KEY"] = value
	args, _ := json.Marshal(RegisterInput{Name: "child", Command: cfg.Command, Args: cfg.Args, Env: cfg.Env})
	do := func(name, args string) tool.Result {
		t.Helper()
		res, err := r.Call(t.Context(), tool.Call{SessionID: "s1"}, tool.Request{ID: "c-" + name, Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := do("register_mcp_server", string(args)); !res.Success || !strings.Contains(res.Output, "every call of its tools asks") {
		t.Fatalf("register: %s", res.ForModel())
	}
	why := strings.Join(asks.asked("register_mcp_server"), "\n")
	if !strings.Contains(why, `server "child", command `+cfg.Command) || !strings.Contains(why, "env API_KEY, "+testServerEnv) || strings.Contains(why, value) {
		t.Errorf("register_mcp_server asked because: %s", why)
	}
	for i := range 2 {
		if res := do("mcp__child__echo", `{"text":"hi"}`); !strings.Contains(res.Output, "echo: hi") {
			t.Fatalf("call %d: %s", i, res.ForModel())
		}
	}
	if got := asks.asked("mcp__child__echo"); len(got) != 2 || !strings.Contains(got[0], `MCP server "child", which the agent registered and you have not confirmed`) ||
		!strings.Contains(got[0], "(Manager.Confirm; no allow rule") {
		t.Errorf("the calls asked %d times: %q", len(got), got)
	}
	if !m.Confirm("child") || m.Confirm("nope") {
		t.Fatal("Confirm")
	}
	if _, err := registered.Append(sess, registered.Entry{Action: registered.Confirm, Name: "child"}); err != nil {
		t.Fatal(err)
	}
	do("mcp__child__echo", `{"text":"again"}`)
	if got := asks.asked("mcp__child__echo"); len(got) != 2 {
		t.Errorf("a call of the confirmed server asked: %q", got)
	}

	// The session holds the registration, without the value.
	servers := registered.Servers(sess.State())
	if len(servers) != 1 || !servers[0].Confirmed || servers[0].Added.Command != cfg.Command || servers[0].Added.CallID != "c-register_mcp_server" ||
		!slices.Equal(servers[0].Added.Env, []string{"API_KEY", testServerEnv}) {
		t.Fatalf("recorded: %+v", servers)
	}
	if err := sess.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(store.Path("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(journal), value) || !strings.Contains(string(journal), `"op":"mcp_server"`) {
		t.Errorf("journal:\n%s", journal)
	}

	// A resumed session's manager mounts it again, confirmed; a missing
	// value is reported by name.
	m2 := newTestManager(t, nil, nil)
	reg2 := mountAll(t, m2)
	lookup := func(k string) (string, bool) { return cfg.Env[k], k == testServerEnv }
	errs := m2.Restore(t.Context(), servers, lookup)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "API_KEY not set") || strings.Contains(errs[0].Error(), value) {
		t.Errorf("Restore errors = %v", errs)
	}
	if _, err := reg2.Lookup("mcp__child__echo"); err != nil {
		t.Errorf("after Restore: %v", err)
	}
	if _, unconfirmed := m2.Unconfirmed("mcp__child__echo"); unconfirmed {
		t.Error("the restored server lost its confirmation")
	}
	// Removed (an undo), its tools leave the run's registry too.
	m.Remove("child")
	if _, err := run.Lookup("mcp__child__echo"); err == nil {
		t.Error("the removed server's tool is still in the run's registry")
	}
}

// TestTrackKeepsTheFilterOfACopy tracks a copy of a mounted registry
// that left one tool of a server out: when the server's tool list
// changes, the new tool joins the copy and the left-out one stays out.
func TestTrackKeepsTheFilterOfACopy(t *testing.T) {
	changed := make(chan string, 4)
	m := newTestManager(t, map[string]ServerConfig{"sdk": testServer(t, "sdk")},
		&ManagerOptions{OnToolsChanged: func(server string) { changed <- server }})
	reg := mountAll(t, m)
	cp := reg.Exclude([]string{"mcp__sdk__delete"})
	m.Track(cp)
	if res := call(t, runner(cp, nil), "mcp__sdk__change", `{}`); !strings.Contains(res.Output, "changed") {
		t.Fatalf("change: %s", res.ForModel())
	}
	if got := <-changed; got != "sdk" {
		t.Fatalf("OnToolsChanged(%q)", got)
	}
	if _, err := cp.Lookup("mcp__sdk__added"); err != nil {
		t.Errorf("the new tool did not join the copy: %v", err)
	}
	if _, err := cp.Lookup("mcp__sdk__delete"); err == nil {
		t.Error("the tool the copy left out came back")
	}
	if _, err := reg.Lookup("mcp__sdk__delete"); err != nil {
		t.Errorf("the mounted registry lost a tool: %v", err)
	}
}
