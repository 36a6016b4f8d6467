package wield_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
)

// newWorkspace returns a workspace holding notes.txt, with HOME and the
// user's configuration in a folder of their own, so that no settings of
// the machine's user apply.
func newWorkspace(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WIELD_HOME", "")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func script(t *testing.T, lines ...string) *replay.Provider {
	t.Helper()
	entries, err := replay.Parse([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNew_runsATask(t *testing.T) {
	ws := newWorkspace(t)
	model := script(t,
		`{"round": 1, "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "notes.txt"}}, {"id": "c2", "name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]}`,
		`{"round": 2, "text": "It says 42."}`)
	var events []agent.Event
	a, err := wield.New(context.Background(), wield.Options{Workspace: ws, Provider: model, Model: "scripted",
		Loop: agent.Config{OnEvent: func(e agent.Event) { events = append(events, e) }}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := a.Store.Create(t.Context(), session.Header{Agent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a.Resume(context.Background(), s)
	out, err := a.Run(context.Background(), s, "What do the notes say?")
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "It says 42." || out.ToolCalls != 2 {
		t.Errorf("outcome = %q after %d calls, want the scripted answer after 2", out.Text, out.ToolCalls)
	}
	var read, write string
	for _, turn := range s.State().Turns {
		if turn.Kind != session.TurnToolResponse {
			continue
		}
		switch turn.Tool {
		case "read_file":
			read = turn.Output
		case "write_file":
			write = turn.Status + ": " + turn.Output
		}
	}
	if !strings.Contains(read, "the answer is 42") {
		t.Errorf("read_file's result in the journal = %q, want the file's content", read)
	}
	// Nobody can approve: the write is denied, with the reason in its
	// result, and nothing is written.
	if !strings.Contains(write, "approval") {
		t.Errorf("write_file's result = %q, want a denial that says it needs approval", write)
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("out.txt exists (err %v): a call that needed approval ran", err)
	}
	if len(events) == 0 {
		t.Error("OnEvent saw no events")
	}
	if err := a.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestNew_tools(t *testing.T) {
	ws := newWorkspace(t)
	decl := filepath.Join(ws, ".wield", "tools")
	if err := os.MkdirAll(decl, 0o755); err != nil {
		t.Fatal(err)
	}
	shout := `{"name": "shout", "description": "Shouts.", "input_schema": {"type": "object"}, "command": ["true"]}`
	if err := os.WriteFile(filepath.Join(decl, "shout.json"), []byte(shout), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    wield.Options
		has     []string
		hasNot  []string
		wantErr string
	}{
		{name: "defaults", has: []string{"read_file", "run_shell_command", "agent", "todo"},
			hasNot: []string{"delete_session", "register_mcp_server", "ask_user", "shout", "debug_mcp_server"}},
		{name: "a list", opts: wield.Options{Tools: []string{"read_file", "git_*"}}, has: []string{"read_file", "git_status"},
			hasNot: []string{"write_file", "agent"}},
		{name: "opt-in named", opts: wield.Options{Tools: []string{"delete_session", "agent"}}, has: []string{"delete_session", "agent"},
			hasNot: []string{"read_file"}},
		{name: "trusted workspace's declared tools", opts: wield.Options{Trusted: true}, has: []string{"shout"}},
		{name: "unknown tool", opts: wield.Options{Tools: []string{"read_fil"}}, wantErr: "read_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Workspace, opts.Provider, opts.Model = ws, script(t, `{"round": 1, "text": "ok"}`), "scripted"
			a, err := wield.New(context.Background(), opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New: err = %v, want one that mentions %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var names []string
			for _, tl := range a.Tools.Tools() {
				names = append(names, tl.Name())
			}
			for _, n := range tt.has {
				if !slices.Contains(names, n) {
					t.Errorf("%s is not offered: %v", n, names)
				}
			}
			for _, n := range tt.hasNot {
				if slices.Contains(names, n) {
					t.Errorf("%s is offered", n)
				}
			}
		})
	}
}

func TestNew_needsAModel(t *testing.T) {
	_, err := wield.New(context.Background(), wield.Options{Workspace: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "Provider") {
		t.Errorf("New without a provider: err = %v, want one naming Options.Provider", err)
	}
}

func TestNew_modelByName(t *testing.T) {
	ws := newWorkspace(t)
	keys := func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "test-key"
		}
		return ""
	}
	a, err := wield.New(context.Background(), wield.Options{Workspace: ws, Model: "anthropic:claude-sonnet-4-5", Getenv: keys})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Compaction.Window == 0 || a.Compaction.Model != "claude-sonnet-4-5" {
		t.Errorf("compaction of a catalogue model: window %d, model %q; want the catalogue's window and the model's name", a.Compaction.Window, a.Compaction.Model)
	}
	_, err = wield.New(context.Background(), wield.Options{Workspace: ws, Model: "anthropic:claude-sonnet-4-5", Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("New without the provider's key: err = %v, want one naming ANTHROPIC_API_KEY", err)
	}
}

// TestNew_hidesKnownSecrets checks that a key wield knows of (here a
// provider's variable) is hidden from the journal and the model when a
// file the agent reads holds it.
func TestNew_hidesKnownSecrets(t *testing.T) {
	ws := newWorkspace(t)
	const key = "sk-test-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("OPENAI_API_KEY="+key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := script(t,
		`{"round": 1, "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": ".env"}}]}`,
		`{"round": 2, "text": "done"}`)
	a, err := wield.New(context.Background(), wield.Options{Workspace: ws, Provider: model, Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s, err := a.Store.Create(t.Context(), session.Header{Agent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), s, "read .env"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(filepath.Join(ws, ".wield", "sessions"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), key) {
			t.Errorf("%s holds the key", path)
		}
		return err
	})
	if err != nil || files == 0 {
		t.Fatalf("reading the sessions: %v (%d files)", err, files)
	}
	sent, err := json.Marshal(model.Requests())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sent), "OPENAI_API_KEY=") {
		t.Error("the model was not sent the file at all")
	}
	if strings.Contains(string(sent), key) {
		t.Error("the model was sent the key")
	}
}
