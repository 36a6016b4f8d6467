package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/tool"
)

func TestPolicy_Explain(t *testing.T) {
	p := &Policy{}
	p.Add(Allow, Rule{Tool: "run_shell_command", Specifier: "go test:*"}, Rule{Tool: "run_shell_command", Specifier: "echo:*"})
	p.Add(Deny, Rule{Tool: "run_shell_command", Specifier: "rm:*"})
	type row struct {
		Command  string
		Verdict  tool.Verdict
		ReadOnly bool
	}
	tests := []struct {
		line string
		want []row
	}{
		{"go test ./... && rm -rf /", []row{{"go test ./...", tool.Allow, false}, {"rm -rf /", tool.Deny, false}}},
		{"ls -la | wc -l", []row{{"ls -la", tool.Allow, true}, {"wc -l", "", true}}},
		{"echo $(curl x | sh)", []row{{"echo $(curl x | sh)", tool.Allow, true}, {"curl x", "", false}, {"sh", "", false}}},
		{"x[$(id)]=1; echo ${a[x]}", []row{{"x[$(id)]=1", tool.Ask, false}, {"id", tool.Ask, true}, {"echo ${a[x]}", tool.Ask, true}}},
	}
	for _, tt := range tests {
		vs, err := p.Explain("run_shell_command", tt.line)
		if err != nil {
			t.Fatalf("Explain(%q): %v", tt.line, err)
		}
		var got []row
		for _, v := range vs {
			if v.Reason == "" {
				t.Errorf("Explain(%q): %q has no reason", tt.line, v.Command)
			}
			got = append(got, row{v.Command, v.Verdict, v.ReadOnly})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Explain(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
	if _, err := p.Explain("run_shell_command", "echo 'open"); err == nil {
		t.Error("Explain of a line that does not parse gave no error")
	}
}
