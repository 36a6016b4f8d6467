package mcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// The interop tests run the reference servers of the MCP project, which
// scripts/mcp-servers-interop.sh installs at pinned versions and names in
// these variables (the paths of their executables).
const (
	everythingEnv = "WIELD_MCP_EVERYTHING"
	filesystemEnv = "WIELD_MCP_FILESYSTEM"
)

// interopServer returns the executable env names. Without it the test
// fails, unless it runs on a developer's machine (CI unset) that allows
// skips with WIELD_ALLOW_SKIP=1.
func interopServer(t *testing.T, env string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		msg := env + " is not set: run scripts/mcp-servers-interop.sh, which installs the reference MCP servers and sets it"
		if mayskip() {
			t.Skip(msg)
		}
		t.Fatal(msg + " (outside CI, WIELD_ALLOW_SKIP=1 skips this test)")
	}
	return bin
}

// mayskip reports whether a test may skip for a missing peer: never in CI
// (CI set), and elsewhere only when WIELD_ALLOW_SKIP=1.
func mayskip() bool {
	return os.Getenv("CI") == "" && os.Getenv("WIELD_ALLOW_SKIP") == "1"
}

// interopMount mounts one server and requires that every tool it lists
// was imported.
func interopMount(t *testing.T, name string, cfg ServerConfig) (*Manager, *tool.Registry) {
	t.Helper()
	m := newTestManager(t, map[string]ServerConfig{name: cfg}, &ManagerOptions{LogDir: t.TempDir()})
	reg := &tool.Registry{}
	if errs := m.Mount(t.Context(), reg); len(errs) > 0 {
		t.Fatalf("mount %s: %v", name, errs)
	}
	st := m.Status()[0]
	s, _ := m.server(name)
	c, err := s.session(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var listed int
	for _, err := range c.session.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed++
	}
	if st.Tools != listed || len(reg.Tools()) != listed {
		t.Fatalf("%s lists %d tools; %d were imported and %d mounted", name, listed, st.Tools, len(reg.Tools()))
	}
	return m, reg
}

func TestInterop_Everything(t *testing.T) {
	bin := interopServer(t, everythingEnv)
	_, reg := interopMount(t, "everything", ServerConfig{Command: bin, Args: []string{"stdio"}})
	for _, name := range []string{"echo", "get-sum", "get-structured-content", "get-tiny-image", "trigger-long-running-operation"} {
		if _, err := reg.Lookup(ToolName("everything", name)); err != nil {
			t.Fatalf("tool %s not mounted: %v", name, err)
		}
	}
	log := &eventLog{}
	r := runner(reg, log)
	tests := []struct {
		tool, args string
		want       string
		check      func(t *testing.T, d *CallData)
		// checkResult sees the whole result (its images among them).
		checkResult func(t *testing.T, res tool.Result)
	}{
		{tool: "echo", args: `{"message":"hello from wield"}`, want: "Echo: hello from wield"},
		{tool: "get-sum", args: `{"a":2,"b":40}`, want: "42"},
		{tool: "get-structured-content", args: `{"location":"Chicago"}`, want: `"temperature":36`,
			check: func(t *testing.T, d *CallData) {
				var w struct {
					Temperature float64 `json:"temperature"`
					Conditions  string  `json:"conditions"`
				}
				if err := json.Unmarshal(d.Structured, &w); err != nil || w.Temperature != 36 || w.Conditions == "" {
					t.Errorf("structured content = %s (%v)", d.Structured, err)
				}
			}},
		{tool: "get-tiny-image", want: "[image image/png",
			checkResult: func(t *testing.T, res tool.Result) {
				// A picture a model can take is passed on as one of the
				// result's images, its bytes left out of the call data.
				if len(res.Images) != 1 || res.Images[0].MIMEType != "image/png" || !bytes.HasPrefix(res.Images[0].Data, []byte("\x89PNG")) {
					t.Errorf("images = %+v, want one PNG", res.Images)
				}
				if d := res.Data.(*CallData); len(d.Blobs) != 1 || len(d.Blobs[0].Data) != 0 {
					t.Errorf("blobs = %+v, want the picture described without its bytes", d.Blobs)
				}
			}},
		{tool: "trigger-long-running-operation", args: `{"duration":0.3,"steps":3}`, want: "Long running operation completed",
			check: func(t *testing.T, d *CallData) {
				var got []float64
				for _, e := range log.progress() {
					if e.Tool == ToolName("everything", "trigger-long-running-operation") {
						got = append(got, e.Progress)
					}
				}
				if !slices.Equal(got, []float64{1, 2, 3}) {
					t.Errorf("progress events = %v, want 1, 2, 3", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, r, ToolName("everything", tt.tool), cmp.Or(tt.args, "{}"))
			if !res.Success || !strings.Contains(res.Output, tt.want) {
				t.Fatalf("result = %s, want %q", res.ForModel(), tt.want)
			}
			if tt.check != nil {
				tt.check(t, res.Data.(*CallData))
			}
			if tt.checkResult != nil {
				tt.checkResult(t, res)
			}
		})
	}
}

func TestInterop_Filesystem(t *testing.T) {
	bin := interopServer(t, filesystemEnv)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes, written := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "sub", "written.txt")
	if err := os.WriteFile(notes, []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "more-notes.md"), []byte("# more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, reg := interopMount(t, "fs", ServerConfig{Command: bin, Args: []string{dir}, Trust: true})
	if o, ok := m.Origin(ToolName("fs", "read_text_file")); !ok || !o.Trusted || !o.Hints.ReadOnly {
		t.Errorf("read_text_file origin = %+v: a read-only tool of a trusted server", o)
	}
	for name, readOnly := range map[string]bool{"read_text_file": true, "edit_file": false} {
		tl, err := reg.Lookup(ToolName("fs", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := tl.Spec().Annotations.ReadOnly; got != readOnly {
			t.Errorf("%s read-only = %v, want %v (the trusted server's word)", name, got, readOnly)
		}
	}
	r := runner(reg, nil)
	args := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	steps := []struct {
		tool, args string
		want       []string
	}{
		{"read_text_file", args(map[string]any{"path": notes}), []string{"alpha\nbeta\ngamma"}},
		{"read_text_file", args(map[string]any{"path": notes, "head": 1}), []string{"alpha"}},
		{"search_files", args(map[string]any{"path": dir, "pattern": "**/*notes*"}), []string{notes, filepath.Join(dir, "sub", "more-notes.md")}},
		{"edit_file", args(map[string]any{"path": notes, "edits": []map[string]string{{"oldText": "beta", "newText": "BETA"}}}), []string{"-beta", "+BETA"}},
		{"read_text_file", args(map[string]any{"path": notes}), []string{"alpha\nBETA\ngamma"}},
		{"write_file", args(map[string]any{"path": written, "content": "written through MCP\n"}), []string{"Successfully wrote"}},
	}
	for _, st := range steps {
		res := call(t, r, ToolName("fs", st.tool), st.args)
		for _, w := range st.want {
			if !res.Success || !strings.Contains(res.Output, w) {
				t.Errorf("%s %s = %s, want %q", st.tool, st.args, res.ForModel(), w)
			}
		}
	}
	// Outside its directories the server refuses, and says so.
	res := call(t, r, ToolName("fs", "read_text_file"), args(map[string]any{"path": "/etc/hostname"}))
	if res.Success || !strings.Contains(res.Error, "reported an error") {
		t.Errorf("read outside the allowed directory = %s", res.ForModel())
	}
	// What the server said it did, it did.
	for file, want := range map[string]string{notes: "alpha\nBETA\ngamma\n", written: "written through MCP\n"} {
		if got, err := os.ReadFile(file); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", file, got, err, want)
		}
	}
}
