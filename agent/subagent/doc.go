// Package subagent runs child agents: an agent hands a task to a child
// with its own prompt, tools and limits, and gets a report back. This
// package loads the definitions of those children; the runner that starts
// them as child sessions comes next.
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
// its parent's permission policy. Files in the workspace are read through
// an [os.Root] (a link out of the directory is refused) and none may be
// larger than [MaxFileSize].
package subagent
