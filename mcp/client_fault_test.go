package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/tool"
)

// faultServers are servers that fail in every way the issue lists, next to
// one that works.
func faultServers(t *testing.T) map[string]ServerConfig {
	raw := testServer(t, "raw")
	raw.CallTimeout = Duration(time.Minute)
	// The same server again, for the calls that are never answered.
	quick := testServer(t, "raw")
	quick.CallTimeout = Duration(300 * time.Millisecond)
	quick.Include = []string{"never"}
	hang := testServer(t, "hang")
	hang.StartupTimeout = Duration(300 * time.Millisecond)
	return map[string]ServerConfig{
		"good":    inMemory(newSDKServer(nil)),
		"raw":     raw,
		"quick":   quick,
		"exit":    testServer(t, "exit"),
		"hang":    hang,
		"missing": {Command: "/nonexistent/wield-no-such-mcp-server"},
		"nohttp":  {URL: "http://127.0.0.1:1/mcp"},
	}
}

// TestFaults runs the bad inputs of the issue against one manager: a
// server that does not start, exits at once, hangs on initialize, is not
// listening, advertises broken schemas, sends malformed JSON-RPC, exits
// mid-call, returns huge or binary content, or never answers. Each is a
// clear error within a bounded wait, and the good server keeps working
// after each.
func TestFaults(t *testing.T) {
	m := newTestManager(t, faultServers(t), &ManagerOptions{LogDir: t.TempDir()})
	reg := &tool.Registry{}
	errs := m.Mount(t.Context(), reg)
	log := &eventLog{}
	r := runner(reg, log)
	good := func(t *testing.T) {
		t.Helper()
		if res := call(t, r, "mcp__good__echo", `{"text":"still here"}`); !strings.Contains(res.Output, "echo: still here") {
			t.Errorf("the good server after a fault: %s", res.ForModel())
		}
	}

	t.Run("start and list", func(t *testing.T) {
		wantErrs := []string{
			`mcp server "exit" exited during startup (exit status 1); its standard error ends with:` + "\nfatal: API_KEY is not set",
			`mcp server "hang" did not start within 300ms (its startup_timeout)`,
			`start mcp server "missing": fork/exec /nonexistent/wield-no-such-mcp-server: no such file or directory`,
			`cannot connect to mcp server "nohttp" at http://127.0.0.1:1/mcp: streamable HTTP:`,
			`mcp server "raw" lists tool "ok" twice; using the first`,
			`mcp server "raw": tool "broken-type" left out: invalid schema`,
			`mcp server "raw": tool "dangling-ref" left out: input schema: $ref "#/$defs/missing" does not resolve`,
			`mcp server "raw": tool "deep" left out: input schema: schema exceeds limits: nested 43 levels deep, at most 32 allowed`,
			`mcp server "raw": tool "not-object" left out: input schema must have "type": "object", got string`,
			`mcp server "raw": tool "remote-ref" left out: input schema: $ref "https://example.com/s.json" is not local to the schema, and wield never fetches schemas`,
		}
		if len(errs) != len(wantErrs) {
			t.Errorf("Mount returned %d errors, want %d:\n%v", len(errs), len(wantErrs), errors.Join(errs...))
		}
		all := errors.Join(errs...).Error()
		for _, w := range wantErrs {
			if !strings.Contains(all, w) {
				t.Errorf("errors lack %q:\n%s", w, all)
			}
		}
		var rawTools []string
		for _, tl := range reg.Tools() {
			if o, _ := m.Origin(tl.Name()); o.Server == "raw" {
				rawTools = append(rawTools, o.Tool)
			}
		}
		want := []string{"big", "binary", "defs", "error", "exit", "garbage", "huge", "never", "no-schema", "odd name/ü", "ok", "rpc-error", "tree", "tuple"}
		slices.Sort(rawTools)
		if diff := cmp.Diff(want, rawTools); diff != "" {
			t.Errorf("raw tools mounted (-want +got):\n%s", diff)
		}
		if _, err := reg.Lookup(ToolName("raw", "odd name/ü")); err != nil || ToolName("raw", "odd name/ü") != "mcp__raw__odd_name___" {
			t.Errorf("odd name mounted as %s: %v", ToolName("raw", "odd name/ü"), err)
		}
		states := map[string]State{}
		for _, st := range m.Status() {
			states[st.Name] = st.State
		}
		wantStates := map[string]State{"good": StateRunning, "raw": StateRunning, "quick": StateRunning, "exit": StateFailed, "hang": StateFailed, "missing": StateFailed, "nohttp": StateFailed}
		if diff := cmp.Diff(wantStates, states); diff != "" {
			t.Errorf("states (-want +got):\n%s", diff)
		}
		good(t)
	})

	t.Run("schemas", func(t *testing.T) {
		tests := []struct{ tool, want string }{
			{"defs", `{"properties":{"p":{"description":"where","properties":{"x":{"type":"number"}},"required":["x"],"type":"object"}},"type":"object"}`},
			{"tree", `{"$defs":{"node":{"properties":{"kids":{"items":{"$ref":"#/$defs/node"},"type":"array"}},"type":"object"}},"properties":{"root":{"properties":{"kids":{"items":{"$ref":"#/$defs/node"},"type":"array"}},"type":"object"}},"type":"object"}`},
			{"tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"pair":{"items":[{"type":"string"},{"type":"number"}],"type":"array"}},"type":"object"}`},
			{"no-schema", `{"type":"object"}`},
		}
		for _, tt := range tests {
			tl, err := reg.Lookup(ToolName("raw", tt.tool))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(tl.Spec().InputSchema); got != tt.want {
				t.Errorf("%s schema =\n%s\nwant\n%s", tt.tool, got, tt.want)
			}
		}
		// The inlined schema validates what the original meant.
		if res := call(t, r, "mcp__raw__defs", `{"p":{}}`); res.Success || !strings.Contains(res.Error, "/p") {
			t.Errorf("defs with p missing x: %s", res.ForModel())
		}
	})

	calls := []struct {
		name, tool string
		success    bool
		want       []string
	}{
		{"tool error", "error", false, []string{`mcp server "raw" reported an error in tool "error"`, `[untrusted output of MCP server "raw"`, "disk full"}},
		{"JSON-RPC error", "rpc-error", false, []string{`mcp server "raw" refused the call of "rpc-error": bad params: x is required (JSON-RPC error -32602)`}},
		{"big output", "big", true, []string{"abcdefghij", "bytes omitted of"}},
		{"binary output", "binary", true, []string{"bytes of text content that look binary", "[image application/octet-stream, 5 bytes, in data.blobs[0]]"}},
		{"never answers", "quick never", false, []string{"timed out after 300ms", `mcp server "quick" had not answered yet`}},
		{"malformed JSON-RPC", "garbage", false, []string{`the call was lost: mcp server "raw" sent something that is not a valid MCP message`, "invalid character", "started again when next used"}},
		{"message too large", "huge", false, []string{`the call was lost: mcp server "raw" sent something that is not a valid MCP message`, "exceeded the configured maximum line length"}},
		{"exits mid-call", "exit", false, []string{`the call was lost: mcp server "raw" exited (exit status 7)`, "crashing on purpose"}},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			server, name, ok := strings.Cut(tt.tool, " ")
			if !ok {
				server, name = "raw", tt.tool
			}
			res := call(t, r, ToolName(server, name), `{}`)
			if res.Success != tt.success {
				t.Errorf("success = %v, want %v", res.Success, tt.success)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.ForModel(), w) {
					t.Errorf("result lacks %q:\n%.2000s", w, res.ForModel())
				}
			}
			if len(res.Output) > MaxOutputBytes+1000 {
				t.Errorf("output is %d bytes, over the bound", len(res.Output))
			}
			// The server is back (or never left) for the next call, and
			// the others are unaffected.
			if res := call(t, r, "mcp__raw__ok", `{}`); !strings.Contains(res.Output, "fine") {
				t.Errorf("raw after %s: %s", tt.name, res.ForModel())
			}
			good(t)
		})
	}

	t.Run("call timeout without a runner", func(t *testing.T) {
		tl, _ := reg.Lookup("mcp__quick__never")
		res, err := tl.Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(`{}`))
		if err != nil || res.Error != `mcp server "quick" did not answer within 300ms (its call_timeout)` {
			t.Errorf("Handle = %+v, %v", res, err)
		}
	})

	t.Run("calls in flight fail when the server exits", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		arrived := make(chan struct{})
		slow := tool.NewRunner(reg, &tool.RunnerOptions{Logger: quiet(), OnEvent: func(e tool.Event) {
			if e.Kind == tool.EventProgress && e.Message == "received" {
				close(arrived)
			}
		}})
		done := make(chan tool.Result, 1)
		go func() {
			res, _ := slow.Call(ctx, tool.Call{}, tool.Request{Name: "mcp__raw__never", Arguments: json.RawMessage(`{}`)})
			done <- res
		}()
		<-arrived
		call(t, r, "mcp__raw__exit", `{}`)
		res := <-done
		if want := `the call was lost: mcp server "raw" exited (exit status 7)`; res.Success || !strings.Contains(res.Error, want) {
			t.Errorf("call in flight = %s, want %q", res.ForModel(), want)
		}
		good(t)
	})

	t.Run("status", func(t *testing.T) {
		for _, st := range m.Status() {
			// Started at first, and again after three of its four crashes.
			if st.Name == "raw" && (st.Crashes != 4 || st.Starts != 4 || st.State != StateFailed || !strings.Contains(st.Err.Error(), "exit status 7")) {
				t.Errorf("raw status = %+v, want 4 crashes, 4 starts, failed", st)
			}
		}
	})
}
