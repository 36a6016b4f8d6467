// Package subagent runs child agents: an agent hands a task to a child
// with its own prompt, tools and limits, and gets a report back. It loads
// the definitions of those children, and its [Runner] starts them as
// child sessions through one tool, agent.
//
//	r, err := subagent.New(subagent.Config{Definitions: set, Provider: p, Model: m,
//		Tools: reg, RunnerOptions: opts, Store: store, Root: root})
//	reg.Register(r.Tool())
//
// # The agent tool
//
// agent {type, prompt, description} runs a child of the definition named
// type on prompt, to completion, and returns its report. The tool is
// parallel-safe: several agent calls of one round run at once (the tool
// runner runs consecutive parallel-safe calls together), at most
// MaxParallel children at each depth, and their results come back in
// call order. Each child has its own [agent.Agent] and tool runner.
//
// # A child is a session
//
// A child works in a session of its own in the parent's store, whose
// header links it to the parent ([session.ChildOf]: the parent session,
// the call, the depth and the agent type). Its id is the parent's with
// the child's number appended: the first child of session S is S.1, that
// child's first child S.1.1. The parent's transaction records
// agent_started and agent_finished (status, report, usage) for each
// child, and a finished child's transcript stays readable, in whichever
// backend keeps the store's sessions: files, or PostgreSQL.
//
// # An honest report, always
//
// A child ends by calling complete_task {status, result, data}: status is
// done, partial or blocked, and data must match the definition's output
// schema (a mismatch is a failed call the child can fix). A child that
// stops otherwise (out of turns or time, cut off at max_tokens, going
// round in circles, its model failing, or answering in plain text) gets
// one grace round in which complete_task is the only tool, and may not
// say done unless it merely forgot to report. If it does not report
// there either, the runner reports for it: partial, with every block of
// text it wrote since the delegation, the tools it called, why it stopped
// and its transcript. A child cancelled with its parent closes its
// transaction as interrupted and reports partial the same way. A
// [Report] is never empty and never says done for a child that was cut
// off.
//
// # Budgets
//
// A report longer than ReportLimit is cut (head and tail kept) and saved
// whole to a file under .wield/spill named in the result. Children nest
// MaxDepth levels deep (1 by default: children start no children, and one
// that asks is told to do the work itself; at most [DepthLimit]). One run
// of a top-level session starts at most SpawnBudget children, its
// descendants included. A child's usage comes back in its [Report], which
// the parent's loop adds to its own ([agent.UsageReporter]); while a child
// runs, the agent call's progress events carry its usage so far
// ([Progress]).
//
// # Definitions
//
// A definition is a Markdown file with YAML frontmatter, as Claude Code
// and gemini-cli write them:
//
//	---
//	name: code-reviewer
//	description: Reviews a change for bugs and style. Use after writing code.
//	tools: Read, Grep, Glob, mcp__github__*
//	model: inherit
//	maxTurns: 20
//	---
//
//	You are a careful code reviewer. …
//
// The body is the child's system prompt. [Parse] reads one file and
// documents every key; [Load] reads the directories [Dirs] names (the
// workspace's .wield/agents, .claude/agents, .gemini/agents and
// .agents/agents, then the user's) into a [Set]. The first definition of
// a name wins, and the built-in [General] agent is always there.
//
// # Problems
//
// Loading is never fatal. Every file that cannot be used is reported as a
// [Problem] with its path and line and skipped, and the others still
// load; unknown keys and shadowed definitions are reported too, at a
// lower [Severity].
//
// # Permissions never widen
//
// A definition in a repository is untrusted data: anyone who can commit
// to the repository can write one. A definition can therefore only narrow
// what a child may do. [Definition.ToolsFrom] intersects the definition's
// tool list with the parent's tools, and the runner gives the child that
// intersection and nothing else; keys that could widen (Claude Code's
// permissionMode, mcpServers, hooks) are ignored, and the child runs under
// its parent's permission policy: the parent's gate decides each of the
// child's calls, and approvals go to the parent's approver with the
// agent's name in front of the reason ("[reviewer] …"). Rules can name
// agent types: agent(reviewer). Files in the workspace are read through
// an [os.Root] (a link out of the directory is refused) and none may be
// larger than [MaxFileSize].
package subagent
