package policy

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/wieldhq/wield/shellcmd"
	"github.com/wieldhq/wield/tool"
)

// FuzzParseRule: parsing never panics, and a parsed rule reads back the
// same.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(git diff:*)", "write_file(src/**)", "mcp__x__*", "WebFetch(domain:a.b)", "a(b", "(", "x()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		r2, err := ParseRule(r.String())
		if err != nil || r2 != r {
			t.Fatalf("%q parsed to %+v, which reads back as %+v (%v)", s, r, r2, err)
		}
	})
}

// FuzzShellNeverAllowsUnlisted: with only "echo:*" and "git status"
// allowed, a command line is allowed only if every simple command in it
// is a static echo, exactly git status, or an inert command (listed,
// read-only, expanding no variable or command output), with no output
// file.
func FuzzShellNeverAllowsUnlisted(f *testing.F) {
	for _, s := range []string{"echo hi", "echo hi; rm -rf /", "echo $(rm x)", "git status", "git status; ls", "echo > f", "FOO=1 echo", "e\\cho x", "echo `id`", "x=$(id) echo", "ls $HOME", "ls *.go", "cd .. && git status", "sleep 1; echo done", "cat a"} {
		f.Add(s)
	}
	p := &Policy{Logger: slog.New(slog.DiscardHandler)}
	p.Add(Allow, Rule{Tool: "run_shell_command", Specifier: "echo:*"}, Rule{Tool: "run_shell_command", Specifier: "git status"})
	sh, err := tool.NewRaw(tool.Spec{Name: "run_shell_command", Description: "sh", InputSchema: json.RawMessage(`{"type":"object"}`)},
		tool.HandlerFunc(nil))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args, _ := json.Marshal(map[string]string{"command": line})
		d := p.Decide(t.Context(), nil, sh, args)
		if d.Verdict != tool.Allow {
			return
		}
		// The policy judges the command as JSON carries it (invalid UTF-8
		// becomes U+FFFD).
		line, _ = argString(args, "command")
		cmds, err := shellcmd.Split(line)
		if err != nil {
			t.Fatalf("allowed an unparsable line %q", line)
		}
		for _, c := range cmds {
			if len(c.Args) == 0 {
				if outputFile(c) != "" {
					t.Fatalf("allowed %q, which writes a file", line)
				}
				continue
			}
			src := strings.TrimSpace(line[c.Start:c.End])
			ok := c.Args[0].Value == "echo" && !c.Args[0].Dynamic ||
				inert[c.Args[0].Value] && !c.Args[0].Dynamic && readOnlyCommand(c, src) == "" && !dynamicValue(c.Args) ||
				len(c.Args) == 2 && c.Args[0].Value == "git" && c.Args[1].Value == "status" && !c.Args[0].Dynamic && !c.Args[1].Dynamic
			if !ok || outputFile(c) != "" || len(c.Assigns) > 0 {
				t.Fatalf("allowed %q: command %+v is not covered", line, c)
			}
		}
	})
}

// dynamicValue reports whether an argument expands a variable or a
// command's output.
func dynamicValue(args []shellcmd.Word) bool {
	for _, a := range args {
		if a.Dynamic && strings.ContainsAny(a.Value, "$`") {
			return true
		}
	}
	return false
}
