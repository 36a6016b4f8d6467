package policy_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
)

// newTool returns a tool that only has a name and annotations: a policy
// judges a call by the tool's name, its annotations and the arguments.
func newTool(name string, ann tool.Annotations) *tool.Tool {
	t, err := tool.NewRaw(tool.Spec{Name: name, Description: name, Annotations: ann,
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		tool.HandlerFunc(func(context.Context, *tool.Call, json.RawMessage) (tool.Result, error) {
			return tool.Text("ran"), nil
		}))
	if err != nil {
		log.Fatal(err)
	}
	return t
}

// Example applies settings in Claude Code's format and judges calls: a
// read-only tool runs, rules allow or deny by path and by command, every
// simple command of a shell line is judged, and what no rule covers asks.
func Example() {
	var s policy.Settings
	err := json.Unmarshal([]byte(`{"permissions": {
		"allow": ["Bash(git diff:*)", "Bash(go test:*)", "write_file(src/**)"],
		"deny":  ["Bash(rm:*)", "write_file(.env*)"]
	}}`), &s)
	if err != nil {
		log.Fatal(err)
	}
	p := &policy.Policy{}
	if err := p.Apply(&s); err != nil {
		log.Fatal(err)
	}

	read := newTool("read_file", tool.Annotations{ReadOnly: true})
	write := newTool("write_file", tool.Annotations{})
	shell := newTool("run_shell_command", tool.Annotations{})
	calls := []struct {
		tool *tool.Tool
		args string
	}{
		{read, `{"path":"README.md"}`},
		{write, `{"path":"src/main.go"}`},
		{write, `{"path":".env"}`},
		{shell, `{"command":"git diff --stat && go test ./..."}`},
		{shell, `{"command":"git diff; rm -rf build"}`},
		{shell, `{"command":"make"}`},
	}
	for _, c := range calls {
		d := p.Decide(context.Background(), nil, c.tool, json.RawMessage(c.args))
		fmt.Printf("%s %s: %s (%s)\n", c.tool.Name(), c.args, d.Verdict, d.Reason)
	}
	// Output:
	// read_file {"path":"README.md"}: allow (read-only tool)
	// write_file {"path":"src/main.go"}: allow (allowed by write_file(src/**))
	// write_file {"path":".env"}: deny (denied by the rule write_file(.env*))
	// run_shell_command {"command":"git diff --stat && go test ./..."}: allow (every command is allowed by a rule)
	// run_shell_command {"command":"git diff; rm -rf build"}: deny ("rm -rf build" is denied by the rule run_shell_command(rm:*))
	// run_shell_command {"command":"make"}: ask (run_shell_command: no rule allows "make")
}

// Example_headless shows a policy with nobody to approve calls: what would
// ask is denied, with a reason the model reads. HeadlessHint is the host's
// advice on how the user grants permission.
func Example_headless() {
	p := &policy.Policy{Headless: true, HeadlessHint: "ask the user to allow it in the settings"}
	write := newTool("write_file", tool.Annotations{})
	d := p.Decide(context.Background(), nil, write, json.RawMessage(`{"path":"main.go"}`))
	fmt.Println(d.Verdict)
	fmt.Println(d.Reason)
	// Output:
	// deny
	// needs approval and nobody can give it in this headless run (write_file: no rule allows it); ask the user to allow it in the settings
}

// ExampleAllowAlways shows the rules that "allow always" stores for a
// shell line: for each simple command the command and subcommand as a
// prefix, or the exact command when there is no subcommand; never a bare
// command name or the verbatim line.
func ExampleAllowAlways() {
	p := &policy.Policy{}
	rules, err := policy.AllowAlways(p, "run_shell_command", json.RawMessage(`{"command":"git diff --stat main && go test -run TestX ./..."}`))
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rules {
		fmt.Println(r)
	}
	// Output:
	// run_shell_command(git diff:*)
	// run_shell_command(go test:*)
}

// Example_planMode reads each session's mode from the host (here a map;
// wield reads its session store): in plan mode writes and shell lines
// that are not read-only are denied whatever the rules say, and only the
// session's plan file may be written.
func Example_planMode() {
	modes := map[string]policy.Mode{"s1": policy.ModePlan}
	p := &policy.Policy{Modes: policy.ModeFunc(func(id string) (policy.Mode, bool) {
		m, ok := modes[id]
		return m, ok
	})}
	if err := p.Add(policy.Allow, policy.Rule{Tool: "write_file"}, policy.Rule{Tool: "run_shell_command"}); err != nil {
		log.Fatal(err)
	}
	write := newTool("write_file", tool.Annotations{Destructive: true})
	shell := newTool("run_shell_command", tool.Annotations{Destructive: true})
	call := &tool.Call{SessionID: "s1"}
	for _, c := range []struct {
		t    *tool.Tool
		args string
	}{
		{write, `{"path":"main.go"}`},
		{write, `{"path":".wield/plans/s1/fix-the-bug.md"}`},
		{shell, `{"command":"git log --oneline | head"}`},
		{shell, `{"command":"sort -o out.txt in.txt"}`},
	} {
		d := p.Decide(context.Background(), call, c.t, json.RawMessage(c.args))
		fmt.Printf("%s %s: %s\n", c.t.Name(), c.args, d.Verdict)
	}
	modes["s1"] = policy.ModeDefault // the plan was approved
	d := p.Decide(context.Background(), call, write, json.RawMessage(`{"path":"main.go"}`))
	fmt.Println("after approval, write_file main.go:", d.Verdict)
	// Output:
	// write_file {"path":"main.go"}: deny
	// write_file {"path":".wield/plans/s1/fix-the-bug.md"}: allow
	// run_shell_command {"command":"git log --oneline | head"}: allow
	// run_shell_command {"command":"sort -o out.txt in.txt"}: deny
	// after approval, write_file main.go: allow
}

// Explain shows a person each command of a line and what the rules say
// about it.
func ExamplePolicy_Explain() {
	p := &policy.Policy{}
	_ = p.Add(policy.Allow, policy.Rule{Tool: "run_shell_command", Specifier: "go test:*"})
	vs, _ := p.Explain("run_shell_command", "go test ./... && rm -rf build")
	for _, v := range vs {
		fmt.Printf("%-16s %-5s %s\n", v.Command, cmp.Or(string(v.Verdict), "-"), v.Reason)
	}
	// Output:
	// go test ./...    allow allowed by run_shell_command(go test:*)
	// rm -rf build     -     no rule allows it (rm is not a read-only command (rm -rf build))
}
