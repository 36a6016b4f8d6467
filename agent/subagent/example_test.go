package subagent_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

func ExampleLoad() {
	// A workspace with definitions in .wield/agents, .claude/agents and
	// .gemini/agents, a user with one in wield's configuration directory
	// and one in ~/.claude/agents.
	base := filepath.Join("testdata", "load")
	user := workspace.UserLayout{Dir: filepath.Join(base, "config", "wield")}
	dirs := subagent.Dirs(filepath.Join(base, "ws"), user, filepath.Join(base, "home"))

	set, problems := subagent.Load(dirs...)
	for _, name := range set.Names() {
		d, _ := set.Get(name)
		fmt.Printf("%s (%s): %s\n", d.Name, d.Scope, d.Description)
	}
	for _, p := range problems {
		fmt.Println(filepath.ToSlash(p.Error()))
	}
	// Output:
	// general (builtin): A general-purpose agent for research, code search and multi-step tasks that need no particular expertise. It has the same tools as you.
	// planner (user): Plans work before anyone starts it.
	// research (builtin): Answers a question from the web, with citations: searches, reads the best sources in full, and reports a short answer with a numbered list of sources. Say in the prompt how deep to go: quick, normal (the default) or thorough.
	// researcher (workspace): Researches questions about the code.
	// reviewer (workspace): Reviews changes in this repository.
	// testdata/load/ws/.claude/agents/broken.md:1: error: the definition has no name; add a name such as "code-reviewer"
	// testdata/load/ws/.claude/agents/code-reviewer.md: info: agent "reviewer" is shadowed by testdata/load/ws/.wield/agents/reviewer.md, found earlier; this file is not used
	// testdata/load/home/.claude/agents/researcher.md:4: info: color is ignored: a display colour
	// testdata/load/home/.claude/agents/researcher.md: info: agent "researcher" is shadowed by testdata/load/ws/.gemini/agents/researcher.md, found earlier; this file is not used
}

func ExampleDefinition_ToolsFrom() {
	d, _ := subagent.Parse([]byte(`---
name: github-triager
description: Triages GitHub issues.
tools: Read, Grep, mcp__github__*
disallowedTools: mcp__github__delete_*
---
Triage the issue you are given.
`))
	parent := []string{"read_file", "replace", "search_file_content", "mcp__github__get_issue", "mcp__github__delete_issue", "mcp__slack__post"}
	fmt.Println(d.ToolsFrom(parent))
	// Output:
	// [read_file search_file_content mcp__github__get_issue]
}

func ExampleDefinition_Format() {
	d, _ := subagent.Parse([]byte(`---
name: researcher
description: Finds things out.
tools: [read_file, glob]
max_turns: 10
timeout_mins: 5
color: blue
---
Research the question.
`))
	out, _ := d.Format()
	fmt.Print(string(out))
	// Output:
	// ---
	// name: researcher
	// description: Finds things out.
	// tools:
	//   - read_file
	//   - glob
	// maxTurns: 10
	// timeout: 5m0s
	// ---
	//
	// Research the question.
}

func ExampleNew() {
	// A scripted model: the parent delegates, the child reports.
	entries, _ := replay.Parse([]byte(`{"turn": 1, "round": 1, "tool_calls": [{"id": "call_1", "name": "agent", "arguments": {"type": "general", "prompt": "Count the Go files."}}]}
{"turn": 1, "round": 2, "text": "There are 3 Go files."}
{"when": "Count the Go files.", "round": 1, "tool_calls": [{"name": "complete_task", "arguments": {"status": "done", "result": "3 Go files"}}]}`))
	model, _ := replay.New(entries)
	tools, _ := tool.NewRegistry()
	set, _ := subagent.Load() // only the built-in general agent
	r, err := subagent.New(subagent.Config{Definitions: set, Provider: model, Tools: tools})
	if err != nil {
		panic(err)
	}
	tools.Register(r.Tool())

	parent, _ := agent.New(agent.Config{Provider: model, Tools: tools, OnEvent: func(e agent.Event) {
		if e.Kind == agent.EventToolFinished {
			fmt.Println(e.Call.Result.Output)
		}
	}})
	out, _ := parent.Run(context.Background(), agent.NewMemorySession("parent"), "How many Go files are there?")
	fmt.Println(out.Text)
	// Output:
	// agent general (session parent.1): done
	//
	// 3 Go files
	// There are 3 Go files.
}
