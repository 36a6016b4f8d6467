package compact

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
	"github.com/wieldhq/wield/tools/shell"
)

// calls returns the turns of one round of calls: the model's calls, then
// each call's result, succeeded.
func calls(cs ...[3]string) []session.Turn {
	resp := session.Turn{Kind: session.TurnModelResponse}
	var out []session.Turn
	for _, c := range cs {
		id := c[0] + "-" + c[1]
		resp.Calls = append(resp.Calls, llm.ToolCall{ID: id, Name: c[0], Arguments: json.RawMessage(c[1])})
		out = append(out, session.Turn{Kind: session.TurnToolResponse, CallID: id, Tool: c[0], Status: session.StatusSucceeded, Data: json.RawMessage(c[2])})
	}
	return append([]session.Turn{resp}, out...)
}

func TestBuildLedger_ReadsToolFacts(t *testing.T) {
	st := &session.State{Turns: calls(
		[3]string{"write_file", `{"path":"a.go"}`, `{"path":"a.go","created":true,"added":3}`},
		[3]string{"run_shell_command", `{"command":"go test ./..."}`, `{"exit_code":0}`},
		[3]string{"save", `{"file":"b.go"}`, `{}`},
		[3]string{"sh", `{"line":"make"}`, `{"exit_code":2}`},
		[3]string{"shell_kill", `{"job_id":"j1"}`, `{}`},
	)}
	renamed := map[string]tool.Spec{
		"save":       {Name: "save", Effect: tool.EffectWrite, KeyArgs: []string{"file"}},
		"sh":         {Name: "sh", Effect: tool.EffectRun, KeyArgs: []string{"line"}},
		"shell_kill": {Name: "shell_kill", Effect: tool.EffectState, KeyArgs: []string{"job_id"}},
	}
	zero, two := 0, 2
	tests := []struct {
		name     string
		tools    func(string) (tool.Spec, bool)
		files    []string
		commands []session.CommandRun
	}{
		{"wield's own tools by default", nil, []string{"a.go"},
			[]session.CommandRun{{Command: "go test ./...", ExitCode: &zero, Turn: 3}}},
		{"the run's tools", func(n string) (tool.Spec, bool) { s, ok := renamed[n]; return s, ok }, []string{"b.go"},
			[]session.CommandRun{{Command: "make", ExitCode: &two, Turn: 5}}},
		{"tools nobody knows", func(string) (tool.Spec, bool) { return tool.Spec{}, false }, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := BuildLedger(st, 1, st.Timeline(), 0, tt.tools)
			var files []string
			for _, f := range l.FilesWritten {
				files = append(files, f.Path)
			}
			if diff := cmp.Diff(tt.files, files); diff != "" {
				t.Errorf("files written (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.commands, l.Commands); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuiltinSpecMatchesTools: the facts the ledger falls back on are
// those of the tools' own specs.
func TestBuiltinSpecMatchesTools(t *testing.T) {
	for _, x := range []*tool.Tool{fs.NewWrite(fs.Config{}), fs.NewReplace(fs.Config{}), shell.NewRunShellCommand(shell.Config{})} {
		want := x.Spec()
		got, ok := builtinSpec(want.Name)
		if !ok {
			t.Errorf("builtinSpec(%q) knows nothing", want.Name)
			continue
		}
		if got.Effect != want.Effect || !cmp.Equal(got.KeyArgs, want.KeyArgs) {
			t.Errorf("builtinSpec(%q) = %s %v, the tool declares %s %v", want.Name, got.Effect, got.KeyArgs, want.Effect, want.KeyArgs)
		}
	}
}
