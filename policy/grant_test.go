package policy

import (
	"encoding/json"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// TestGrantsStayInsideThePolicy checks that a skill's allowed-tools
// approve only what the user's rules leave open.
func TestGrantsStayInsideThePolicy(t *testing.T) {
	p := mustPolicy(t, ModeDefault, nil,
		[]string{"run_shell_command(git push:*)", "write_file(secrets/**)"},
		[]string{"run_shell_command(rm:*)", "web_fetch"})
	grants := map[string][]Rule{"s1": {}}
	for _, g := range []string{"Bash(git:*)", "Bash(rm:*)", "Bash", "Write(src/**)", "write_file(secrets/**)", "web_fetch"} {
		r, err := ParseRule(g)
		if err != nil {
			t.Fatal(err)
		}
		grants["s1"] = append(grants["s1"], r)
	}
	p.Grants = GrantFunc(func(id string) []Rule { return grants[id] })
	sh := fakeTool(t, "run_shell_command", tool.Annotations{})
	wr := fakeTool(t, "write_file", tool.Annotations{})
	web := fakeTool(t, "web_fetch", tool.Annotations{ReadOnly: true})
	path := func(p string) json.RawMessage { b, _ := json.Marshal(map[string]string{"path": p}); return b }
	tests := []struct {
		name    string
		session string
		tl      *tool.Tool
		args    json.RawMessage
		want    tool.Verdict
	}{
		{"granted command", "s1", sh, shellArgs("git log --oneline"), tool.Allow},
		{"granted command in another session", "s2", sh, shellArgs("git log --oneline"), tool.Ask},
		{"grant under an ask rule", "s1", sh, shellArgs("git push origin main"), tool.Ask},
		{"grant under a deny rule", "s1", sh, shellArgs("rm -rf build"), tool.Deny},
		{"bare shell grant is ignored", "s1", sh, shellArgs("make deploy"), tool.Ask},
		{"granted command writing a file", "s1", sh, shellArgs("git log > out.txt"), tool.Ask},
		{"granted path", "s1", wr, path("src/main.go"), tool.Allow},
		{"path outside the grant", "s1", wr, path("docs/a.md"), tool.Ask},
		{"granted path under an ask rule", "s1", wr, path("secrets/key.pem"), tool.Ask},
		{"granted tool the user denies", "s1", web, json.RawMessage(`{"url":"https://go.dev"}`), tool.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(t.Context(), &tool.Call{SessionID: tt.session}, tt.tl, tt.args)
			if d.Verdict != tt.want {
				t.Errorf("Decide(%s %s) = %s (%s), want %s", tt.tl.Name(), tt.args, d.Verdict, d.Reason, tt.want)
			}
		})
	}
}
