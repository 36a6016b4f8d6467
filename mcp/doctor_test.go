package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

// TestDiagnose diagnoses real servers, healthy and broken, each in the
// way it fails: the test binary run as a go-sdk server, as wield's own
// server and as a hand-written one with broken schemas; a command that
// does not exist; one that exits with status 3 after writing to standard
// error; one that never answers (a short startup_timeout, no sleeping);
// one that writes text on standard output; an HTTP server that answers
// 401; and an invalid configuration.
func TestDiagnose(t *testing.T) {
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no token", http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	short := func(cfg ServerConfig) ServerConfig {
		cfg.StartupTimeout = Duration(300 * time.Millisecond)
		return cfg
	}
	servers := map[string]ServerConfig{
		"sdk":     testServer(t, "sdk"),
		"wield":   testServer(t, "wield"),
		"raw":     testServer(t, "raw"),
		"missing": {Command: "wield-no-such-command-xyz"},
		"exit3":   testServer(t, "exit3"),
		"hang":    short(testServer(t, "hang")),
		"banner":  testServer(t, "banner"),
		"http401": {URL: unauthorized.URL + "/mcp"},
		"invalid": {Command: "x", URL: "http://h"},
		"off":     {Command: "x", Disabled: true},
	}
	m := newTestManager(t, servers, &ManagerOptions{LogDir: t.TempDir()})
	rep, err := m.Diagnose(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.V != ReportVersion || len(rep.Servers) != len(servers) || rep.Healthy() {
		t.Fatalf("report: v%d, %d servers, healthy %v", rep.V, len(rep.Servers), rep.Healthy())
	}
	by := map[string]Diagnosis{}
	for _, d := range rep.Servers {
		by[d.Name] = d
	}
	tests := []struct {
		name, status, stage string
		// want are substrings of the server's text block.
		want []string
	}{
		{"sdk", StatusOK, "", []string{"server        test-sdk 1, protocol 20", "capabilities  tools, tools.listChanged", "tools         9 listed, 9 mounted: mcp__sdk__add,", "stderr (last 1 lines, log ", "test server ready"}},
		{"wield", StatusOK, "", []string{"server        wield", "tools         1 listed, 1 mounted: mcp__wield__echo"}},
		{"raw", StatusOK, "", []string{"server        raw 1, protocol 2025-06-18", "tool problem  not-object: input schema must have \"type\": \"object\", got string",
			"tool problem  remote-ref:", "tool problem  broken-type:", "tool problem  deep:"}},
		{"missing", StatusFailed, StageStart, []string{`problem       command "wield-no-such-command-xyz" was not found`, "fix           install it, or give its full path"}},
		{"exit3", StatusFailed, StageInitialize, []string{"problem       the program exited with status 3 before it answered the initialize request",
			"    loading config\n    fatal: cannot open database /var/db/x.db\n"}},
		{"hang", StatusFailed, StageInitialize, []string{"problem       it did not answer the initialize request within 300ms", `raise "startup_timeout"`}},
		{"banner", StatusFailed, StageInitialize, []string{"not a valid MCP message (invalid character", "a stdio server must write only JSON-RPC messages on standard output"}},
		{"http401", StatusFailed, StageInitialize, []string{"problem       the server answered HTTP 401 Unauthorized", `"Authorization"`}},
		{"invalid", StatusFailed, StageConfig, []string{"problem       its configuration is invalid", "give either"}},
		{"off", StatusDisabled, "", []string{"off: disabled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := by[tt.name]
			var b strings.Builder
			d.format(&b)
			if d.Status != tt.status || d.Stage != tt.stage {
				t.Errorf("status %q at %q, want %q at %q\n%s", d.Status, d.Stage, tt.status, tt.stage, b.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
	if d := by["exit3"]; d.ExitCode == nil || *d.ExitCode != 3 {
		t.Errorf("exit3: exit code %v", d.ExitCode)
	}
	if d := by["http401"]; d.HTTPStatus != http.StatusUnauthorized {
		t.Errorf("http401: HTTP status %d", d.HTTPStatus)
	}
	if d := by["sdk"]; d.InitializeMs <= 0 || d.ListToolsMs <= 0 || d.PID == 0 || d.Tools != 9 {
		t.Errorf("sdk: initialize %vms, tools/list %vms, pid %d, %d tools", d.InitializeMs, d.ListToolsMs, d.PID, d.Tools)
	}
	// The diagnosis ran servers of its own: the manager's are not started.
	for _, s := range m.Status() {
		if s.State == StateRunning || s.Starts != 0 {
			t.Errorf("server %q of the manager was started: %+v", s.Name, s)
		}
	}
	// The JSON form is versioned.
	b, err := json.Marshal(rep)
	if err != nil || !strings.HasPrefix(string(b), `{"v":1,"servers":[`) {
		t.Errorf("JSON = %.80s, %v", b, err)
	}
}

func TestDiagnoseUnknownServer(t *testing.T) {
	m := newTestManager(t, map[string]ServerConfig{"a": {Command: "x"}}, nil)
	if _, err := m.Diagnose(t.Context(), "nope"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Diagnose(nope) = %v, want ErrUnknownServer", err)
	}
}

// TestDiagnoseLeavesTheRunningServerAlone diagnoses a server while it
// runs: the running one keeps its process, and its state is reported.
func TestDiagnoseLeavesTheRunningServerAlone(t *testing.T) {
	m := newTestManager(t, map[string]ServerConfig{"sdk": testServer(t, "sdk")}, nil)
	reg := mountAll(t, m)
	before := m.Status()[0]
	rep, err := m.Diagnose(t.Context(), "sdk")
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Servers[0]
	if d.Status != StatusOK || d.Live != string(StateRunning) || d.PID == before.PID {
		t.Errorf("diagnosis: status %s, live %s, pid %d (running pid %d)", d.Status, d.Live, d.PID, before.PID)
	}
	if after := m.Status()[0]; after.PID != before.PID || after.State != StateRunning {
		t.Errorf("the running server changed: %+v, was %+v", after, before)
	}
	if res := call(t, runner(reg, nil), "mcp__sdk__echo", `{"text":"still here"}`); !strings.Contains(res.Output, "echo: still here") {
		t.Errorf("after the diagnosis: %s", res.ForModel())
	}
}

func TestDebugServer(t *testing.T) {
	m := newTestManager(t, map[string]ServerConfig{"wield": testServer(t, "wield"), "exit3": testServer(t, "exit3")}, nil)
	dt := NewDebugServer(m)
	if err := tooltest.Check(t.Context(), dt, tooltest.Cases{
		Valid:   []string{`{"name":"wield"}`, `{}`},
		Invalid: []string{`{"name":3}`},
	}); err != nil {
		t.Error(err)
	}
	if a := dt.Spec().Annotations; !a.ReadOnly || !a.OpenWorld {
		t.Errorf("annotations = %+v, want read-only and open-world", a)
	}
	if d := dt.Spec().Description; strings.Contains(d, "{{") || !strings.Contains(d, "last 20 lines") {
		t.Errorf("description not rendered: %s", d)
	}
	reg, err := tool.NewRegistry(dt)
	if err != nil {
		t.Fatal(err)
	}
	r := runner(reg, nil)
	tests := []struct {
		args    string
		success bool
		want    string
	}{
		{`{"name":"wield"}`, true, "wield: ok (stdio: "},
		{`{"name":"exit3"}`, true, "exited with status 3"},
		{`{}`, true, "exit3: FAILED at initialize"},
		{`{"name":"nope"}`, false, `unknown mcp server "nope"; the servers are: exit3, wield`},
	}
	for _, tt := range tests {
		res := call(t, r, "debug_mcp_server", tt.args)
		if res.Success != tt.success || !strings.Contains(res.ForModel(), tt.want) {
			t.Errorf("debug_mcp_server(%s) = %s\nwant success %v and %q", tt.args, res.ForModel(), tt.success, tt.want)
		}
	}
}

// FuzzStderrLines reads arbitrary log files: what it quotes is at most
// maxStderrLines lines of valid UTF-8, none empty, none a header of the
// log, all from the latest run.
func FuzzStderrLines(f *testing.F) {
	f.Add("--- 2026-11-25T07:00:00Z: started pid 1: x\nold\n--- 2026-11-25T07:00:01Z: exited: exit status 1\n--- 2026-11-25T07:01:00Z: started pid 2: x\nnew\n")
	f.Add("no header\n\n\xff\xfe\n")
	f.Add(strings.Repeat("line\n", 50))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, log string) {
		path := filepath.Join(dir, "s.log")
		if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
			t.Fatal(err)
		}
		lines := stderrLines(&stderrSink{path: path})
		if len(lines) > maxStderrLines {
			t.Fatalf("%d lines", len(lines))
		}
		for _, l := range lines {
			if l == "" || strings.HasPrefix(l, "--- ") || !utf8.ValidString(l) || strings.Contains(l, "\n") {
				t.Fatalf("line %q", l)
			}
		}
		if strings.HasSuffix(log, ": started pid 2: x\nnew\n") && !slices.Contains(lines, "new") {
			t.Fatalf("the latest run's line is missing: %q", lines)
		}
	})
}
