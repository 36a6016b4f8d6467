package mcp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool/tooltest"
)

func TestRegisterServer_Contract(t *testing.T) {
	m := newTestManager(t, nil, nil)
	rt := NewRegisterServer(m)
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
	if err := reg.Register(NewRegisterServer(m)); err != nil {
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
